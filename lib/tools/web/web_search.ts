// The `web_search` tool (spec §9) over a SearXNG instance or the Brave Search API. The hosted
// `{"type":"web_search"}` tool (`search = "provider"`) is the provider's business, not this one.

import { TextDecoder } from "node:util";
import { EnvHttpProxyAgent, request } from "undici";
import type { ResolvedConfig } from "../../config/index.ts";
import { cancelledOutcome, failure } from "../outcome.ts";
import type { ObjectSchema } from "../schema.ts";
import { validateArguments } from "../schema.ts";
import type { Tool, ToolOutcome } from "../types.ts";
import { discard, headerValue, readCapped } from "./body.ts";
import { completeUtf8Length } from "../../util/text_bounds.ts";
import { decodeEntities } from "./entities.ts";
import { USER_AGENT } from "./fetch.ts";
import type { ProxySettings } from "./proxy.ts";

const MAX_QUERY_BYTES = 512;
const MAX_BODY_BYTES = 1_048_576;
const MAX_REDIRECTS = 3;
const ERROR_BODY_BYTES = 300;
const SNIPPET_CHARS = 400;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export type WebSearchOptions = {
  /** Where `brave_api_key_env` is looked up (default `process.env`). */
  env?: Record<string, string | undefined>;
  /** Replaces the environment's proxy settings. */
  proxy?: ProxySettings;
  /** Where configuration warnings go (default stderr). */
  warn?: (text: string) => void;
};

type Backend = {
  /** The name in summaries and messages. */
  label: "SearXNG" | "Brave Search";
  url(query: string, count: number): string;
  headers: Record<string, string>;
  /** Text appended to `returned HTTP <code>` for statuses that usually mean misconfiguration. */
  hint(status: number): string;
};

type SearchArgs = { query: string; count?: number };

export type SearchResult = { title: string; url: string; snippet: string };

/**
 * The scv `web_search` tool for `web.search = "searxng"` or `"brave"`; undefined when web access
 * is off, the backend is `off` or `provider`, or Brave has no usable key (a warning is logged).
 */
export function createWebSearchTool(config: ResolvedConfig, options: WebSearchOptions = {}): Tool | undefined {
  const web = config.web;
  if (!web.enabled) return undefined;
  const warn = options.warn ?? ((text: string) => process.stderr.write(`${text}\n`));
  const backend = selectBackend(config, options.env ?? process.env, warn);
  if (backend === undefined) return undefined;
  const parameters: ObjectSchema = {
    type: "object",
    properties: {
      query: { type: "string", description: "What to search for" },
      count: {
        type: "integer",
        minimum: 1,
        maximum: web.max_search_results,
        description: `How many results to return (default and maximum ${web.max_search_results})`,
      },
    },
    required: ["query"],
    additionalProperties: false,
  };
  return {
    name: "web_search",
    description:
      `Search the web with ${backend.label} and return titles, URLs and snippets; use web_fetch to read a result`,
    parameters,
    prepare(args) {
      const checked = validateArguments<SearchArgs>(parameters, args);
      if (!checked.ok) return { error: checked.error };
      const query = checked.value.query.trim();
      if (query === "") return { error: "query must not be empty" };
      if (Buffer.byteLength(query, "utf8") > MAX_QUERY_BYTES)
        return { error: `query exceeds ${MAX_QUERY_BYTES} bytes` };
      const count = checked.value.count ?? web.max_search_results;
      return {
        risk: "read_only",
        access: { effect: "fetch" },
        summary: `Search ${backend.label} for "${query}"`,
        run: (context) =>
          runSearch(backend, query, count, {
            timeoutMs: web.fetch_timeout_seconds * 1000,
            outputLimitBytes: context.config.tools.output_limit_bytes,
            ...(options.proxy !== undefined ? { proxy: options.proxy } : {}),
          }, context.signal),
      };
    },
  };
}

function selectBackend(
  config: ResolvedConfig,
  env: Record<string, string | undefined>,
  warn: (text: string) => void,
): Backend | undefined {
  const web = config.web;
  if (web.search === "searxng") {
    if (web.searxng_url === undefined || web.searxng_url === "") {
      warn('warning: web.search = "searxng" needs web.searxng_url; web_search is disabled');
      return undefined;
    }
    const base = web.searxng_url.replace(/\/+$/, "");
    return {
      label: "SearXNG",
      url: (query) => `${base}/search?q=${encodeURIComponent(query)}&format=json`,
      headers: { accept: "application/json" },
      hint: (
        status,
      ) => (status === 403 ? " (enable the json format under search.formats in SearXNG's settings.yml)" : ""),
    };
  }
  if (web.search === "brave") {
    const key = braveKey(config, env);
    if (key === undefined) {
      const source = web.brave_api_key_env !== ""
        ? `web.brave_api_key or ${web.brave_api_key_env}`
        : "web.brave_api_key";
      warn(`warning: web.search = "brave" has no usable API key (set ${source}); web_search is disabled`);
      return undefined;
    }
    const separator = web.brave_url.includes("?") ? "&" : "?";
    return {
      label: "Brave Search",
      url: (query, count) => `${web.brave_url}${separator}q=${encodeURIComponent(query)}&count=${count}`,
      headers: { accept: "application/json", "x-subscription-token": key },
      hint: (status) => (status === 401 || status === 403 || status === 422 ? " (check the Brave Search API key)" : ""),
    };
  }
  return undefined;
}

