import { describe, expect, it } from "vitest";
import type { ResolvedConfig } from "../../../lib/config/types.ts";
import { createWebSearchTool, formatResults } from "../../../lib/tools/web/web_search.ts";
import type { WebSearchOptions } from "../../../lib/tools/web/web_search.ts";
import type { Tool } from "../../../lib/tools/types.ts";
import { callTool, type Handler, NO_PROXY_ENV, prepareCall, prepareError, useServers, webConfig } from "./helpers.ts";
import { waitFor } from "../../support/wait.ts";

const serve = useServers();

function json(body: unknown, status = 200): Handler {
  return (_request, response) => {
    response.writeHead(status, { "content-type": "application/json" });
    response.end(typeof body === "string" ? body : JSON.stringify(body));
  };
}

function make(config: ResolvedConfig, options: WebSearchOptions = {}): Tool {
  const tool = createWebSearchTool(config, { proxy: NO_PROXY_ENV, env: {}, warn: () => {}, ...options });
  if (tool === undefined) throw new Error("web_search unexpectedly disabled");
  return tool;
}

const SEARXNG_BODY = {
  results: [
    {
      title: "Serde <b>docs</b>",
      url: "https://docs.rs/serde",
      content: "A <strong>serialization</strong> framework &amp; more",
    },
    { title: "", url: "https://serde.rs/", content: "" },
    { title: "no url" },
    { title: "Third", url: "https://example.com/3", content: "x".repeat(500) },
  ],
};

describe("web_search availability", () => {
  it("is absent when off, provider, or web is disabled", () => {
    expect(createWebSearchTool(webConfig({ search: "off" }))).toBeUndefined();
    expect(createWebSearchTool(webConfig({ search: "provider" }))).toBeUndefined();
    expect(createWebSearchTool(webConfig({ enabled: false, search: "searxng", searxng_url: "http://127.0.0.1:1" })))
      .toBeUndefined();
  });

  it("needs a usable Brave key, warning otherwise", () => {
    const warnings: string[] = [];
    const config = webConfig({ search: "brave" });
    expect(createWebSearchTool(config, { env: { BRAVE_SEARCH_API_KEY: "" }, warn: (text) => warnings.push(text) }))
      .toBeUndefined();
    expect(warnings).toEqual([
      'warning: web.search = "brave" has no usable API key (set web.brave_api_key or BRAVE_SEARCH_API_KEY); web_search is disabled',
    ]);
    expect(createWebSearchTool(config, { env: { BRAVE_SEARCH_API_KEY: "k" }, warn: () => {} })?.name).toBe(
      "web_search",
    );
    expect(createWebSearchTool(webConfig({ search: "brave", brave_api_key: "k" }), { env: {} })?.name).toBe(
      "web_search",
    );
  });

  it("names its backend in the description and summary, and checks the query before approval", () => {
    const config = webConfig({ search: "searxng", searxng_url: "http://127.0.0.1:1", max_search_results: 5 });
    const tool = make(config);
    expect(tool.description).toContain("SearXNG");
    const call = prepareCall(tool, { query: "  rust serde  " }, config);
    expect(call.risk).toBe("read_only");
    expect(call.summary).toBe('Search SearXNG for "rust serde"');
    expect(make(webConfig({ search: "brave", brave_api_key: "k" })).description).toContain("Brave Search");
    expect(prepareError(tool, { query: "   " }, config)).toBe("query must not be empty");
    expect(prepareError(tool, { query: "é".repeat(257) }, config)).toBe("query exceeds 512 bytes");
    expect(prepareCall(tool, { query: "é".repeat(256) }, config).summary).toContain("é");
    expect(prepareError(tool, { query: "q", count: 6 }, config)).toBe('invalid arguments: "count" must be at most 5');
    expect(prepareError(tool, { query: "q", count: 0 }, config)).toBe('invalid arguments: "count" must be at least 1');
  });
});

