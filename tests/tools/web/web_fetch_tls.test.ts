import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Resolver } from "../../../lib/tools/web/resolve.ts";
import { isPublicAddress } from "../../../lib/tools/web/ssrf.ts";
import { createWebFetchTool } from "../../../lib/tools/web/web_fetch.ts";
import {
  callTool,
  hasOpenssl,
  makeCertificate,
  NO_PROXY_ENV,
  prepareCall,
  startTlsServer,
  webConfig,
} from "./helpers.ts";
import type { TestServer, TlsFixture } from "./helpers.ts";

const loopbackOnlyForTests = (ip: string): boolean => ip === "127.0.0.1" || isPublicAddress(ip);
const toLoopback: Resolver = async () => [{ address: "127.0.0.1", family: 4 }];

describe.skipIf(!hasOpenssl())("web_fetch over TLS", () => {
  let tls: TlsFixture;
  let server: TestServer;
  let base: string;

  beforeAll(async () => {
    tls = makeCertificate(["docs.test"]);
    server = await startTlsServer(tls, (request, response) => {
      const port = server.port;
      const redirects: Record<string, string> = {
        "/away": `https://other.test:${port}/ok`,
        "/plain": `http://docs.test:${port}/ok`,
        "/inside": "/ok",
      };
      const target = redirects[request.url ?? ""];
      if (target !== undefined) {
        response.writeHead(302, { location: target });
        response.end();
        return;
      }
      response.writeHead(200, { "content-type": "text/plain" });
      response.end("secure");
    });
    base = `https://docs.test:${server.port}`;
  });
  afterAll(() => server.close());

  const config = webConfig({ auto_approve_domains: ["docs.test"] });
  const tool = () =>
    createWebFetchTool(config, {
      resolver: toLoopback,
      proxy: NO_PROXY_ENV,
      unsafeAddressPolicyForTests: loopbackOnlyForTests,
      unsafeCaForTests: tls.cert,
    });

  it("fetches an auto-approved host over verified TLS and follows an on-list redirect", async () => {
    expect(prepareCall(tool(), { url: `${base}/inside` }, config).risk).toBe("read_only");
    const outcome = await callTool(tool(), { url: `${base}/inside` }, config);
    expect(outcome.output).toBe(
      `URL: ${base}/ok\nStatus: 200\nContent-Type: text/plain\nCharacters: 0-6 of 6\n\nsecure`,
    );
  });

  it("keeps auto-approved fetches on allowlisted https hosts", async () => {
    const away = await callTool(tool(), { url: `${base}/away` }, config);
    expect(away.output).toBe(
      `fetch ${base}/away: redirected to https://other.test:${server.port}/ok, outside the auto-approved hosts; call web_fetch with that URL to request approval`,
    );
    const plain = await callTool(tool(), { url: `${base}/plain` }, config);
    expect(plain.output).toBe(
      `fetch ${base}/plain: redirected to http://docs.test:${server.port}/ok, outside the auto-approved hosts; call web_fetch with that URL to request approval`,
    );
  });

  it("lets an approved (network) fetch leave the allowlist, and TLS still verifies the name", async () => {
    const open = webConfig({ auto_approve_domains: [] });
    const approved = createWebFetchTool(open, {
      resolver: toLoopback,
      proxy: NO_PROXY_ENV,
      unsafeAddressPolicyForTests: loopbackOnlyForTests,
      unsafeCaForTests: tls.cert,
    });
    expect(prepareCall(approved, { url: `${base}/away` }, open).risk).toBe("network");
    const outcome = await callTool(approved, { url: `${base}/away` }, open);
    expect(outcome.success).toBe(false);
    expect(outcome.output).not.toContain("outside the auto-approved hosts");
    // other.test is pinned to the same server, whose certificate names only docs.test.
    expect(outcome.output).toMatch(new RegExp(`^fetch ${base}/away: .*(altname|does not match)`, "i"));
  });
});
