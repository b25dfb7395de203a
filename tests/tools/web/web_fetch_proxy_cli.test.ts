// web_fetch through HTTP_PROXY from the real CLI (issue 12 item 5): the server reads the proxy
// from its environment and tunnels to the address it resolved, not to the name. `localhost` is
// the one name the system resolver answers here, so web.allow_private_addresses lets it through
// the guard; the point is what the proxy is asked for.
import { afterEach, describe, expect, it } from "vitest";
import { textResponse, toolCallResponse } from "../../support/fake_provider.ts";
import { resolveApproval, useServerHarness } from "../../support/server_harness.ts";
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
});
