import { describe, expect, it } from "vitest";
import type { ResolvedConfig } from "../../../lib/config/types.ts";
import { runWebFetch } from "../../../lib/tools/web/fetch.ts";
import type { ResolvedAddress, Resolver } from "../../../lib/tools/web/resolve.ts";
import { isPublicAddress } from "../../../lib/tools/web/ssrf.ts";
import { createWebFetchTool } from "../../../lib/tools/web/web_fetch.ts";
import type { WebFetchOptions } from "../../../lib/tools/web/web_fetch.ts";
import {
  callTool,
  NO_PROXY_ENV,
  prepareCall,
  prepareError,
  startServer,
  type TestServer,
  useServers,
  webConfig,
} from "./helpers.ts";
import { waitFor, within } from "../../support/wait.ts";

const serve = useServers();

/** The guard as in production, except that the test server's 127.0.0.1 counts as public. */
const loopbackOnlyForTests = (ip: string): boolean => ip === "127.0.0.1" || isPublicAddress(ip);
const toLoopback: Resolver = async () => [{ address: "127.0.0.1", family: 4 }];

function tool(config: ResolvedConfig, options: WebFetchOptions = {}) {
  return createWebFetchTool(config, { proxy: NO_PROXY_ENV, ...options });
}

const PRIVATE_OK = webConfig({ allow_private_addresses: true });

describe("web_fetch prepare", () => {
  const config = webConfig({ auto_approve_domains: ["docs.rs", "*.example.org"] });
  const fetchTool = tool(config);

  it("auto-approves https URLs on allowlisted hosts only", () => {
    expect(prepareCall(fetchTool, { url: "https://docs.rs/serde" }, config).risk).toBe("read_only");
    expect(prepareCall(fetchTool, { url: "https://a.b.example.org/" }, config).risk).toBe("read_only");
    expect(prepareCall(fetchTool, { url: "http://docs.rs/serde" }, config).risk).toBe("network");
    expect(prepareCall(fetchTool, { url: "https://example.org/" }, config).risk).toBe("network");
  });

  it("writes the exact approval summary", () => {
    expect(prepareCall(fetchTool, { url: " http://example.invalid/?q=secret " }, config).summary).toBe(
      "Fetch http://example.invalid/?q=secret with an HTTP GET (no cookies or credentials). The full URL is sent to example.invalid.",
    );
    const long = `https://example.com/${"a".repeat(3000)}`;
    const summary = prepareCall(fetchTool, { url: long }, config).summary;
    expect(summary).toBe(
      `Fetch ${
        long.slice(0, 2000)
      }… with an HTTP GET (no cookies or credentials). The full URL is sent to example.com.`,
    );
  });

  it("refuses invalid URLs and arguments before approval", () => {
    expect(prepareError(fetchTool, { url: "ftp://docs.rs/" }, config)).toBe(
      "web_fetch supports only http and https URLs, not ftp",
    );
    expect(prepareError(fetchTool, { url: "https://u:p@docs.rs/" }, config)).toBe(
      "urls with embedded credentials are not allowed",
    );
    expect(prepareError(fetchTool, { url: "nope" }, config)).toMatch(/^invalid url: /);
    expect(prepareError(fetchTool, { url: "https://docs.rs", offset: -1 }, config)).toBe(
      'invalid arguments: "offset" must be at least 0',
    );
    expect(prepareError(fetchTool, { url: "https://docs.rs", cookies: true }, config)).toBe(
      'invalid arguments: unknown property "cookies"',
    );
    expect(prepareError(fetchTool, {}, config)).toBe('invalid arguments: missing required property "url"');
  });

  it("says in its description which hosts skip approval", () => {
    expect(fetchTool.description).toContain("docs.rs, *.example.org");
    expect(fetchTool.description).toContain("public");
    expect(fetchTool.description).toContain("offset");
  });
});