describe("SearXNG backend", () => {
  it("sends the spec request and formats results exactly", async () => {
    const server = await serve(json(SEARXNG_BODY));
    const config = webConfig({ search: "searxng", searxng_url: `http://127.0.0.1:${server.port}/sx/` });
    const outcome = await callTool(make(config), { query: "serde & json" }, config);
    const request = server.requests[0]!;
    expect(request.method).toBe("GET");
    expect(request.url).toBe("/sx/search?q=serde%20%26%20json&format=json");
    expect(request.headers["user-agent"]).toBe("scv/0.1.0 (+https://github.com/PeiyuanQi/scv)");
    expect(outcome).toEqual({
      success: true,
      truncated: false,
      output: 'Results for "serde & json":\n' +
        "\n1. Serde docs\n   https://docs.rs/serde\n   A serialization framework & more\n" +
        "\n2. (untitled)\n   https://serde.rs/\n   \n" +
        `\n3. Third\n   https://example.com/3\n   ${"x".repeat(400)}\n`,
    });
  });

  it("cuts to count and to the output limit", async () => {
    const server = await serve(json(SEARXNG_BODY));
    const config = webConfig({ search: "searxng", searxng_url: `http://127.0.0.1:${server.port}` });
    const two = await callTool(make(config), { query: "q", count: 2 }, config);
    expect(two.output.match(/^\d\. /gm)).toEqual(["1. ", "2. "]);
    expect(server.requests[0]!.url).toBe("/search?q=q&format=json");
    const limited = formatResults("q", [{ title: "a", url: "https://a", snippet: "s" }, {
      title: "b",
      url: "https://b",
      snippet: "t".repeat(100),
    }], 60);
    expect(limited).toEqual({
      success: true,
      truncated: true,
      output: 'Results for "q":\n\n1. a\n   https://a\n   s\n',
    });
  });

  it("reports no results", async () => {
    const server = await serve(json({ results: [] }));
    const config = webConfig({ search: "searxng", searxng_url: `http://127.0.0.1:${server.port}` });
    expect(await callTool(make(config), { query: "nothing here" }, config)).toEqual({
      success: true,
      truncated: false,
      output: 'No results for "nothing here".',
    });
  });

  it("hints at the json format on 403 and cuts the body to 300 bytes", async () => {
    const server = await serve((_request, response) => {
      response.writeHead(403, { "content-type": "text/html" });
      response.end(`Forbidden ${"y".repeat(1000)}`);
    });
    const config = webConfig({ search: "searxng", searxng_url: `http://127.0.0.1:${server.port}` });
    const outcome = await callTool(make(config), { query: "q" }, config);
    expect(outcome).toEqual({
      success: false,
      truncated: false,
      error: "failed",
      output:
        `SearXNG returned HTTP 403 (enable the json format under search.formats in SearXNG's settings.yml): Forbidden ${
          "y".repeat(290)
        }`,
    });
  });

  it("refuses bodies over 1 MiB and invalid JSON", async () => {
    const big = await serve((_request, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(`{"results":[${'"x",'.repeat(300_000)}"x"]}`);
    });
    const config = webConfig({ search: "searxng", searxng_url: `http://127.0.0.1:${big.port}` });
    expect((await callTool(make(config), { query: "q" }, config)).output).toBe(
      "SearXNG response exceeded 1048576 bytes",
    );
    const broken = await serve(json("{not json"));
    const brokenConfig = webConfig({ search: "searxng", searxng_url: `http://127.0.0.1:${broken.port}` });
    expect((await callTool(make(brokenConfig), { query: "q" }, brokenConfig)).output).toMatch(
      /^SearXNG returned invalid JSON: /,
    );
  });

  it("follows up to 3 redirects", async () => {
    const server = await serve((request, response) => {
      const hop = Number(/hop=(\d+)/.exec(request.url ?? "")?.[1] ?? 0);
      if (request.url?.startsWith("/loop")) {
        response.writeHead(302, { location: `/loop?hop=${hop + 1}` });
        response.end();
        return;
      }
      if (hop < 3) {
        response.writeHead(302, { location: `/search?hop=${hop + 1}` });
        response.end();
        return;
      }
      json(SEARXNG_BODY)(request, response);
    });
    const config = webConfig({ search: "searxng", searxng_url: `http://127.0.0.1:${server.port}` });
    const outcome = await callTool(make(config), { query: "q", count: 1 }, config);
    expect(outcome.success).toBe(true);
    const loop = webConfig({ search: "searxng", searxng_url: `http://127.0.0.1:${server.port}/loop` });
    expect((await callTool(make(loop), { query: "q" }, loop)).output).toBe(
      "SearXNG request failed: stopped after 3 redirects",
    );
  });

  it("times out and cancels", async () => {
    let requests = 0;
    const server = await serve(() => void requests++);
    const config = webConfig({
      search: "searxng",
      searxng_url: `http://127.0.0.1:${server.port}`,
      fetch_timeout_seconds: 1,
    });
    const controller = new AbortController();
    const pending = callTool(make(config), { query: "q" }, config, controller.signal);
    await waitFor(() => requests === 1, { what: "the search request" });
    controller.abort();
    expect(await pending).toEqual({
      success: false,
      truncated: false,
      error: "cancelled",
      output: "web search cancelled",
    });
    expect((await callTool(make(config), { query: "q" }, config)).output).toBe(
      "SearXNG request timed out after 1 seconds",
    );
  });
});

