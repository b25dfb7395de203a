// Claude through `scv exec --json` (issue 32): a profile with `kind = "anthropic"` against a 127.0.0.1 server that
// speaks recorded Anthropic Messages streams byte for byte (tests/provider/fixtures/anthropic_captures.ts): text,
// a tool loop with input JSON split at awkward places, thinking with its signature sent back unchanged, redacted
// thinking, an overloaded_error mid-stream retried, a 429 with retry-after, max_tokens, usage with cache counts.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliHarness } from "../support/cli_harness.ts";
import { encodeSse, messages, type SseResponse } from "../support/fake_provider.ts";
import {
  captureBytes,
  ERROR_BODIES,
  OVERLOADED_EVENT,
  piecesOf,
  recordedThinking,
  REDACTED_DATA,
  replay,
  replayInPieces,
  thinkingThenToolUse,
} from "../provider/fixtures/anthropic_captures.ts";
import type { ServerEvent } from "../support/server_client.ts";

const harness = useCliHarness();
const KEY = "sk-ant-api03-test-only";

async function claude(toml = "") {
  await harness.sandbox.writeUserConfig(`[provider]\nkind = "anthropic"\n${toml}`);
}

/** `scv exec --json <prompt>` on the Anthropic profile: exit code and events. */
async function exec(prompt = "go", env: Record<string, string> = {}) {
  const result = await harness.start(["exec", "--json", prompt], {
    env: { ANTHROPIC_API_KEY: KEY, OPENAI_API_KEY: undefined, SCV_MODEL: "claude-sonnet-4-5", ...env },
  }).done;
  const events: ServerEvent[] = result.stdout.trim().split("\n").filter(Boolean).map((line) => JSON.parse(line));
  return { code: result.code, stderr: result.stderr, events };
}

const ofType = (events: ServerEvent[], type: string) => events.filter((event) => event.type === type);
const text = (events: ServerEvent[], type: string) => ofType(events, type).map((event) => event.content).join("");

/** The capture's bytes before the first event whose text matches `stop`. */
function bytesBefore(name: Parameters<typeof captureBytes>[0], stop: RegExp): string {
  const events = captureBytes(name).toString("utf8").split(/(?<=\n\n)/);
  return events.slice(0, events.findIndex((event) => stop.test(event))).join("");
}

