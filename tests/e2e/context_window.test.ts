// Issue 14 deliverables 2 and 3 through `scv server --stdio`: the context window the chat-wire server reports
// becomes the budget and is reported in session.started; the Responses wire never asks; OPENAI_BASE_URL.
import { describe, expect, it } from "vitest";
import { fakeProfileToml } from "../support/config_files.ts";
import { chatTextResponse, textResponse } from "../support/fake_provider.ts";
import { spawnServer } from "../support/server_client.ts";
import { terminal, useServerHarness } from "../support/server_harness.ts";
import { serveModelInfo } from "../provider/fixtures/model_servers.ts";

const harness = useServerHarness();

async function chatServer(model: string, extraToml = "", env: Record<string, string> = {}) {
  await harness.sandbox.writeUserConfig(
    fakeProfileToml({ name: "local", baseUrl: harness.provider.url, model, apiKey: "local" }) + 'wire_api = "chat"\n' +
      extraToml,
  );
  const client = spawnServer({ env: harness.sandbox.env(env) });
  const started = await client.start({ cwd: harness.sandbox.workspace, no_tools: true });
  return { client, started };
}

describe("context windows through the CLI", () => {
  it("Ollama at 4096: budget, session.started.context_window with the warning, and compaction at that size", async () => {
    const fake = await harness.startProvider([chatTextResponse(["first"]), chatTextResponse(["second"])]);
    serveModelInfo(fake, "ollama", { model: "qwen3:8b", window: 40960 });
    const { client, started } = await chatServer("qwen3:8b");
    expect(started.context_max_tokens).toBe(4096);
    expect(started.context_window).toMatchObject({ tokens: 4096, source: "ollama" });
    expect(started.context_window.warning).toContain("OLLAMA_CONTEXT_LENGTH");
    // One lookup at session start, none per turn.
    expect(fake.lookups.map((request) => request.path)).toEqual(["/v1/models", "/api/show"]);

    // ~2000 tokens at 3 bytes per token, then ~1000: together over a 4096 window's history budget.
    client.turn("a".repeat(6000));
    expect(await terminal(client)).toMatchObject({ type: "turn.completed" });
    client.turn("b".repeat(3000));
    expect(await client.next("context.compacted")).toMatchObject({ removed_messages: 2 });
    expect(await terminal(client)).toMatchObject({ type: "turn.completed" });
    expect(fake.requests[1]!.body.messages[1].content).toMatch(/^\[SCV compacted 2 earlier messages/);
    expect(fake.lookups).toHaveLength(2);
    await client.finish();
  });

  it("vLLM's max_model_len is the budget; a configured max_tokens wins and asks nothing", async () => {
    const fake = await harness.startProvider([chatTextResponse(["ok"])]);
    serveModelInfo(fake, "vllm", { model: "Qwen/Qwen3-8B", window: 32768 });
    const first = await chatServer("Qwen/Qwen3-8B");
    expect(first.started).toMatchObject({
      context_max_tokens: 32768,
      context_window: { tokens: 32768, source: "vllm" },
    });
    await first.client.finish();

    const lookups = fake.lookups.length;
    const second = await chatServer("Qwen/Qwen3-8B", "\n[context]\nmax_tokens = 20000\n");
    expect(second.started).toMatchObject({
      context_max_tokens: 20000,
      context_window: { tokens: 20000, source: "config" },
    });
    expect(fake.lookups).toHaveLength(lookups);
    await second.client.finish();
  });

  it("a server that cannot tell leaves the default, quietly", async () => {
    await harness.startProvider([]);
    const { client, started } = await chatServer("llama3.1");
    expect(started).toMatchObject({
      context_max_tokens: 128000,
      context_window: { tokens: 128000, source: "default" },
    });
    expect(started.context_window.warning).toBeUndefined();
    await client.finish();
  });

  it("the Responses wire never asks the server; OpenAI models get their known window", async () => {
    const fake = await harness.startProvider([textResponse(["ok"])]);
    serveModelInfo(fake, "vllm", { model: "gpt-4o", window: 999 });
    const client = spawnServer({ args: ["--stdio", "--model", "gpt-4o", "--base-url", fake.url], env: harness.env() });
    const started = await client.start({ cwd: harness.sandbox.workspace });
    expect(started).toMatchObject({
      context_max_tokens: 128000,
      context_window: { tokens: 128000, source: "known_model" },
    });
    client.turn("hi");
    expect(await terminal(client)).toMatchObject({ type: "turn.completed" });
    expect(fake.lookups).toEqual([]);
    await client.finish();
  });
});

describe("OPENAI_BASE_URL (deliverable 3)", () => {
  it("is the default base_url, below SCV_BASE_URL and the config file", async () => {
    const fake = await harness.startProvider([textResponse(["via env"]), textResponse(["via scv"])]);
    const viaOpenAi = spawnServer({
      args: ["--stdio", "--model", "fake-model"],
      env: harness.env({ OPENAI_BASE_URL: fake.url }),
    });
    await viaOpenAi.start({ cwd: harness.sandbox.workspace });
    viaOpenAi.turn("hi");
    expect(await terminal(viaOpenAi)).toMatchObject({ type: "turn.completed" });
    expect(fake.requests).toHaveLength(1);
    await viaOpenAi.finish();

    // SCV_BASE_URL wins over OPENAI_BASE_URL (which points nowhere here).
    const viaScv = spawnServer({
      args: ["--stdio", "--model", "fake-model"],
      env: harness.env({ OPENAI_BASE_URL: "http://127.0.0.1:9/v1", SCV_BASE_URL: fake.url }),
    });
    await viaScv.start({ cwd: harness.sandbox.workspace });
    viaScv.turn("hi");
    expect(await terminal(viaScv)).toMatchObject({ type: "turn.completed" });
    expect(fake.requests).toHaveLength(2);
    await viaScv.finish();

    // A config file's base_url wins too.
    await harness.sandbox.writeUserConfig(fakeProfileToml({ baseUrl: fake.url }));
    const viaFile = spawnServer({ args: ["--stdio"], env: harness.env({ OPENAI_BASE_URL: "http://127.0.0.1:9/v1" }) });
    await viaFile.start({ cwd: harness.sandbox.workspace });
    fake.push(textResponse(["via file"]));
    viaFile.turn("hi");
    expect(await terminal(viaFile)).toMatchObject({ type: "turn.completed" });
    expect(fake.requests).toHaveLength(3);
    await viaFile.finish();
  });
});
