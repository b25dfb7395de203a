// docs/local-models.md works when pasted: each server's TOML block, pointed at a fake server that speaks that
// server's real formats, starts a session that finds the right context window and runs a turn with tools; and
// the errors the page shows are exactly what scv prints for those servers' error bodies.
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { chatStream, chatText, errorBodies } from "../provider/fixtures/real_streams.ts";
import { serveModelInfo } from "../provider/fixtures/model_servers.ts";
import { spawnServer } from "../support/server_client.ts";
import { terminal, useServerHarness } from "../support/server_harness.ts";

const harness = useServerHarness();
const DOC = await readFile(new URL("../../docs/local-models.md", import.meta.url), "utf8");

/** The fenced blocks of `language` in the section whose heading starts with `heading`. */
function blocks(heading: string, language: string): string[] {
  const start = DOC.indexOf(`\n## ${heading}`);
  expect(start, `section ${heading}`).toBeGreaterThan(0);
  const end = DOC.indexOf("\n## ", start + 4);
  const section = DOC.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(new RegExp("```" + language + "\\n([\\s\\S]*?)```", "g"))].map((match) => match[1]!);
}

const flat = (text: string) => text.replace(/\s+/g, " ").trim();

const SERVERS = [
  {
    heading: "Ollama",
    kind: "ollama",
    model: "qwen3:8b",
    window: 40960,
    expected: { tokens: 4096, source: "ollama" },
    error: [400, errorBodies.ollamaNoTools],
  },
  {
    heading: "llama.cpp",
    kind: "llama.cpp",
    model: "qwen3-8b-q4_k_m.gguf",
    window: 40960,
    running: 32768,
    expected: { tokens: 32768, source: "llama.cpp" },
    error: [500, errorBodies.llamaJinja],
  },
  {
    heading: "vLLM",
    kind: "vllm",
    model: "Qwen/Qwen3-8B",
    window: 32768,
    expected: { tokens: 32768, source: "vllm" },
    error: [400, errorBodies.vllmAutoToolChoice],
  },
] as const;

describe("docs/local-models.md", () => {
  for (const server of SERVERS) {
    it(`${server.heading}: the pasted config runs a tool turn, finds the window and shows the documented error`, async () => {
      const [toml] = blocks(server.heading, "toml");
      expect(toml).toContain('wire_api = "chat"');
      const fake = await harness.startProvider([
        { events: chatStream(server.kind, chatText("hello from the local model", 3)) },
        { status: server.error[0], body: server.error[1] },
      ]);
      serveModelInfo(fake, server.kind, {
        model: server.model,
        window: server.window,
        ...("running" in server ? { running: server.running } : {}),
      });
      // Only the address changes: the fake server listens on a free port.
      const pasted = toml!.replace(/http:\/\/127\.0\.0\.1:\d+\/v1/, fake.url);
      expect(pasted).not.toBe(toml);
      await harness.sandbox.writeUserConfig(pasted);
      const client = spawnServer({ env: harness.sandbox.env() });
      const started = await client.start({ cwd: harness.sandbox.workspace });
      expect(started.context_window).toMatchObject(server.expected);
      client.turn("hi");
      expect(await terminal(client)).toMatchObject({ type: "turn.completed" });
      expect(fake.requests[0]!.body.tools.length).toBeGreaterThan(0);
      expect(fake.requests[0]!.path).toBe("/v1/chat/completions");
      expect(fake.requests[0]!.headers.authorization).toBe("Bearer local");

      client.turn("again", "turn-2");
      const failed = await terminal(client);
      expect(failed).toMatchObject({ type: "turn.failed", code: "provider_error" });
      const documented = blocks(server.heading, "text").map(flat);
      expect(documented).toContain(flat(failed.message));
      await client.finish();
    });
  }

  it("the Ollama warning shown in the docs is the one scv gives", async () => {
    const fake = await harness.startProvider([]);
    serveModelInfo(fake, "ollama", { model: "qwen3:8b", window: 40960 });
    await harness.sandbox.writeUserConfig(
      blocks("Ollama", "toml")[0]!.replace(/http:\/\/127\.0\.0\.1:\d+\/v1/, fake.url),
    );
    const client = spawnServer({ env: harness.sandbox.env() });
    const started = await client.start({ cwd: harness.sandbox.workspace });
    const shown = blocks("Ollama", "text").map(flat);
    expect(shown).toContain(flat(`warning: ${started.context_window.warning}`));
    await client.finish();
  });

  it("the large-output limits block is a valid configuration", async () => {
    const [toml] = blocks("Large outputs", "toml");
    const fake = await harness.startProvider([]);
    await harness.sandbox.writeUserConfig(toml!);
    const client = spawnServer({
      args: ["--stdio", "--model", "fake-model", "--base-url", fake.url],
      env: harness.env(),
    });
    const started = await client.start({ cwd: harness.sandbox.workspace });
    expect(started).toMatchObject({ type: "session.started", max_server_frame_bytes: 16777216 });
    await client.finish();
  });
});
