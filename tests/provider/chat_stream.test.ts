// The Chat Completions stream (spec §8.3): text, tool calls accumulated from fragments, end rules, usage, errors.
import { describe, expect, it } from "vitest";
import { chat, chatTextResponse, chatToolCallResponse } from "../support/fake_provider.ts";
import { CREDENTIAL, NO_RETRY, run, runFailing, useProviderClients } from "./helpers.ts";

const { setup } = useProviderClients({ profile: { wire_api: "chat" } });
const noRetry = NO_RETRY;

describe("Chat Completions stream: text and usage", () => {
  it("streams delta.content, keeps reasoning out of the text, takes usage from the final choices:[] chunk", async () => {
    const { client } = await setup([
      {
        events: [
          chat.delta({ role: "assistant", content: "" }),
          chat.delta({ reasoning_content: "thinking hard" }),
          chat.delta({ reasoning: "more thoughts" }),
          chat.text("hello "),
          chat.text("from local"),
          chat.finish("stop"),
          chat.usage(11, 4),
          chat.done(),
        ],
      },
    ]);
    const { response, deltas } = await run(client);
    expect(deltas).toEqual(["hello ", "from local"]);
    expect(response).toEqual({
      text: "hello from local",
      calls: [],
      usage: { input_tokens: 11, output_tokens: 4 },
      // The first reasoning field the server used names the field it goes back in.
      replay: { reasoning_text: { field: "reasoning_content", text: "thinking hardmore thoughts" } },
    });
  });

  it("streams chunked replies chunk by chunk and reports no usage when none was sent", async () => {
    const { client } = await setup([{ ...chatTextResponse(["a", "b", "c"]), mode: "chunked", delayMs: 3 }]);
    const { response, deltas } = await run(client);
    expect(deltas).toEqual(["a", "b", "c"]);
    expect(response.usage).toEqual({});
  });

  it("takes usage from any chunk, only the counts present", async () => {
    const { client } = await setup([
      {
        events: [{ ...chat.text("x"), usage: { prompt_tokens: 9 } }, chat.finish(), {
          ...chat.finish(),
          choices: [],
          usage: null,
        }, chat.done()],
      },
    ]);
    const { response } = await run(client);
    expect(response.usage).toEqual({ input_tokens: 9 });
  });

  it("reads choice index 0, else the first choice", async () => {
    const { client } = await setup([
      {
        events: [
          { choices: [{ index: 1, delta: { content: "wrong" } }, { index: 0, delta: { content: "right" } }] },
          {
            choices: [{ index: 3, delta: { content: "+first" }, finish_reason: "stop" }, {
              index: 4,
              delta: { content: "no" },
            }],
          },
          chat.done(),
        ],
      },
    ]);
    const { response } = await run(client);
    expect(response.text).toBe("right+first");
  });
});

