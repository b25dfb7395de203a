// docs/claude.md works when pasted: each TOML block, with only ANTHROPIC_API_KEY set and ANTHROPIC_BASE_URL pointing
// at a 127.0.0.1 server replaying a recorded Anthropic stream, starts a session with the context window the page
// gives and sends the request the page describes.
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { replay } from "../provider/fixtures/anthropic_captures.ts";
import { spawnServer } from "../support/server_client.ts";
import { terminal, useServerHarness } from "../support/server_harness.ts";

const harness = useServerHarness();
const DOC = await readFile(new URL("../../docs/claude.md", import.meta.url), "utf8");
const TOML = [...DOC.matchAll(/```toml\n([\s\S]*?)```/g)].map((match) => match[1]!);
const KEY = "sk-ant-api03-docs-test";

/** A server on the pasted file, the key and ANTHROPIC_BASE_URL only; its session.started and first request. */
async function paste(toml: string, env: Record<string, string> = {}) {
  const fake = await harness.startProvider([replay("basicText")]);
  await harness.sandbox.writeUserConfig(toml);
  // ANTHROPIC_BASE_URL names the host, as for Anthropic's SDKs: scv appends /v1.
  const host = fake.url.replace(/\/v1$/, "");
  const client = spawnServer({
    env: harness.sandbox.env({ ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: host, ...env }),
  });
  const started = await client.start({ cwd: harness.sandbox.workspace });
  client.turn("hi");
  const end = await terminal(client);
  await client.finish();
  return { started, end, request: fake.requests[0]! };
}

describe("docs/claude.md", () => {
  it("has the three profiles the tests paste", () => {
    expect(TOML).toHaveLength(3);
  });

  it("the working profile: Claude Sonnet 4.5 on the Messages wire, 200k known, 32000 output tokens", async () => {
    const { started, end, request } = await paste(TOML[0]!);
    expect(started).toMatchObject({
      model: "claude-sonnet-4-5",
      context_window: { tokens: 200000, source: "known_model" },
    });
    expect(end).toMatchObject({ type: "turn.completed", usage: { input_tokens: 11, output_tokens: 6 } });
    expect(request.path).toBe("/v1/messages");
    expect(request.headers["x-api-key"]).toBe(KEY);
    expect(request.body).toMatchObject({ model: "claude-sonnet-4-5", max_tokens: 32000 });
    expect(request.body.thinking).toBeUndefined();
  });

  it("the named profile: thinking with its budget, and the max_output_tokens it sets", async () => {
    const { started, request } = await paste(TOML[1]!);
    expect(started.model).toBe("claude-opus-4-1");
    expect(request.body).toMatchObject({ max_tokens: 32000, thinking: { type: "enabled", budget_tokens: 8192 } });
  });

  it("the long-context profile: the beta header is sent and the window is 1M", async () => {
    const { started, request } = await paste(TOML[2]!, { SCV_PROVIDER: "claude-1m" });
    expect(started.context_window).toEqual({ tokens: 1000000, source: "known_model" });
    expect(request.headers["anthropic-beta"]).toBe("context-1m-2025-08-07");
  });
});