function braveKey(config: ResolvedConfig, env: Record<string, string | undefined>): string | undefined {
  const { brave_api_key, brave_api_key_env } = config.web;
  if (brave_api_key !== undefined && brave_api_key !== "") return brave_api_key;
  const fromEnv = brave_api_key_env !== "" ? env[brave_api_key_env] : undefined;
  return fromEnv !== undefined && fromEnv !== "" ? fromEnv : undefined;
}

type SearchSettings = { timeoutMs: number; outputLimitBytes: number; proxy?: ProxySettings };

async function runSearch(
  backend: Backend,
  query: string,
  count: number,
  settings: SearchSettings,
  signal: AbortSignal,
): Promise<ToolOutcome> {
  if (signal.aborted) return cancelledOutcome("web search cancelled");
  const deadline = AbortSignal.timeout(settings.timeoutMs);
  const combined = AbortSignal.any([signal, deadline]);
  const dispatcher = new EnvHttpProxyAgent({
    connect: { timeout: Math.min(settings.timeoutMs, 10_000) },
    ...settings.proxy,
  });
  const label = backend.label;
  try {
    let url = new URL(backend.url(query, count));
    const origin = url.origin;
    let redirects = 0;
    for (;;) {
      // Credentials go only to the configured origin.
      const headers: Record<string, string> = { "user-agent": USER_AGENT, ...backend.headers };
      if (url.origin !== origin) delete headers["x-subscription-token"];
      const response = await request(url, { method: "GET", headers, dispatcher, signal: combined });
      const location = headerValue(response.headers["location"]);
      if (REDIRECT_STATUSES.has(response.statusCode) && location !== undefined) {
        discard(response.body);
        if (redirects >= MAX_REDIRECTS)
          return failure(`${label} request failed: stopped after ${MAX_REDIRECTS} redirects`);
        const next = new URL(location, url);
        if (next.protocol !== "http:" && next.protocol !== "https:") {
          return failure(`${label} request failed: redirected to a ${next.protocol.slice(0, -1)} URL`);
        }
        url = next;
        redirects += 1;
        continue;
      }
      if (response.statusCode < 200 || response.statusCode > 299) {
        const { bytes } = await readCapped(response.body, ERROR_BODY_BYTES);
        const detail = new TextDecoder().decode(bytes.subarray(0, completeUtf8Length(bytes))).trim();
        return failure(`${label} returned HTTP ${response.statusCode}${backend.hint(response.statusCode)}: ${detail}`);
      }
      const { bytes, cut } = await readCapped(response.body, MAX_BODY_BYTES);
      if (cut) return failure(`${label} response exceeded ${MAX_BODY_BYTES} bytes`);
      let parsed: unknown;
      try {
        parsed = JSON.parse(new TextDecoder().decode(bytes));
      } catch (error) {
        return failure(`${label} returned invalid JSON: ${error instanceof Error ? error.message : String(error)}`);
      }
      return formatResults(query, extractResults(parsed).slice(0, count), settings.outputLimitBytes);
    }
  } catch (error) {
    if (signal.aborted) return cancelledOutcome("web search cancelled");
    if (deadline.aborted) return failure(`${label} request timed out after ${settings.timeoutMs / 1000} seconds`);
    return failure(`${label} request failed: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    dispatcher.destroy().catch(() => {});
  }
}

/** Results from SearXNG's `results[]` (snippet `content`) or Brave's `web.results[]` (`description`). */
export function extractResults(body: unknown): SearchResult[] {
  const record = isRecord(body) ? body : {};
  const web = isRecord(record["web"]) ? record["web"] : {};
  const list = Array.isArray(record["results"])
    ? record["results"]
    : Array.isArray(web["results"])
    ? web["results"]
    : [];
  const results: SearchResult[] = [];
  for (const item of list) {
    if (!isRecord(item) || typeof item["url"] !== "string" || item["url"] === "") continue;
    const title = typeof item["title"] === "string" ? plainText(item["title"]) : "";
    const rawSnippet = typeof item["content"] === "string"
      ? item["content"]
      : typeof item["description"] === "string"
      ? item["description"]
      : "";
    results.push({ title, url: item["url"], snippet: cutChars(plainText(rawSnippet), SNIPPET_CHARS) });
  }
  return results;
}

/** `Results for "<q>":` and one numbered block per result, within `limit` bytes. */
export function formatResults(query: string, results: SearchResult[], limit: number): ToolOutcome {
  if (results.length === 0) return { success: true, output: `No results for "${query}".`, truncated: false };
  let output = `Results for "${query}":\n`;
  let size = Buffer.byteLength(output, "utf8");
  let shown = 0;
  for (const [index, result] of results.entries()) {
    const block = `\n${index + 1}. ${
      result.title === "" ? "(untitled)" : result.title
    }\n   ${result.url}\n   ${result.snippet}\n`;
    const blockSize = Buffer.byteLength(block, "utf8");
    if (size + blockSize > limit) break;
    output += block;
    size += blockSize;
    shown += 1;
  }
  return { success: true, output, truncated: shown < results.length };
}

function plainText(html: string): string {
  return decodeEntities(html.replace(/<[^>]*>/g, "")).replace(/\s+/g, " ").trim();
}

function cutChars(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : chars.slice(0, max).join("");
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
