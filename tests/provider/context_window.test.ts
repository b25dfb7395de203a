// Context windows found, not guessed (issue 14, deliverable 2): each local server's real model-information
// format served by the fake provider, the known table for OpenAI models, silent failures, the budget's reserves.
import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { contextForWindow } from "../../lib/agent/context_budget.ts";
import { discoverContextWindow, knownContextWindow } from "../../lib/provider/context_window.ts";
import { type FakeProvider, startFakeProvider } from "../support/fake_provider.ts";
import { within } from "../support/wait.ts";
import { serveModelInfo } from "./fixtures/model_servers.ts";

const fakes: FakeProvider[] = [];
afterEach(async () => {
  for (const fake of fakes.splice(0)) await fake.close();
});

async function fake(): Promise<FakeProvider> {
  const provider = await startFakeProvider();
  fakes.push(provider);
  return provider;
}

function discover(url: string, model: string, env: Record<string, string> = {}, timeoutMs?: number) {
  return discoverContextWindow({
    profile: { base_url: url, model, headers: { "X-Team": "a" } },
    credential: "local-key",
    env,
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  });
}

describe("discoverContextWindow", () => {
  it("vLLM: max_model_len from /v1/models, in one request with the credential", async () => {
    const server = await fake();
    serveModelInfo(server, "vllm", { model: "Qwen/Qwen3-8B", window: 32768 });
    expect(await discover(server.url, "Qwen/Qwen3-8B")).toEqual({ tokens: 32768, source: "vllm" });
    expect(server.lookups.map((request) => `${request.method} ${request.path}`)).toEqual(["GET /v1/models"]);
    expect(server.lookups[0]!.headers.authorization).toBe("Bearer local-key");
    expect(server.lookups[0]!.headers["x-team"]).toBe("a");
    expect(server.requests).toEqual([]);
  });

  it("llama-server: the running n_ctx of /props, not the training context of /v1/models", async () => {
    const server = await fake();
    serveModelInfo(server, "llama.cpp", { model: "qwen3-8b-q4_k_m.gguf", window: 40960, running: 8192 });
    // llama-server serves whatever model it loaded, under any name.
    expect(await discover(server.url, "local")).toEqual({ tokens: 8192, source: "llama.cpp" });
    expect(server.lookups.map((request) => request.path)).toEqual(["/v1/models", "/props"]);
  });

  it("Ollama at its default context: the running 4096, with a warning naming OLLAMA_CONTEXT_LENGTH", async () => {
    const server = await fake();
    serveModelInfo(server, "ollama", { model: "qwen3:8b", window: 40960 });
    const found = await discover(server.url, "qwen3:8b");
    expect(found).toMatchObject({ tokens: 4096, source: "ollama" });
    expect(found!.warning).toContain("4096-token context although the model supports 40960");
    expect(found!.warning).toContain("OLLAMA_CONTEXT_LENGTH=32768");
    const show = server.lookups.find((request) => request.path === "/api/show")!;
    expect(show.method).toBe("POST");
    expect(show.body).toEqual({ model: "qwen3:8b" });
  });

  it("Ollama on its own port 11434: straight to /api/show, one request", async () => {
    let server: FakeProvider;
    try {
      server = await startFakeProvider([], { port: 11434 });
    } catch {
      // Something else holds the port on this machine: the path through /v1/models is covered above.
      return;
    }
    fakes.push(server);
    serveModelInfo(server, "ollama", { model: "llama3.1:8b", window: 131072, running: 8192 });
    const found = await discover(server.url, "llama3.1:8b");
    expect(found).toMatchObject({ tokens: 8192, source: "ollama" });
    expect(server.lookups.map((request) => `${request.method} ${request.path}`)).toEqual(["POST /api/show"]);
  });

  it("Ollama with num_ctx at least the model's: the model's window and no warning", async () => {
    const server = await fake();
    serveModelInfo(server, "ollama", { model: "qwen3:8b", window: 40960, running: 65536 });
    expect(await discover(server.url, "qwen3:8b")).toEqual({ tokens: 40960, source: "ollama" });
  });

  it("Ollama started with OLLAMA_CONTEXT_LENGTH in scv's environment: that length", async () => {
    const server = await fake();
    serveModelInfo(server, "ollama", { model: "qwen3:8b", window: 16384 });
    expect(await discover(server.url, "qwen3:8b", { OLLAMA_CONTEXT_LENGTH: "16384" })).toEqual({
      tokens: 16384,
      source: "ollama",
    });
  });

  it("an OpenAI-compatible gateway's context_length", async () => {
    const server = await fake();
    serveModelInfo(server, "gateway", { model: "openai/gpt-4o", window: 128000 });
    expect(await discover(server.url, "openai/gpt-4o")).toEqual({ tokens: 128000, source: "server" });
  });

  it("is silent when the server cannot tell: 404, no entry for the model, bad JSON, refused, hanging", async () => {
    const server = await fake();
    expect(await discover(server.url, "m")).toBeUndefined();
    server.route("/v1/models", { status: 200, body: { object: "list", data: [{ id: "a" }, { id: "b" }] } });
    expect(await discover(server.url, "m")).toBeUndefined();
    server.route("/v1/models", { status: 200, body: "{not json" });
    expect(await discover(server.url, "m")).toBeUndefined();
    await server.close();
    fakes.splice(fakes.indexOf(server), 1);
    expect(await discover(server.url, "m")).toBeUndefined();

    const sockets = new Set<net.Socket>();
    const hang = net.createServer((socket) => void sockets.add(socket));
    await new Promise<void>((resolve) => hang.listen(0, "127.0.0.1", resolve));
    try {
      const port = (hang.address() as net.AddressInfo).port;
      // The server never answers: only discovery's own 300 ms timeout ends the wait.
      expect(await within(discover(`http://127.0.0.1:${port}/v1`, "m", {}, 300), "discovery to give up"))
        .toBeUndefined();
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => hang.close(resolve));
    }
  });
});

