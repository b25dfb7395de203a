// The Messages wire's stream reader on recorded Anthropic streams (tests/provider/fixtures/anthropic_captures.ts),
// served byte for byte by the fake provider: text, tool input JSON split wherever the network splits it, thinking
// with its signature, redacted thinking, usage with the cache counts, stop reasons and errors, retries.
import { describe, expect, it } from "vitest";
import {
  captureBytes,
  type CaptureName,
  frame,
  OVERLOADED_EVENT,
  piecesOf,
  recordedThinking,
  REDACTED_DATA,
  redactedThenText,
  replay,
  replayInPieces,
  thinkingThenToolUse,
} from "./fixtures/anthropic_captures.ts";
import { messages } from "../support/fake_provider.ts";
import { CREDENTIAL, run, runFailing, useProviderClients } from "./helpers.ts";

const { setup } = useProviderClients({
  profile: { kind: "anthropic", wire_api: "messages", api_key_env: "ANTHROPIC_API_KEY" },
});

/** The capture's events up to (not including) the first whose JSON matches `stop`. */
function bytesBefore(name: CaptureName, stop: RegExp): string {
  const text = captureBytes(name).toString("utf8");
  const events = text.split(/(?<=\n\n)/);
  return events.slice(0, events.findIndex((event) => stop.test(event))).join("");
}

