// The model's context window, found rather than guessed (issue 14): a known table for OpenAI and Claude models,
// and on the `chat` wire one small lookup per session at the local server: Ollama's /api/show, llama-server's
// /props, vLLM's and other OpenAI-compatible servers' /v1/models. A lookup that fails is silent.
import { Agent, type Dispatcher, request } from "undici";
import type { ProviderProfile } from "./types.ts";

export type ContextWindowSource = "known_model" | "ollama" | "llama.cpp" | "vllm" | "server";

export type ContextWindow = {
  tokens: number;
  source: ContextWindowSource;
  /** Said once per session: the server runs the model with less context than it supports. */
  warning?: string;
};

/** Ollama's context when neither the model nor the server sets one. */
export const OLLAMA_DEFAULT_CONTEXT = 4096;
const LOOKUP_TIMEOUT_MS = 1500;
const MAX_LOOKUP_BODY_BYTES = 4 * 1024 * 1024;
const OLLAMA_PORT = "11434";

/** Longest prefix wins; a provider prefix such as `openai/` is ignored. Input windows (gpt-5: 272k of 400k). */
const KNOWN_WINDOWS: Array<[prefix: string, tokens: number]> = ([
  ["gpt-5", 272_000],
  ["gpt-4.1", 1_047_576],
  ["gpt-4o", 128_000],
  ["gpt-4-turbo", 128_000],
  ["gpt-4", 8_192],
  ["gpt-3.5-turbo", 16_385],
  ["gpt-oss", 131_072],
  ["o1-mini", 128_000],
  ["o1", 200_000],
  ["o3", 200_000],
  ["o4-mini", 200_000],
  ["codex-mini", 200_000],
  // Every Claude model reads 200k tokens; some read 1M with the long-context beta header (below).
  ["claude", 200_000],
] as Array<[string, number]>).sort((a, b) => b[0].length - a[0].length);

/** Claude models that read 1M tokens when the request carries `anthropic-beta: context-1m-…`. */
const LONG_CONTEXT_CLAUDE = ["claude-sonnet-4", "claude-opus-4-6"];
const LONG_CONTEXT_TOKENS = 1_000_000;
const LONG_CONTEXT_BETA = /(?:^|,)\s*context-1m-/;