describe("scv exec on the Messages wire", () => {
  it("a recorded text stream: the answer, usage, and a request Anthropic accepts", async () => {
    await claude();
    harness.provider.push(replay("basicText"));
    const { code, events } = await exec("hello");
    expect(code).toBe(0);
    expect(text(events, "assistant.delta")).toBe("Hello there!");
    expect(events.at(-1)).toMatchObject({
      type: "turn.completed",
      steps: 1,
      usage: { input_tokens: 11, output_tokens: 6 },
      context_tokens: 17,
    });
    const [request] = harness.provider.requests;
    expect(request!.path).toBe("/v1/messages");
    expect(request!.headers["x-api-key"]).toBe(KEY);
    expect(request!.headers["anthropic-version"]).toBe("2023-06-01");
    expect(request!.headers.authorization).toBeUndefined();
    const body = request!.body;
    expect(body).toMatchObject({ model: "claude-sonnet-4-5", max_tokens: 32000, stream: true });
    expect(body.system[0].text).toContain("You are SCV");
    const tools = body.tools.map((tool: { name: string }) => tool.name);
    expect(tools).toContain("edit");
    expect(tools).not.toContain("apply_patch");
    expect(body.tools.at(-1).cache_control).toEqual({ type: "ephemeral" });
  });

  it("usage with the cache counts: turn.completed carries them, input_tokens is the whole input", async () => {
    await claude();
    harness.provider.push(replay("promptCache"));
    const { code, events } = await exec();
    expect(code).toBe(0);
    expect(events.at(-1)).toMatchObject({
      type: "turn.completed",
      usage: {
        input_tokens: 9632,
        output_tokens: 198,
        cached_input_tokens: 6289,
        cache_creation_input_tokens: 3337,
        reasoning_output_tokens: 0,
      },
      context_tokens: 9830,
    });
  });

  it("a tool loop: input JSON cut every 3 bytes, the unknown tool's error sent back with is_error", async () => {
    await claude();
    harness.provider.push(replayInPieces("toolUse", 3), replay("basicText"));
    const { code, events } = await exec("weather in Paris?");
    expect(code).toBe(0);
    expect(ofType(events, "tool.proposed")[0]).toMatchObject({
      call_id: "toolu_01NRLabsLyVHZPKxbKvkfSMn",
      name: "get_weather",
      arguments: { location: "Paris" },
    });
    const second = harness.provider.requests[1]!.body;
    expect(second.messages.slice(1)).toEqual([
      {
        role: "assistant",
        content: [
          { type: "text", text: "I'll check the current weather in Paris for you." },
          { type: "tool_use", id: "toolu_01NRLabsLyVHZPKxbKvkfSMn", name: "get_weather", input: { location: "Paris" } },
        ],
      },
      {
        role: "user",
        content: [{
          type: "tool_result",
          tool_use_id: "toolu_01NRLabsLyVHZPKxbKvkfSMn",
          content: "unknown tool: get_weather",
          is_error: true,
          cache_control: { type: "ephemeral" },
        }],
      },
    ]);
    expect(events.at(-1)).toMatchObject({ type: "turn.completed", steps: 2 });
  });

  it("two tool uses in one message run in order; their results go back in one user message", async () => {
    await claude();
    await writeFile(join(harness.sandbox.workspace, "café.txt"), "crème\n");
    await writeFile(join(harness.sandbox.workspace, "b.txt"), "bee\n");
    const calls = [
      messages.start(),
      messages.toolStart(0, "toolu_01A", "read"),
      messages.inputJson(0, '{"path": "caf'),
      messages.inputJson(0, 'é.txt"}'),
      messages.blockStop(0),
      messages.toolStart(1, "toolu_01B", "read"),
      messages.inputJson(1, '{"pa'),
      messages.inputJson(1, 'th": "b.txt"}'),
      messages.blockStop(1),
      messages.delta("tool_use"),
      messages.stop(),
    ];
    // Cut every 2 bytes: inside `é`, inside `event:` and `data:` lines and between the two newlines of an event.
    const bytes = Buffer.concat(calls.map((event) => encodeSse(event)));
    const cut: SseResponse = { events: piecesOf(bytes, 2), mode: "chunked" };
    harness.provider.push(cut, replay("basicText"));
    const { code, events } = await exec("read both");
    expect(code).toBe(0);
    const completed = ofType(events, "tool.completed");
    expect(completed.map((event) => [event.call_id, event.success])).toEqual([["toolu_01A", true], [
      "toolu_01B",
      true,
    ]]);
    const results = harness.provider.requests[1]!.body.messages[2].content;
    expect(results.map((block: { tool_use_id: string }) => block.tool_use_id)).toEqual(["toolu_01A", "toolu_01B"]);
    expect(results[0].content).toContain("crème");
    expect(results[0].is_error).toBeUndefined();
  });

  it("thinking: shown as reasoning.delta, then sent back unchanged and first in the next request of the turn", async () => {
    await claude("thinking_budget_tokens = 2048\n");
    harness.provider.push(
      { events: piecesOf(Buffer.from(thinkingThenToolUse()), 5), mode: "chunked" },
      replay("thinking"),
    );
    const { code, events } = await exec("what is 925 / 5, and the weather?");
    expect(code).toBe(0);
    const recorded = recordedThinking();
    expect(text(events, "reasoning.delta")).toBe(recorded.thinking + recorded.thinking);
    expect(text(events, "assistant.delta")).toBe("925 ÷ 5 = 185");
    const [first, second] = harness.provider.requests.map((request) => request.body);
    expect(first.thinking).toEqual({ type: "enabled", budget_tokens: 2048 });
    expect(second.messages[1]).toEqual({
      role: "assistant",
      content: [
        { type: "thinking", thinking: recorded.thinking, signature: recorded.signature },
        { type: "tool_use", id: "toolu_01NRLabsLyVHZPKxbKvkfSMn", name: "get_weather", input: { location: "Paris" } },
      ],
    });
    // Byte for byte: the signature and the thinking text (with its `÷`) are the recorded ones.
    expect(harness.provider.requests[1]!.rawBody).toContain(JSON.stringify(recorded.signature));
  });

  it("redacted thinking goes back as it came, before the tool use", async () => {
    await claude("thinking_budget_tokens = 2048\n");
    harness.provider.push({ events: [{ raw: thinkingThenToolUse("redacted") }] }, replay("basicText"));
    const { code, events } = await exec();
    expect(code).toBe(0);
    expect(ofType(events, "reasoning.delta")).toEqual([]);
    expect(harness.provider.requests[1]!.body.messages[1].content[0]).toEqual({
      type: "redacted_thinking",
      data: REDACTED_DATA,
    });
  });

  it("an overloaded_error event mid-stream is retried: turn.retrying, then the answer", async () => {
    await claude();
    const overloaded = bytesBefore("basicText", /content_block_start/) + OVERLOADED_EVENT.bytes;
    harness.provider.push({ events: [{ raw: overloaded }] }, replay("basicText"));
    const { code, events } = await exec();
    expect(code).toBe(0);
    expect(ofType(events, "turn.retrying")).toMatchObject([
      { attempt: 1, max_attempts: 3, reason: "Overloaded (overloaded_error)" },
    ]);
    expect(text(events, "assistant.delta")).toBe("Hello there!");
    expect(harness.provider.requests).toHaveLength(2);
  });

  it("HTTP 429 waits what retry-after says, and a 529 is retried", async () => {
    await claude();
    harness.provider.push(
      { status: 429, body: ERROR_BODIES.rateLimit, headers: { "retry-after": "0" } },
      { status: 529, body: ERROR_BODIES.overloaded, headers: { "retry-after": "0" } },
      replay("basicText"),
    );
    const { code, events } = await exec();
    expect(code).toBe(0);
    expect(ofType(events, "turn.retrying").map((event) => [event.reason, event.delay_ms])).toEqual([
      ["HTTP 429", 0],
      ["HTTP 529", 0],
    ]);
    expect(harness.provider.requests).toHaveLength(3);
  });

  it("stop_reason max_tokens fails the turn as the OpenAI wires' token limit does", async () => {
    await claude();
    harness.provider.push(replay("maxTokens"));
    const { code, events } = await exec();
    expect(code).toBe(1);
    expect(events.at(-1)).toMatchObject({
      type: "turn.failed",
      code: "provider_error",
      message: "provider response incomplete: max_tokens",
    });
    expect(ofType(events, "tool.proposed")).toEqual([]);
    expect(harness.provider.requests).toHaveLength(1);
  });

  it("a missing ANTHROPIC_API_KEY names that variable", async () => {
    await claude();
    const result = await harness.start(["exec", "go"], { env: { OPENAI_API_KEY: "unused" } }).done;
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("set ANTHROPIC_API_KEY");
    expect(harness.provider.requests).toHaveLength(0);
  });
});