describe("recorded streams", () => {
  it("the Python SDK's text stream: the answer, usage without cache counts, Anthropic's headers", async () => {
    const { fake, client } = await setup([replay("basicText")]);
    const { response, deltas } = await run(client);
    expect(deltas).toEqual(["Hello", " there", "!"]);
    expect(response).toEqual({ text: "Hello there!", calls: [], usage: { input_tokens: 11, output_tokens: 6 } });
    const [request] = fake.requests;
    expect(request!.requestLine).toBe("POST /v1/messages HTTP/1.1");
    expect(request!.headers["x-api-key"]).toBe(CREDENTIAL);
    expect(request!.headers["anthropic-version"]).toBe("2023-06-01");
    expect(request!.headers.authorization).toBeUndefined();
  });

  it("the same bytes cut every 1, 2, 3, 5, 7 and 64 bytes give the same response", async () => {
    for (const size of [1, 2, 3, 5, 7, 64]) {
      const { client } = await setup([replayInPieces("text", size)]);
      const { response } = await run(client);
      expect(response.text, `pieces of ${size}`).toBe(
        "Hello! I'm doing well, thank you for asking. How are you doing today? Is there anything I can help you with?",
      );
      expect(response.usage).toEqual({
        input_tokens: 12,
        output_tokens: 30,
        cached_input_tokens: 0,
        cache_creation_input_tokens: 0,
      });
    }
  });

  it("usage: cache reads and writes are part of input_tokens and reported beside it; later counts win", async () => {
    const { client } = await setup([replay("promptCache")]);
    const { response } = await run(client);
    // message_start said 2 + 3068 written; the final message_delta says 6 + 3337 written + 6289 read.
    expect(response.usage).toEqual({
      input_tokens: 6 + 3337 + 6289,
      output_tokens: 198,
      cached_input_tokens: 6289,
      cache_creation_input_tokens: 3337,
      reasoning_output_tokens: 0,
    });
    // The server tool's blocks (never requested by scv) are skipped; the answer's text is kept.
    expect(response.calls).toEqual([]);
    expect(response.text).toContain("sum of the squares of the numbers 1 through 12 is **650**.");
  });

  it("a tool use: its input assembled from fragments split inside keys and values, whatever the byte cuts", async () => {
    for (const size of [1, 4, 9, 4096]) {
      const { client } = await setup([replayInPieces("toolUse", size)]);
      const { response } = await run(client);
      expect(response.text).toBe("I'll check the current weather in Paris for you.");
      expect(response.calls).toEqual([
        { call_id: "toolu_01NRLabsLyVHZPKxbKvkfSMn", name: "get_weather", arguments: { location: "Paris" } },
      ]);
      expect(response.usage).toEqual({
        input_tokens: 377,
        output_tokens: 65,
        cached_input_tokens: 0,
        cache_creation_input_tokens: 0,
      });
    }
  });

  it("a tool use without parameters (one empty input delta) has {} as arguments", async () => {
    const { client } = await setup([replay("toolNoArgs")]);
    const { response } = await run(client);
    expect(response.calls).toEqual([{
      call_id: "toolu_01QE1WLsSVp5hy5Q3GmGTmjP",
      name: "updateIssueList",
      arguments: {},
    }]);
  });

  it("thinking streams as reasoning, never as text, and is kept whole with its signature for the round trip", async () => {
    const { client } = await setup([replay("thinking")]);
    const reasoning: string[] = [];
    const deltas: string[] = [];
    const response = await client.stream(
      { model: "claude-sonnet-4-5", instructions: "x", history: [{ kind: "user", content: "925 / 5" }], tools: [] },
      {
        signal: new AbortController().signal,
        onTextDelta: (text) => void deltas.push(text),
        onReasoningDelta: (text) => void reasoning.push(text),
      },
    );
    const recorded = recordedThinking();
    expect(reasoning.join("")).toBe(recorded.thinking);
    expect(deltas.join("")).toBe("925 ÷ 5 = 185");
    expect(response.replay).toEqual({
      blocks: [
        { type: "thinking", thinking: recorded.thinking, signature: recorded.signature },
        { type: "text", length: "925 ÷ 5 = 185".length },
      ],
    });
  });

  it("thinking, then a tool use: blocks kept in order, the call by its id", async () => {
    const { client } = await setup([{ events: piecesOf(Buffer.from(thinkingThenToolUse()), 11), mode: "chunked" }]);
    const { response } = await run(client);
    expect(response.calls.map((call) => call.call_id)).toEqual(["toolu_01NRLabsLyVHZPKxbKvkfSMn"]);
    expect(response.replay?.blocks?.map((block) => block.type)).toEqual(["thinking", "tool_use"]);
    expect(response.replay?.blocks?.[0]).toMatchObject({ signature: recordedThinking().signature });
  });

  it("redacted thinking is kept as it came and shows nothing", async () => {
    const { client } = await setup([{ events: [{ raw: redactedThenText() }] }]);
    const { response, deltas } = await run(client);
    expect(deltas.join("")).toBe("Hello there!");
    expect(response.replay).toEqual({
      blocks: [{ type: "redacted_thinking", data: REDACTED_DATA }, { type: "text", length: 12 }],
    });
  });

  it("stop_reason max_tokens fails like the OpenAI wires' token limit, and is not retried", async () => {
    const { fake, client } = await setup([replay("maxTokens"), replay("basicText")]);
    const error = await runFailing(client);
    expect(error.message).toBe("provider response incomplete: max_tokens");
    expect(fake.requests).toHaveLength(1);
  });

  it("stop_reason refusal fails with the provider's explanation", async () => {
    const { client } = await setup([replay("refusal")]);
    const error = await runFailing(client);
    expect(error.message).toBe("provider response incomplete: refusal (This request was refused due to policy.)");
  });
});

