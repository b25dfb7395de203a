// `scv chat` shows the context window it found (issue 14): `/usage` names the window and its source, and an
// Ollama running the model short of its window is warned about at session start.
import { describe, expect, it } from "vitest";
import { useCliHarness } from "../support/cli_harness.ts";
import { serveModelInfo } from "../provider/fixtures/model_servers.ts";

const harness = useCliHarness();

describe("scv chat and the context window", () => {
  it("/usage shows the window the server reported, and the Ollama warning at start and in /usage", async () => {
    serveModelInfo(harness.provider, "ollama", { model: "qwen3:8b", window: 40960 });
    await harness.sandbox.writeUserConfig('[provider]\nwire_api = "chat"\napi_key = "local"\n');
    const result = await harness.start(["chat"], { stdin: "/usage\n/usage\n", env: { SCV_MODEL: "qwen3:8b" } }).done;
    expect(result.code).toBe(0);
    const lines = result.stdout.split("\n");
    expect(lines.filter((line) => line === "context window: 4096 tokens (reported by ollama)")).toHaveLength(2);
    const warning = result.stdout.indexOf("warning: Ollama runs qwen3:8b with a 4096-token context");
    expect(warning).toBeGreaterThan(result.stdout.indexOf("session started"));
    expect(result.stdout).toContain("OLLAMA_CONTEXT_LENGTH=32768");
    // Once after "session started", then with each /usage.
    expect(result.stdout.split("warning: Ollama runs qwen3:8b").length - 1).toBe(3);
  });

  it("/usage says when the window is the configured or known one", async () => {
    await harness.sandbox.writeUserConfig("[context]\nmax_tokens = 50000\n");
    const configured = await harness.start(["chat"], { stdin: "/usage\n" }).done;
    expect(configured.stdout).toContain("context window: 50000 tokens ([context] max_tokens)");
    await harness.sandbox.writeUserConfig("");
    const known = await harness.start(["chat"], { stdin: "/usage\n", env: { SCV_MODEL: "gpt-4o" } }).done;
    expect(known.stdout).toContain("context window: 128000 tokens (known for this model)");
    expect(known.stdout).not.toContain("warning:");
  });
});