describe("Chat Completions stream: tool calls", () => {
  it("assembles one call from fragmented id, name and argument deltas", async () => {
    const { client } = await setup([
      {
        events: [
          chat.toolCalls({ index: 0, id: "call_abc", type: "function" }),
          chat.toolCalls({ index: 0, name: "read" }),
          chat.toolCalls({ index: 0, id: "", name: "", arguments: '{"pa' }),
          chat.toolCalls({ index: 0, arguments: 'th":"READ' }),
          chat.toolCalls({ index: 0, id: "call_later", name: "bash", arguments: 'ME.md"}' }),
          chat.finish("tool_calls"),
          chat.done(),
        ],
      },
    ]);
    const { response, deltas } = await run(client);
    expect(deltas).toEqual([]);
    expect(response.calls).toEqual([{ call_id: "call_abc", name: "read", arguments: { path: "README.md" } }]);
  });

  it("accumulates several calls interleaved by index, in index order", async () => {
    const { client } = await setup([
      {
        events: [
          chat.text("Checking both."),
          chat.toolCalls({ index: 1, id: "c1", name: "bash", arguments: '{"comm' }),
          chat.toolCalls({ index: 0, id: "c0", name: "read", arguments: "" }),
          chat.toolCalls({ index: 0, arguments: '{"path":' }),
          chat.toolCalls({ index: 1, arguments: 'and":"ls -la"' }, { index: 0, arguments: '"a.txt"}' }),
          chat.toolCalls({ index: 1, arguments: "}" }),
          chat.toolCalls({ index: 2, id: "c2", name: "write" }),
          chat.finish("tool_calls"),
          chat.usage(100, 20),
          chat.done(),
        ],
      },
    ]);
    const { response } = await run(client);
    expect(response).toEqual({
      text: "Checking both.",
      calls: [
        { call_id: "c0", name: "read", arguments: { path: "a.txt" } },
        { call_id: "c1", name: "bash", arguments: { command: "ls -la" } },
        { call_id: "c2", name: "write", arguments: {} },
      ],
      usage: { input_tokens: 100, output_tokens: 20 },
    });
  });

  it("serialises object argument fragments compactly (Ollama style)", async () => {
    const { client } = await setup([
      {
        events: [
          chat.toolCalls({ id: "o1", name: "read", arguments: { path: "x.md", limit: 2 } }),
          chat.finish("stop"),
          chat.done(),
        ],
      },
    ]);
    const { response } = await run(client);
    expect(response.calls).toEqual([{ call_id: "o1", name: "read", arguments: { path: "x.md", limit: 2 } }]);
  });

  it("without index, a new id starts a new call and id-less fragments continue the current one", async () => {
    const { client } = await setup([
      {
        events: [
          chat.toolCalls({ id: "a", name: "read", arguments: '{"path":' }),
          chat.toolCalls({ arguments: '"1"}' }),
          chat.toolCalls({ id: "a", arguments: "" }),
          chat.toolCalls({ id: "b", name: "read", arguments: '{"path":"2"}' }),
          chat.finish("tool_calls"),
          chat.done(),
        ],
      },
    ]);
    const { response } = await run(client);
    expect(response.calls).toEqual([
      { call_id: "a", name: "read", arguments: { path: "1" } },
      { call_id: "b", name: "read", arguments: { path: "2" } },
    ]);
  });

  it("names calls without an id call_<step>_<n>, the step defaulting to 1", async () => {
    const script = () => ({
      events: [
        chat.toolCalls({ index: 0, name: "read", arguments: '{"path":"a"}' }),
        chat.toolCalls({ index: 1, id: "given", name: "read", arguments: '{"path":"b"}' }),
        chat.toolCalls({ index: 2, name: "bash", arguments: '{"command":"pwd"}' }),
        chat.finish("tool_calls"),
        chat.done(),
      ],
    });
    const { client } = await setup([script(), script()]);
    const first = await run(client);
    expect(first.response.calls.map((call) => call.call_id)).toEqual(["call_1_1", "given", "call_1_3"]);
    const third = await run(client, { step: 3 });
    expect(third.response.calls.map((call) => call.call_id)).toEqual(["call_3_1", "given", "call_3_3"]);
  });

  it("fails a call without a name as incomplete", async () => {
    const { client } = await setup([
      { events: [chat.toolCalls({ index: 0, id: "x", arguments: "{}" }), chat.finish("tool_calls"), chat.done()] },
    ]);
    const error = await runFailing(client);
    expect(error).toMatchObject({ code: "provider_error", message: "provider returned an incomplete tool call" });
  });

  it("fails unparseable arguments", async () => {
    const { client } = await setup([
      {
        events: [
          chat.toolCalls({ index: 0, id: "x", name: "read", arguments: '{"path":' }),
          chat.finish("tool_calls"),
          chat.done(),
        ],
      },
    ]);
    const error = await runFailing(client);
    expect(error.code).toBe("provider_error");
    expect(error.message).toMatch(/^provider returned invalid tool arguments: /);
  });

  it("fails with tool_limit beyond max_tool_calls and for oversize arguments", async () => {
    const { client } = await setup(
      [
        chatToolCallResponse([1, 2, 3].map((n) => ({ call_id: `c${n}`, name: "read", arguments: { path: `${n}` } }))),
        {
          events: [
            chat.toolCalls({ index: 0, id: "x", name: "read", arguments: `{"path":"${"a".repeat(80)}"}` }),
            chat.done(),
          ],
        },
      ],
      { limits: { max_tool_calls: 2, max_tool_arguments_bytes: 64 } },
    );
    expect(await runFailing(client)).toMatchObject({
      code: "tool_limit",
      message: "provider returned too many tool calls",
    });
    expect(await runFailing(client)).toMatchObject({
      code: "tool_limit",
      message: "tool arguments exceeded byte limit",
    });
  });
});