describe("errors and retries", () => {
  it("an overloaded_error event before any output is retried like a 529", async () => {
    const overloaded = bytesBefore("basicText", /content_block_start/) + OVERLOADED_EVENT.bytes;
    const { fake, client, delays } = await setup([{ events: [{ raw: overloaded }] }, replay("basicText")]);
    const { response } = await run(client);
    expect(response.text).toBe("Hello there!");
    expect(fake.requests).toHaveLength(2);
    expect(delays).toHaveLength(1);
  });

  it("an overloaded_error event after text reached the caller fails the request instead of repeating it", async () => {
    const partial = bytesBefore("basicText", /content_block_stop/) + OVERLOADED_EVENT.bytes;
    const { fake, client } = await setup([{ events: [{ raw: partial }] }, replay("basicText")]);
    const error = await runFailing(client);
    expect(error.message).toBe("provider stream error: Overloaded (overloaded_error)");
    expect(fake.requests).toHaveLength(1);
  });

  it("HTTP 529 overloaded_error is retried; 429 waits what retry-after says", async () => {
    const overloaded = {
      type: "error",
      error: { type: "overloaded_error", message: "Overloaded" },
      request_id: "req_1",
    };
    const limited = {
      type: "error",
      error: { type: "rate_limit_error", message: "Rate limited" },
      request_id: "req_2",
    };
    const { fake, client, delays } = await setup([
      { status: 529, body: overloaded },
      { status: 429, body: limited, headers: { "retry-after": "7" } },
      replay("basicText"),
    ]);
    const { response } = await run(client);
    expect(response.text).toBe("Hello there!");
    expect(fake.requests).toHaveLength(3);
    expect(delays[1]).toBe(7000);
  });

  it("a stream cut before any output is retried; one cut after text fails; one cut after the stop reason is whole", async () => {
    const early = bytesBefore("basicText", /content_block_delta/);
    const first = await setup([{ events: [{ raw: early }] }, replay("basicText")]);
    expect((await run(first.client)).response.text).toBe("Hello there!");
    expect(first.fake.requests).toHaveLength(2);

    const late = bytesBefore("basicText", /message_delta/);
    const second = await setup([{ events: [{ raw: late }] }, replay("basicText")]);
    expect((await runFailing(second.client)).message).toBe("provider stream ended before the response completed");
    expect(second.fake.requests).toHaveLength(1);

    const noStop = bytesBefore("basicText", /message_stop/);
    const third = await setup([{ events: [{ raw: noStop }] }]);
    expect((await run(third.client)).response.text).toBe("Hello there!");
  });

  it("an invalid_request_error event is not retried", async () => {
    const events = [messages.start(), messages.error("invalid_request_error", "messages: at least one message")];
    const { fake, client } = await setup([{ events }, replay("basicText")]);
    const error = await runFailing(client);
    expect(error.message).toBe("provider stream error: messages: at least one message (invalid_request_error)");
    expect(fake.requests).toHaveLength(1);
  });
});

describe("several tool uses and limits", () => {
  const twoCalls = [
    messages.start(),
    messages.textStart(0),
    messages.text(0, "Reading both."),
    messages.blockStop(0),
    messages.toolStart(1, "toolu_a", "read"),
    messages.inputJson(1, '{"pa'),
    messages.inputJson(1, 'th":"a.t'),
    messages.inputJson(1, 'xt"}'),
    messages.blockStop(1),
    messages.toolStart(2, "toolu_b", "read"),
    messages.inputJson(2, '{"path":"b\\u00e9.txt"}'),
    messages.blockStop(2),
    messages.delta("tool_use"),
    messages.stop(),
  ];

  it("several tool uses in one message come back in order", async () => {
    const { client } = await setup([{ events: twoCalls }]);
    const { response } = await run(client);
    expect(response.calls).toEqual([
      { call_id: "toolu_a", name: "read", arguments: { path: "a.txt" } },
      { call_id: "toolu_b", name: "read", arguments: { path: "bé.txt" } },
    ]);
  });

  it("more tool uses than max_tool_calls fail with tool_limit", async () => {
    const { client } = await setup([{ events: twoCalls }], { limits: { max_tool_calls: 1 } });
    const error = await runFailing(client);
    expect(error).toMatchObject({ code: "tool_limit", message: "provider returned too many tool calls" });
  });

  it("tool input that is not JSON fails without echoing the key", async () => {
    const events = [
      messages.start(),
      messages.toolStart(0, "toolu_x", "read"),
      messages.inputJson(0, `{"path": ${CREDENTIAL}`),
      messages.blockStop(0),
      messages.delta("tool_use"),
      messages.stop(),
    ];
    const { client } = await setup([{ events }]);
    const error = await runFailing(client);
    expect(error.message).toMatch(/^provider returned invalid tool arguments: /);
    expect(error.message).not.toContain(CREDENTIAL);
  });

  it("a second message started inside one stream (a spliced stream) is refused", async () => {
    const events = [
      messages.start(undefined, "msg_first"),
      messages.textStart(0),
      messages.text(0, "one"),
      frame(JSON.stringify(messages.start(undefined, "msg_second"))),
    ].map((event) => (typeof event === "string" ? { raw: event } : event));
    const { client } = await setup([{ events }], { limits: { max_retries: 0 } });
    const error = await runFailing(client);
    expect(error.message).toBe("provider stream error: a second message started inside the stream");
  });
});
