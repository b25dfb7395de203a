// web_fetch's address rules through the real CLI (issue 12 items 5 and 6). The server reads
// HTTP_PROXY from its environment and tunnels to the address it resolved, not to the name
// (`localhost` is the one name the system resolver answers here, so web.allow_private_addresses
// lets it through the guard; the point is what the proxy is asked for). And special-purpose
// addresses the guard used to miss are refused before anything is sent, the proxy included.
import { afterEach, describe, expect, it } from "vitest";
import { textResponse, toolCallResponse } from "../../support/fake_provider.ts";
import { resolveApproval, useServerHarness } from "../../support/server_harness.ts";
import type { ServerEvent } from "../../support/server_client.ts";
import { startProxy, startServer, targetHost } from "./helpers.ts";
import type { TestProxy, TestServer } from "./helpers.ts";

const harness = useServerHarness();
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe("web_fetch through HTTP_PROXY from scv server --stdio", () => {
  it("sends CONNECT to the resolved address and keeps the name in the Host header", async () => {
    const site: TestServer = await startServer((request, response) => {
      response.writeHead(200, { "content-type": "text/plain" }).end(`site saw ${request.headers.host}`);
    });
    cleanups.push(() => site.close());
    const proxy: TestProxy = await startProxy(() => ({ port: site.port }));
    cleanups.push(() => proxy.close());
    const url = `http://localhost:${site.port}/page`;
    const proxyEnv = {
      HTTP_PROXY: proxy.url,
      http_proxy: proxy.url,
      HTTPS_PROXY: undefined,
      https_proxy: undefined,
      // The fake provider is reached directly.
      NO_PROXY: "127.0.0.1",
      no_proxy: "127.0.0.1",
    };
    const client = await harness.startServer(
      [toolCallResponse([{ call_id: "fetch", name: "web_fetch", arguments: { url } }]), textResponse(["done"])],
      { toml: "[web]\nallow_private_addresses = true\n", env: proxyEnv },
    );
    client.turn("fetch it");
    const approval = await client.next(["approval.requested"]);
    resolveApproval(client, approval.approval_id, true);
    const completed = await client.next(["tool.completed"]);
    await client.next(["turn.completed"]);
    expect(proxy.connects).toHaveLength(1);
    expect(["127.0.0.1", "::1"]).toContain(targetHost(proxy.connects[0]!));
    expect(proxy.connects[0]!.endsWith(`:${site.port}`)).toBe(true);
    expect(completed).toMatchObject({ success: true });
    expect(completed.output.endsWith(`site saw localhost:${site.port}`)).toBe(true);
    await client.finish();
  });

  it("refuses the special-purpose addresses the guard used to miss, before the proxy sees them", async () => {
    // Every tunnel is refused, so nothing leaves this machine even if a refused address slipped through.
    const proxy: TestProxy = await startProxy(() => ({ status: 403, reason: "Forbidden" }));
    cleanups.push(() => proxy.close());
    const refused = [
      "http://[::ffff:0:7f00:1]/", // IPv4-translated 127.0.0.1
      "http://[64:ff9b:1::a00:1]/", // local-use NAT64
      "http://[64:ff9b::c058:6301]/", // NAT64 of 192.88.99.1
      "http://192.88.99.1/",
      "http://192.31.196.1/",
      "http://[100::1]/",
      "http://[5f00::1]/",
      "http://[3fff::1]/",
      "http://[2001:2::1]/",
    ];
    const calls = [...refused, "http://93.184.216.34/"].map((url, index) => ({
      call_id: `c${index}`,
      name: "web_fetch",
      arguments: { url },
    }));
    const proxyEnv = { HTTP_PROXY: proxy.url, http_proxy: proxy.url, NO_PROXY: "127.0.0.1", no_proxy: "127.0.0.1" };
    const client = await harness.startServer([toolCallResponse(calls), textResponse(["done"])], { env: proxyEnv });
    client.turn("fetch them");
    const completed: ServerEvent[] = [];
    while (completed.length < calls.length) {
      const event = await client.next(["approval.requested", "tool.completed"]);
      if (event.type === "approval.requested") resolveApproval(client, event.approval_id, true);
      else completed.push(event);
    }
    await client.next(["turn.completed"]);
    refused.forEach((url, index) => {
      const host = new URL(url).hostname.replace(/^\[|\]$/g, "");
      expect(completed[index]).toMatchObject({ success: false });
      expect(completed[index]!.output).toBe(
        `fetch ${url}: ${host} is a loopback, private, or otherwise non-public address`,
      );
    });
    // The one public address went to the proxy, as its IP literal.
    expect(proxy.connects).toEqual(["93.184.216.34:80"]);
    expect(completed.at(-1)!.output).toBe(
      `fetch http://93.184.216.34/: proxy 127.0.0.1:${proxy.port} refused CONNECT 93.184.216.34:80: HTTP 403 Forbidden`,
    );
    await client.finish();
  });
});