describe("web_fetch against a local server", () => {
  it("fetches HTML as text with numbered links, the exact header and the spec request headers", async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      response.end(
        '<html><head><title>x</title></head><body><h1>Docs</h1><p>Read <a href="/next">more</a>.</p></body></html>',
      );
    });
    const url = `http://127.0.0.1:${server.port}/page`;
    const outcome = await callTool(tool(PRIVATE_OK), { url }, PRIVATE_OK);
    const text = "# Docs\n\nRead more[1].\n\nLinks:\n[1] " + `http://127.0.0.1:${server.port}/next`;
    expect(outcome).toEqual({
      success: true,
      truncated: false,
      output: `URL: ${url}\nStatus: 200\nContent-Type: text/html; charset=utf-8\nCharacters: 0-${[...text].length} of ${
        [...text].length
      }\n\n${text}`,
    });
    const headers = server.requests[0]!.headers;
    expect(headers["user-agent"]).toBe("scv/0.1.0 (+https://github.com/PeiyuanQi/scv)");
    expect(headers["accept"]).toBe("text/html,application/xhtml+xml,text/plain;q=0.9,application/json;q=0.9,*/*;q=0.5");
    expect(headers["cookie"]).toBeUndefined();
    expect(headers["referer"]).toBeUndefined();
    expect(headers["authorization"]).toBeUndefined();
    expect(server.requests[0]!.method).toBe("GET");
  });

  it("refuses a loopback IP literal by default without connecting", async () => {
    const server = await serve((_request, response) => response.end("secret"));
    const config = webConfig();
    const url = `http://127.0.0.1:${server.port}/`;
    const outcome = await callTool(tool(config), { url }, config);
    expect(outcome).toEqual({
      success: false,
      truncated: false,
      error: "failed",
      output: `fetch ${url}: 127.0.0.1 is a loopback, private, or otherwise non-public address`,
    });
    expect(server.connections).toBe(0);
  });

  it.each([
    ["http://[::1]:8080/", "::1"],
    ["http://[::ffff:7f00:1]/", "::ffff:7f00:1"],
    ["http://2130706433/", "127.0.0.1"],
    ["http://0x7f.1/", "127.0.0.1"],
    ["http://[64:ff9b::a9fe:a9fe]/", "64:ff9b::a9fe:a9fe"],
    ["https://169.254.169.254./latest", "169.254.169.254"],
  ])("refuses the literal in %s before any connection", async (url, ip) => {
    const config = webConfig();
    let resolved = false;
    const spy: Resolver = async () => {
      resolved = true;
      return [];
    };
    const outcome = await callTool(tool(config, { resolver: spy }), { url }, config);
    expect(outcome.output).toBe(`fetch ${url}: ${ip} is a loopback, private, or otherwise non-public address`);
    expect(resolved).toBe(false);
  });

  it("refuses localhost through the system resolver (an allowlisted https host included)", async () => {
    const config = webConfig({ auto_approve_domains: ["localhost"] });
    const fetchTool = tool(config);
    const call = prepareCall(fetchTool, { url: "https://localhost:9/docs" }, config);
    expect(call.risk).toBe("read_only");
    const outcome = await callTool(fetchTool, { url: "https://localhost:9/docs" }, config);
    expect(outcome.success).toBe(false);
    expect(outcome.output).toMatch(
      /^fetch https:\/\/localhost:9\/docs: localhost resolves to (127\.0\.0\.1|::1), a loopback, private, or otherwise non-public address$/,
    );
  });

  it("refuses a name when any of its addresses is non-public, and a name without addresses", async () => {
    const config = webConfig();
    const mixed: Resolver = async () => [{ address: "1.1.1.1", family: 4 }, { address: "::ffff:10.0.0.1", family: 6 }];
    const outcome = await callTool(tool(config, { resolver: mixed }), { url: "https://mixed.test/" }, config);
    expect(outcome.output).toBe(
      "fetch https://mixed.test/: mixed.test resolves to ::ffff:10.0.0.1, a loopback, private, or otherwise non-public address",
    );
    const none: Resolver = async () => [];
    const empty = await callTool(tool(config, { resolver: none }), { url: "https://none.test/" }, config);
    expect(empty.output).toBe("fetch https://none.test/: none.test did not resolve to any address");
  });

  it("pins the connection to the checked addresses: a rebinding second answer is never used", async () => {
    const server = await serve((request, response) => {
      if (request.url === "/hop") {
        response.writeHead(302, { location: "/landed" });
        response.end();
        return;
      }
      response.writeHead(200, { "content-type": "text/plain" });
      response.end(`host ${request.headers.host}`);
    });
    const answers: ResolvedAddress[][] = [
      [{ address: "127.0.0.1", family: 4 }],
      [{ address: "127.0.0.2", family: 4 }],
    ];
    let calls = 0;
    const rebinding: Resolver = async () => answers[Math.min(calls++, answers.length - 1)]!;
    const config = webConfig();
    const options = { resolver: rebinding, unsafeAddressPolicyForTests: loopbackOnlyForTests };
    // rebind.test has no real DNS record: success proves the socket used the pinned answer.
    const outcome = await callTool(tool(config, options), { url: `http://rebind.test:${server.port}/` }, config);
    expect(outcome.success).toBe(true);
    expect(outcome.output.endsWith(`host rebind.test:${server.port}`)).toBe(true);
    expect(calls).toBe(1);
    // Each redirect hop resolves again, and its answer is judged before any connection.
    calls = 0;
    const hop = await callTool(tool(config, options), { url: `http://rebind.test:${server.port}/hop` }, config);
    expect(hop.output).toBe(
      `fetch http://rebind.test:${server.port}/hop: rebind.test resolves to 127.0.0.2, a loopback, private, or otherwise non-public address`,
    );
    expect(calls).toBe(2);
    expect(server.requests.map((request) => request.url)).toEqual(["/", "/hop"]);
  });

  describe("redirects", () => {
    async function chain(): Promise<TestServer> {
      return serve((request, response) => {
        const match = /^\/r\/(\d+)$/.exec(request.url ?? "");
        if (match !== null) {
          const left = Number(match[1]);
          response.writeHead(left === 1 ? 301 : 307, { location: left === 1 ? "/done" : `/r/${left - 1}` });
          response.end("moved");
          return;
        }
        if (request.url === "/metadata") {
          response.writeHead(302, { location: "http://169.254.169.254/latest/meta-data/" });
          response.end();
          return;
        }
        if (request.url === "/ftp") {
          response.writeHead(302, { location: "ftp://127.0.0.1/file" });
          response.end();
          return;
        }
        response.writeHead(200, { "content-type": "text/plain" });
        response.end("arrived");
      });
    }

    it("follows up to max_redirects hops and reports the final URL", async () => {
      const server = await chain();
      const config = webConfig({ allow_private_addresses: true, max_redirects: 3 });
      const outcome = await callTool(tool(config), { url: `http://127.0.0.1:${server.port}/r/3` }, config);
      expect(outcome.success).toBe(true);
      expect(outcome.output).toBe(
        `URL: http://127.0.0.1:${server.port}/done\nStatus: 200\nContent-Type: text/plain\nCharacters: 0-7 of 7\n\narrived`,
      );
    });

    it("stops after max_redirects", async () => {
      const server = await chain();
      const config = webConfig({ allow_private_addresses: true, max_redirects: 2 });
      const url = `http://127.0.0.1:${server.port}/r/3`;
      const outcome = await callTool(tool(config), { url }, config);
      expect(outcome).toMatchObject({ success: false, output: `fetch ${url}: stopped after 2 redirects` });
      expect(server.requests.length).toBe(3);
      const none = webConfig({ allow_private_addresses: true, max_redirects: 0 });
      expect((await callTool(tool(none), { url }, none)).output).toBe(`fetch ${url}: stopped after 0 redirects`);
    });

    it("re-checks every hop: a redirect to the metadata address is refused", async () => {
      const server = await chain();
      const config = webConfig();
      const url = `http://127.0.0.1:${server.port}/metadata`;
      const outcome = await callTool(
        tool(config, { unsafeAddressPolicyForTests: loopbackOnlyForTests }),
        { url },
        config,
      );
      expect(outcome.output).toBe(
        `fetch ${url}: 169.254.169.254 is a loopback, private, or otherwise non-public address`,
      );
      const ftp = await callTool(tool(PRIVATE_OK), { url: `http://127.0.0.1:${server.port}/ftp` }, PRIVATE_OK);
      expect(ftp.output).toBe(
        `fetch http://127.0.0.1:${server.port}/ftp: web_fetch supports only http and https URLs, not ftp`,
      );
    });
  });

  it("pages long text by code points with the exact trailer", async () => {
    const body = Array.from({ length: 400 }, (_, index) => (index % 7 === 0 ? "é😀" : `line ${index}\n`)).join("");
    const server = await serve((_request, response) => {
      response.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
      response.end(body);
    });
    const config = webConfig({ allow_private_addresses: true }, { output_limit_bytes: 1024 });
    const fetchTool = tool(config);
    const url = `http://127.0.0.1:${server.port}/long`;
    const total = [...body].length;
    let offset = 0;
    let collected = "";
    let parts = 0;
    for (;;) {
      const outcome = await callTool(fetchTool, offset === 0 ? { url } : { url, offset }, config);
      parts += 1;
      expect(outcome.success).toBe(true);
      expect(Buffer.byteLength(outcome.output)).toBeLessThanOrEqual(1024);
      const header =
        /^URL: .*\nStatus: 200\nContent-Type: text\/plain; charset=utf-8\nCharacters: (\d+)-(\d+) of (\d+)\n\n/.exec(
          outcome.output,
        )!;
      expect(Number(header[1])).toBe(offset);
      expect(Number(header[3])).toBe(total);
      const end = Number(header[2]);
      let text = outcome.output.slice(header[0].length);
      if (end < total) {
        const trailer = `\n\n[${total - end} more characters; call web_fetch with offset=${end} for the next part]`;
        expect(text.endsWith(trailer)).toBe(true);
        text = text.slice(0, -trailer.length);
        expect(outcome.truncated).toBe(true);
      }
      expect([...text].length).toBe(end - offset);
      collected += text;
      if (end >= total) break;
      offset = end;
    }
    expect(collected).toBe(body);
    expect(parts).toBeGreaterThan(3);
  });

  it("refuses a binary content type before downloading the body", async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { "content-type": "Application/Octet-Stream; x=1" });
      response.write(Buffer.alloc(1024));
      // Never ends: downloading would wait for the timeout.
    });
    const config = webConfig({ allow_private_addresses: true, fetch_timeout_seconds: 20 });
    const url = `http://127.0.0.1:${server.port}/blob`;
    const outcome = await callTool(tool(config), { url }, config);
    expect(outcome).toEqual({
      success: false,
      truncated: false,
      error: "failed",
      output:
        `URL: ${url}\nStatus: 200\nweb_fetch returns text only; application/octet-stream is not a text content type`,
    });
  });

  it("returns the body of a 404 with success false", async () => {
    const server = await serve((_request, response) => {
      response.writeHead(404, { "content-type": "text/plain" });
      response.end("no such page");
    });
    const url = `http://127.0.0.1:${server.port}/missing`;
    const outcome = await callTool(tool(PRIVATE_OK), { url }, PRIVATE_OK);
    expect(outcome).toEqual({
      success: false,
      truncated: false,
      error: "failed",
      output: `URL: ${url}\nStatus: 404\nContent-Type: text/plain\nCharacters: 0-12 of 12\n\nno such page`,
    });
  });

  it("sniffs untyped bodies: HTML, text, and binary", async () => {
    const server = await serve((request, response) => {
      if (request.url === "/html") response.end("<!doctype html><p>Hi &amp; bye</p>");
      else if (request.url === "/text") response.end("just text é");
      else response.end(Buffer.from([0x00, 0xff, 0xfe, 0x80, 0x81]));
    });
    const base = `http://127.0.0.1:${server.port}`;
    const html = await callTool(tool(PRIVATE_OK), { url: `${base}/html` }, PRIVATE_OK);
    expect(html.output).toBe(`URL: ${base}/html\nStatus: 200\nContent-Type: unknown\nCharacters: 0-8 of 8\n\nHi & bye`);
    const text = await callTool(tool(PRIVATE_OK), { url: `${base}/text` }, PRIVATE_OK);
    expect(text.output.endsWith("\n\njust text é")).toBe(true);
    const binary = await callTool(tool(PRIVATE_OK), { url: `${base}/bin` }, PRIVATE_OK);
    expect(binary).toMatchObject({
      success: false,
      output: `URL: ${base}/bin\nStatus: 200\nthe response has no content type and is not text`,
    });
  });

  it("stops the download at fetch_max_bytes", async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { "content-type": "text/plain" });
      for (let index = 0; index < 50; index += 1) response.write("0123456789".repeat(10));
      response.end();
    });
    const config = webConfig({ allow_private_addresses: true, fetch_max_bytes: 1234 });
    const url = `http://127.0.0.1:${server.port}/big`;
    const outcome = await callTool(tool(config), { url }, config);
    expect(outcome.success).toBe(true);
    expect(outcome.truncated).toBe(true);
    expect(
      outcome.output.startsWith(
        `URL: ${url}\nStatus: 200\nContent-Type: text/plain\nCharacters: 0-1234 of 1234 (download stopped at 1234 bytes)\n\n0123`,
      ),
    ).toBe(true);
  });

  it("reports a cancel as web fetch cancelled", async () => {
    let responding = false;
    const server = await serve((_request, response) => {
      response.writeHead(200, { "content-type": "text/plain" });
      response.write("partial");
      responding = true;
    });
    const controller = new AbortController();
    const pending = callTool(
      tool(PRIVATE_OK),
      { url: `http://127.0.0.1:${server.port}/` },
      PRIVATE_OK,
      controller.signal,
    );
    // Cancelled mid-body; the server never ends it, so nothing else could end the fetch in time.
    await waitFor(() => responding, { what: "the server to start its answer" });
    controller.abort();
    const outcome = await within(pending, "the cancelled fetch to end");
    expect(outcome).toEqual({ success: false, truncated: false, error: "cancelled", output: "web fetch cancelled" });
  });

  it("times out a stalled response and a hanging resolver", async () => {
    const server = await serve(() => {
      // Never answers.
    });
    const settings = {
      maxBytes: 1000,
      timeoutMs: 250,
      maxRedirects: 5,
      autoApproveDomains: [],
      outputLimitBytes: 65536,
      allowed: () => true,
      resolver: toLoopback,
      proxy: NO_PROXY_ENV,
    };
    const url = new URL(`http://127.0.0.1:${server.port}/slow`);
    const signal = new AbortController().signal;
    const outcome = await runWebFetch({ url, text: url.href, offset: 0, autoApproved: false }, settings, signal);
    expect(outcome).toMatchObject({
      success: false,
      error: "failed",
      output: `fetch ${url.href}: timed out after 0.25 seconds`,
    });
    const hanging: Resolver = () => new Promise(() => {});
    const named = new URL("http://hang.test/");
    const stuck = await runWebFetch({ url: named, text: named.href, offset: 0, autoApproved: false }, {
      ...settings,
      resolver: hanging,
    }, signal);
    expect(stuck.output).toBe("fetch http://hang.test/: timed out after 0.25 seconds");
  });

  it("reports a refused connection", async () => {
    const server = await startServer(() => {});
    const port = server.port;
    await server.close();
    const url = `http://127.0.0.1:${port}/`;
    const outcome = await callTool(tool(PRIVATE_OK), { url }, PRIVATE_OK);
    expect(outcome.success).toBe(false);
    expect(outcome.output).toMatch(new RegExp(`^fetch ${url.replace(/[./]/g, "\\$&")}: .*ECONNREFUSED`));
  });
});