/** The known window of `model`; `headers` (the profile's) may enable a larger one, as the long-context beta does. */
export function knownContextWindow(model: string, headers: Record<string, string> = {}): number | undefined {
  const name = model.toLowerCase().replace(/^.*\//, "");
  const matches = (prefix: string) =>
    name === prefix || name.startsWith(`${prefix}-`) || name.startsWith(`${prefix}.`) || name.startsWith(`${prefix}:`);
  const beta = Object.entries(headers).find(([header]) => header.toLowerCase() === "anthropic-beta")?.[1] ?? "";
  if (LONG_CONTEXT_BETA.test(beta) && LONG_CONTEXT_CLAUDE.some(matches)) return LONG_CONTEXT_TOKENS;
  for (const [prefix, tokens] of KNOWN_WINDOWS) {
    if (matches(prefix)) return tokens;
  }
  return undefined;
}

export type DiscoveryOptions = {
  profile: Pick<ProviderProfile, "base_url" | "model" | "headers">;
  credential: string;
  /** The scv process's environment: `OLLAMA_CONTEXT_LENGTH` set here is taken as the local Ollama's. */
  env?: Record<string, string | undefined>;
  timeoutMs?: number;
};

/** Asks the chat-wire server for the model's context window; undefined when it cannot tell. Never throws. */
export async function discoverContextWindow(options: DiscoveryOptions): Promise<ContextWindow | undefined> {
  const dispatcher = new Agent({ connections: 1, keepAliveTimeout: 1 });
  const signal = AbortSignal.timeout(options.timeoutMs ?? LOOKUP_TIMEOUT_MS);
  const lookup = new Lookup(options, dispatcher, signal);
  try {
    return await lookup.run();
  } catch {
    return undefined;
  } finally {
    await dispatcher.destroy().catch(() => {});
  }
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function positive(value: unknown): number | undefined {
  return typeof value === "number" && Number.isInteger(value) && value > 0 ? value : undefined;
}

class Lookup {
  readonly #options: DiscoveryOptions;
  readonly #dispatcher: Dispatcher;
  readonly #signal: AbortSignal;
  readonly #base: string;
  /** The server root: base_url without a trailing `/v1`. */
  readonly #root: string;

  constructor(options: DiscoveryOptions, dispatcher: Dispatcher, signal: AbortSignal) {
    this.#options = options;
    this.#dispatcher = dispatcher;
    this.#signal = signal;
    this.#base = options.profile.base_url.replace(/\/+$/, "");
    this.#root = this.#base.replace(/\/v1$/, "");
  }

  async run(): Promise<ContextWindow | undefined> {
    // Ollama's own port: one request straight to /api/show.
    if (new URL(this.#base).port === OLLAMA_PORT) return this.#ollama();
    const listing = await this.#get(`${this.#base}/models`);
    const entry = modelEntry(listing, this.#options.profile.model);
    if (!entry) return undefined;
    const vllm = positive(entry.max_model_len);
    if (vllm !== undefined) return { tokens: vllm, source: "vllm" };
    for (const key of ["context_length", "context_window", "max_context_length"]) {
      const tokens = positive(entry[key]);
      if (tokens !== undefined) return { tokens, source: "server" };
    }
    // llama-server lists the training context only; the running one (`-c`) is in /props.
    if (entry.owned_by === "llamacpp" || (isObject(entry.meta) && entry.meta.n_ctx_train !== undefined)) {
      return this.#llamaCpp();
    }
    if (entry.owned_by === "library" || entry.owned_by === "ollama") return this.#ollama();
    return undefined;
  }

  async #llamaCpp(): Promise<ContextWindow | undefined> {
    const props = await this.#get(`${this.#root}/props`);
    if (!isObject(props)) return undefined;
    const settings = isObject(props.default_generation_settings) ? props.default_generation_settings : {};
    const tokens = positive(settings.n_ctx) ?? positive(props.n_ctx);
    return tokens === undefined ? undefined : { tokens, source: "llama.cpp" };
  }

  async #ollama(): Promise<ContextWindow | undefined> {
    const model = this.#options.profile.model;
    const show = await this.#post(`${this.#root}/api/show`, { model });
    if (!isObject(show)) return undefined;
    const info = isObject(show.model_info) ? show.model_info : {};
    let trained: number | undefined;
    for (const [key, value] of Object.entries(info)) {
      if (key.endsWith(".context_length") && positive(value) !== undefined) trained = positive(value);
    }
    const running = numCtx(show.parameters) ?? positive(Number(this.#options.env?.OLLAMA_CONTEXT_LENGTH)) ??
      OLLAMA_DEFAULT_CONTEXT;
    if (trained === undefined) return { tokens: running, source: "ollama" };
    if (running >= trained) return { tokens: trained, source: "ollama" };
    const suggested = Math.min(trained, 32768);
    return {
      tokens: running,
      source: "ollama",
      warning: `Ollama runs ${model} with a ${running}-token context although the model supports ${trained}; ` +
        `Ollama drops the oldest messages silently when a conversation outgrows it. Restart it with ` +
        `OLLAMA_CONTEXT_LENGTH=${suggested} (e.g. OLLAMA_CONTEXT_LENGTH=${suggested} ollama serve); ` +
        `until then scv budgets ${running} tokens`,
    };
  }

  #headers(): Record<string, string> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.#options.credential}`,
      accept: "application/json",
    };
    for (const [name, value] of Object.entries(this.#options.profile.headers)) headers[name.toLowerCase()] = value;
    return headers;
  }

  #get(url: string): Promise<unknown> {
    return this.#send(url, "GET");
  }

  #post(url: string, body: unknown): Promise<unknown> {
    return this.#send(url, "POST", JSON.stringify(body));
  }

  async #send(url: string, method: "GET" | "POST", body?: string): Promise<unknown> {
    const headers = this.#headers();
    if (body !== undefined) headers["content-type"] = "application/json";
    const response = await request(url, { method, headers, body, signal: this.#signal, dispatcher: this.#dispatcher });
    if (response.statusCode < 200 || response.statusCode > 299) {
      await response.body.dump().catch(() => {});
      return undefined;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body) {
      size += chunk.byteLength;
      if (size > MAX_LOOKUP_BODY_BYTES) {
        response.body.destroy();
        return undefined;
      }
      chunks.push(Buffer.from(chunk));
    }
    try {
      return JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      return undefined;
    }
  }
}

/** The `/v1/models` entry for `model`, else the only entry. */
function modelEntry(listing: unknown, model: string): Json | undefined {
  if (!isObject(listing) || !Array.isArray(listing.data)) return undefined;
  const entries = listing.data.filter(isObject);
  return entries.find((entry) => entry.id === model) ?? (entries.length === 1 ? entries[0] : undefined);
}

/** `num_ctx` from Ollama's `parameters` text (`num_ctx   8192` lines). */
function numCtx(parameters: unknown): number | undefined {
  if (typeof parameters !== "string") return undefined;
  const match = /^\s*num_ctx\s+(\d+)\s*$/m.exec(parameters);
  return match ? positive(Number(match[1])) : undefined;
}