describe("knownContextWindow", () => {
  it("knows OpenAI models by prefix, ignores a provider prefix, and not others", () => {
    expect(knownContextWindow("gpt-4o-mini")).toBe(128000);
    expect(knownContextWindow("gpt-4o-2024-08-06")).toBe(128000);
    expect(knownContextWindow("gpt-4.1-mini")).toBe(1047576);
    expect(knownContextWindow("openai/gpt-5-codex")).toBe(272000);
    expect(knownContextWindow("gpt-5.1")).toBe(272000);
    expect(knownContextWindow("o3-mini")).toBe(200000);
    expect(knownContextWindow("o1-mini")).toBe(128000);
    expect(knownContextWindow("gpt-4")).toBe(8192);
    expect(knownContextWindow("gpt-4-turbo")).toBe(128000);
    expect(knownContextWindow("gpt-oss:20b")).toBe(131072);
    expect(knownContextWindow("fake-model")).toBeUndefined();
    expect(knownContextWindow("gpt-40")).toBeUndefined();
    expect(knownContextWindow("llama3.1")).toBeUndefined();
  });

  it("knows Claude models (200k), and 1M where the long-context beta header enables it", () => {
    expect(knownContextWindow("claude-sonnet-4-5")).toBe(200000);
    expect(knownContextWindow("claude-3-5-haiku-20241022")).toBe(200000);
    expect(knownContextWindow("anthropic/claude-opus-4.1")).toBe(200000);
    const beta = { "Anthropic-Beta": "interleaved-thinking-2025-05-14, context-1m-2025-08-07" };
    expect(knownContextWindow("claude-sonnet-4-5-20250929", beta)).toBe(1000000);
    expect(knownContextWindow("claude-sonnet-4", beta)).toBe(1000000);
    expect(knownContextWindow("claude-opus-4-6", beta)).toBe(1000000);
    expect(knownContextWindow("claude-haiku-4-5", beta)).toBe(200000);
    expect(knownContextWindow("claude-sonnet-4-5", { "anthropic-beta": "interleaved-thinking-2025-05-14" })).toBe(
      200000,
    );
  });
});

describe("contextForWindow", () => {
  const context = {
    max_tokens: 128000,
    reserve_output_tokens: 8192,
    safety_margin_tokens: 2048,
    bytes_per_token: 3,
    summary_max_chars: 6000,
  };

  it("uses the window and keeps the reserves on a large one", () => {
    expect(contextForWindow(context, 200000)).toEqual({ ...context, max_tokens: 200000 });
  });

  it("shrinks the reserves on a small window so history still has room", () => {
    const small = contextForWindow(context, 4096);
    expect(small).toMatchObject({ max_tokens: 4096, reserve_output_tokens: 1024, safety_margin_tokens: 128 });
    expect(small.max_tokens - small.reserve_output_tokens - small.safety_margin_tokens).toBeGreaterThan(2048);
  });
});