describe("Chat Completions stream: end of stream", () => {
  it("ends at [DONE] without a finish_reason and ignores what follows", async () => {
    const { client } = await setup([{ events: [chat.text("done early"), chat.done(), chat.text(" ignored")] }]);
    const { response } = await run(client);
    expect(response.text).toBe("done early");
  });

  it("is complete without [DONE] when a finish_reason was seen", async () => {
    const { client } = await setup([{ events: [chat.text("fine"), chat.finish("stop"), chat.usage(3, 1)] }]);
    const { response } = await run(client);
    expect(response).toEqual({ text: "fine", calls: [], usage: { input_tokens: 3, output_tokens: 1 } });
  });

  it("fails without [DONE] or finish_reason, retried only before any output", async () => {
    const { fake, client } = await setup([
      { events: [chat.usage(1, 1)] },
      { events: [chat.text("partial")] },
    ]);
    const error = await runFailing(client);
    expect(error).toMatchObject({
      code: "provider_error",
      message: "provider stream ended before the response completed (gave up after 2 attempts)",
    });
    expect(fake.requests).toHaveLength(2);
  });

  it("maps finish_reason length and content_filter to provider response incomplete", async () => {
    const { client } = await setup([
      { events: [chat.text("cut"), chat.finish("length"), chat.done()] },
      { events: [chat.finish("content_filter"), chat.done()] },
    ], noRetry);
    expect(await runFailing(client)).toMatchObject({
      code: "provider_error",
      message: "provider response incomplete: length",
    });
    expect(await runFailing(client)).toMatchObject({
      code: "provider_error",
      message: "provider response incomplete: content_filter",
    });
  });

  it("reports an incomplete SSE event left at the end", async () => {
    const { client } = await setup([{ events: [chat.text("x"), { raw: 'data: {"choices":[' }] }], noRetry);
    expect(await runFailing(client)).toMatchObject({ message: "provider stream ended with an incomplete SSE event" });
  });

  it("fails on non-JSON data", async () => {
    const { client } = await setup([{ events: [{ raw: "data: {not json\n\n" }] }]);
    const error = await runFailing(client);
    expect(error.message).toMatch(/^invalid provider stream JSON: /);
  });
});

describe("Chat Completions stream: errors and retries", () => {
  it("turns a chunk with error into provider stream error with sanitised details", async () => {
    const { fake, client } = await setup([
      {
        events: [
          chat.text("so far"),
          chat.error(`bad key ${CREDENTIAL}\nsecond line`, "invalid_request_error", "bad_key"),
        ],
      },
    ]);
    const error = await runFailing(client);
    expect(error).toMatchObject({
      code: "provider_error",
      message: "provider stream error: bad key [REDACTED] second line (bad_key, invalid_request_error)",
    });
    expect(fake.requests).toHaveLength(1);
  });

  it("accepts a string error and retries a transient error chunk before any output", async () => {
    const { fake, client, delays } = await setup([
      { events: [chat.error("model is overloaded", "server_error")] },
      { events: [{ error: "out of memory" }] },
    ], { limits: { max_retries: 1 } });
    const error = await runFailing(client);
    expect(error.message).toBe("provider stream error: out of memory (gave up after 2 attempts)");
    expect(fake.requests).toHaveLength(2);
    expect(delays).toEqual([1000]);
  });

  it("shares the transport's HTTP retries with the Responses wire", async () => {
    const { fake, client, delays } = await setup([
      { status: 503, body: { error: { message: "loading model", type: "unavailable" } } },
      { status: 429, body: "slow down", headers: { "Retry-After": "2" } },
      chatTextResponse(["finally"], { prompt_tokens: 5, completion_tokens: 1 }),
    ]);
    const { response } = await run(client);
    expect(response.text).toBe("finally");
    expect(fake.requests).toHaveLength(3);
    for (const request of fake.requests) expect(request.path).toBe("/v1/chat/completions");
    expect(delays).toEqual([1000, 2000]);
  });

  it("reports a non-2xx reply in the §8.1 format without retrying a 400", async () => {
    const { fake, client } = await setup([{
      status: 400,
      body: { error: { message: "unknown model", type: "invalid_request_error" } },
    }]);
    const error = await runFailing(client);
    expect(error.message).toBe("provider returned HTTP 400 Bad Request: unknown model (invalid_request_error)");
    expect(fake.requests).toHaveLength(1);
  });

  it("fails with response_limit when the assistant text is too large", async () => {
    const { client } = await setup([chatTextResponse(["12345", "67890"])], { limits: { max_assistant_bytes: 8 } });
    expect(await runFailing(client)).toMatchObject({
      code: "response_limit",
      message: "assistant response exceeded byte limit",
    });
  });
});