describe("Brave backend", () => {
  it("sends q, count, Accept and the subscription token, and reads web.results", async () => {
    const server = await serve(
      json({
        web: {
          results: [
            { title: "Brave one", url: "https://one.example/", description: "first <strong>hit</strong>" },
            { title: "Brave two", url: "https://two.example/", description: "second" },
          ],
        },
      }),
    );
    const config = webConfig({
      search: "brave",
      brave_url: `http://127.0.0.1:${server.port}/res/v1/web/search`,
      brave_api_key_env: "MY_KEY",
    });
    const tool = make(config, { env: { MY_KEY: "secret-key" } });
    const outcome = await callTool(tool, { query: "hello world", count: 2 }, config);
    const request = server.requests[0]!;
    expect(request.url).toBe("/res/v1/web/search?q=hello%20world&count=2");
    expect(request.headers["accept"]).toBe("application/json");
    expect(request.headers["x-subscription-token"]).toBe("secret-key");
    expect(outcome.output).toBe(
      'Results for "hello world":\n\n1. Brave one\n   https://one.example/\n   first hit\n\n2. Brave two\n   https://two.example/\n   second\n',
    );
    await callTool(tool, { query: "x" }, config);
    expect(server.requests[1]!.url).toBe("/res/v1/web/search?q=x&count=8");
  });

  it.each([401, 403, 422])("hints at the API key on HTTP %i", async (status) => {
    const server = await serve(json({ error: "bad token" }, status));
    const config = webConfig({ search: "brave", brave_url: `http://127.0.0.1:${server.port}/s`, brave_api_key: "k" });
    const outcome = await callTool(make(config), { query: "q" }, config);
    expect(outcome.output).toBe(
      `Brave Search returned HTTP ${status} (check the Brave Search API key): {"error":"bad token"}`,
    );
  });

  it("gives no hint for other statuses and never forwards the token to another origin", async () => {
    const other = await serve(json({ web: { results: [] } }));
    const server = await serve((request, response) => {
      if (request.url?.startsWith("/moved")) {
        response.writeHead(307, { location: `http://localhost:${other.port}/elsewhere` });
        response.end();
        return;
      }
      json("overloaded", 503)(request, response);
    });
    const config = webConfig({ search: "brave", brave_url: `http://127.0.0.1:${server.port}/s`, brave_api_key: "k" });
    expect((await callTool(make(config), { query: "q" }, config)).output).toBe(
      "Brave Search returned HTTP 503: overloaded",
    );
    const moved = webConfig({
      search: "brave",
      brave_url: `http://127.0.0.1:${server.port}/moved`,
      brave_api_key: "k",
    });
    const outcome = await callTool(make(moved), { query: "q" }, moved);
    expect(outcome.output).toBe('No results for "q".');
    expect(other.requests[0]!.headers["x-subscription-token"]).toBeUndefined();
  });
});

describe("createWebTools", () => {
  it("registers web_fetch when web is enabled, and web_search only for a usable backend", async () => {
    const { createWebTools } = await import("../../../lib/tools/web/index.ts");
    const names = (config: ResolvedConfig, env: Record<string, string> = {}) =>
      createWebTools(config, { search: { env, warn: () => {} } }).map((tool) => tool.name);
    expect(names(webConfig())).toEqual(["web_fetch"]);
    expect(names(webConfig({ search: "provider" }))).toEqual(["web_fetch"]);
    expect(names(webConfig({ search: "searxng", searxng_url: "http://127.0.0.1:1" }))).toEqual([
      "web_fetch",
      "web_search",
    ]);
    expect(names(webConfig({ search: "brave" }))).toEqual(["web_fetch"]);
    expect(names(webConfig({ search: "brave" }), { BRAVE_SEARCH_API_KEY: "k" })).toEqual(["web_fetch", "web_search"]);
    expect(names(webConfig({ enabled: false, search: "searxng", searxng_url: "http://127.0.0.1:1" }))).toEqual([]);
  });
});
