// SSE parsing and the Responses event table (spec §8.2), over real HTTP.
import { describe, expect, it } from "vitest";
import { sse, textResponse, toolCallResponse } from "../support/fake_provider.ts";
import { settle } from "../support/wait.ts";
import { CREDENTIAL, NO_RETRY, run, runFailing, useProviderClients } from "./helpers.ts";

const { setup } = useProviderClients();
const noRetry = NO_RETRY;

describe("Responses stream", () => {
  it("streams text deltas and takes usage from response.completed (checklist 2)", async () => {
    const { client } = await setup([textResponse(["hello ", "from fake"], { input_tokens: 7, output_tokens: 3 })]);
    const { response, deltas } = await run(client);
    expect(deltas).toEqual(["hello ", "from fake"]);
    expect(response).toEqual({ text: "hello from fake", calls: [], usage: { input_tokens: 7, output_tokens: 3 } });
  });

  it("streams chunked replies event by event", async () => {
    const { client } = await setup([{ ...textResponse(["a", "b", "c"]), mode: "chunked", delayMs: 5 }]);
    const { response, deltas } = await run(client);
    expect(deltas).toEqual(["a", "b", "c"]);
    expect(response.usage).toEqual({});
  });

  it("awaits onTextDelta before reading on", async () => {
    const { client } = await setup([textResponse(["1", "2", "3"])]);
    const seen: string[] = [];
    await client.stream(
      { model: "m", instructions: "", history: [{ kind: "user", content: "x" }], tools: [] },
      {
        signal: new AbortController().signal,
        onTextDelta: async (text) => {
          seen.push(`start ${text}`);
          await settle();
          seen.push(`end ${text}`);
        },
      },
    );
    expect(seen).toEqual(["start 1", "end 1", "start 2", "end 2", "start 3", "end 3"]);
  });

  it("accepts CRLF separators, data: without a space, event: line types, comments and [DONE]", async () => {
    const raw = ": keep-alive\r\n\r\n" +
      'event: response.output_text.delta\r\ndata:{"delta":"one "}\r\n\r\n' +
      'data: {"type":"response.output_text.delta","delta":"two "}\n\n' +
      "data:\n\n" +
      'data: {"type":"response.something_new","delta":"ignored"}\n\n' +
      'event: response.output_text.delta\ndata: {"delta":"thr"}\n\n' +
      'data: {"type":"response.output_text.delta",\ndata: "delta":"ee"}\n\n' +
      "data: [DONE]\n\n" +
      'data: {"type":"response.output_text.delta","delta":"after done"}\n\n';
    const { client } = await setup([{ events: [{ raw }] }]);
    const { response, deltas } = await run(client);
    expect(deltas).toEqual(["one ", "two ", "thr", "ee"]);
    expect(response.text).toBe("one two three");
  });

  it("splits events across arbitrary chunk boundaries, even inside a character or separator", async () => {
    const body = Buffer.from(
      'event: response.output_text.delta\r\ndata: {"type":"response.output_text.delta","delta":"héllo"}\r\n\r\n' +
        'data: {"type":"response.completed","response":{"usage":{"input_tokens":1}}}\n\n',
    );
    const pieces = [];
    for (let i = 0; i < body.length; i += 3) pieces.push({ raw: body.subarray(i, i + 3) });
    const { client } = await setup([{ events: pieces, mode: "chunked", delayMs: 1 }]);
    const { response } = await run(client);
    expect(response.text).toBe("héllo");
    expect(response.usage).toEqual({ input_tokens: 1 });
  });

  it("fails on non-JSON data", async () => {
    const { client } = await setup([{ events: [{ raw: "data: {not json\n\n" }] }], noRetry);
    const error = await runFailing(client);
    expect(error.code).toBe("provider_error");
    expect(error.message.startsWith("invalid provider stream JSON: ")).toBe(true);
  });

  it("reports a stream error event once, without retrying (checklist 3)", async () => {
    const { fake, client } = await setup([
      { events: [sse.error("model is not available", "invalid_request_error")] },
      textResponse(["should not be requested"]),
    ]);
    const error = await runFailing(client);
    expect(error.code).toBe("provider_error");
    expect(error.message).toBe("provider stream error: model is not available (invalid_request_error)");
    expect(fake.connections()).toBe(1);
  });

  it("uses the raw text of a non-JSON error event, and top-level code/message", async () => {
    const { client } = await setup(
      [
        { events: [{ raw: "event: error\ndata: upstream exploded\n\n" }] },
        { events: [{ type: "error", code: "bad_thing", message: "it broke", param: null }] },
      ],
      noRetry,
    );
    expect((await runFailing(client)).message).toBe("provider stream error: upstream exploded");
    expect((await runFailing(client)).message).toBe("provider stream error: it broke (bad_thing)");
  });

  it("reports response.failed and response.incomplete", async () => {
    const { client } = await setup(
      [
        { events: [sse.textDelta("partial"), sse.failed("quota exhausted", "insufficient_quota")] },
        { events: [{ type: "response.failed", response: {} }] },
        { events: [sse.incomplete("max_output_tokens")] },
        { events: [sse.incomplete()] },
      ],
      noRetry,
    );
    expect((await runFailing(client)).message).toBe("provider response failed: quota exhausted (insufficient_quota)");
    expect((await runFailing(client)).message).toBe("provider response failed: no details");
    expect((await runFailing(client)).message).toBe("provider response incomplete: max_output_tokens");
    expect((await runFailing(client)).message).toBe("provider response incomplete: unknown reason");
  });

  it("assembles tool calls from argument deltas and output_item.done (checklist 4)", async () => {
    const { client } = await setup([
      {
        events: [
          sse.argumentsDelta('{"path":', 1),
          { type: "response.function_call_arguments.delta", delta: '{"command":"ls"}' },
          sse.argumentsDelta('"README.md"}', 1),
          sse.callDone("call_2", "read", 1),
          sse.callDone("call_1", "bash", 0),
          {
            type: "response.output_item.done",
            output_index: 2,
            item: { type: "function_call", call_id: "call_3", name: "write", arguments: '{"path":"a"}' },
          },
          sse.callDone("call_4", "read", 3),
          sse.completed(),
        ],
      },
    ]);
    const { response, deltas } = await run(client);
    expect(deltas).toEqual([]);
    expect(response.text).toBe("");
    expect(response.calls).toEqual([
      { call_id: "call_1", name: "bash", arguments: { command: "ls" } },
      { call_id: "call_2", name: "read", arguments: { path: "README.md" } },
      { call_id: "call_3", name: "write", arguments: { path: "a" } },
      { call_id: "call_4", name: "read", arguments: {} },
    ]);
  });

  it("rejects incomplete tool calls and unparseable arguments", async () => {
    const { client } = await setup(
      [
        { events: [sse.argumentsDelta("{}"), sse.completed()] },
        {
          events: [
            { type: "response.output_item.done", item: { type: "function_call", call_id: "c" } },
            sse.completed(),
          ],
        },
        { events: [sse.argumentsDelta('{"path":'), sse.callDone("c", "read"), sse.completed()] },
      ],
      noRetry,
    );
    expect((await runFailing(client)).message).toBe("provider returned an incomplete tool call");
    expect((await runFailing(client)).message).toBe("provider returned an incomplete tool call");
    const invalid = await runFailing(client);
    expect(invalid.code).toBe("provider_error");
    expect(invalid.message.startsWith("provider returned invalid tool arguments: ")).toBe(true);
  });

  it("appends cited URLs missing from the text as Sources and streams them", async () => {
    const { client } = await setup([
      {
        events: [
          sse.textDelta("See https://in.text/page for more."),
          {
            type: "response.output_text.annotation.added",
            annotation: { type: "url_citation", url: "https://example.org/a", title: "Example A" },
          },
          {
            type: "response.output_text.annotation.added",
            annotation: { type: "url_citation", url: "https://in.text/page", title: "Already there" },
          },
          {
            type: "response.output_item.done",
            output_index: 0,
            item: {
              type: "message",
              content: [
                {
                  type: "output_text",
                  annotations: [
                    { type: "url_citation", url: "https://example.org/a", title: "Example A" },
                    { type: "url_citation", url: "https://example.org/b" },
                    { type: "file_citation", file_id: "f" },
                  ],
                },
              ],
            },
          },
          sse.completed(),
        ],
      },
    ]);
    const { response, deltas } = await run(client);
    const sources = "\n\nSources:\n- [Example A](https://example.org/a)\n- https://example.org/b";
    expect(response.text).toBe(`See https://in.text/page for more.${sources}`);
    expect(deltas).toEqual(["See https://in.text/page for more.", sources]);
  });

  it("reads a JSON error body sent instead of SSE", async () => {
    const { client } = await setup([{
      events: [{ raw: '{"error":{"message":"no such model","code":"model_not_found"}}' }],
    }], noRetry);
    expect((await runFailing(client)).message).toBe("provider error: no such model (model_not_found)");
  });

  it("reports leftovers and streams that end before response.completed", async () => {
    const { client } = await setup(
      [
        { events: [sse.textDelta("a"), { raw: 'data: {"type":"response.output_text.delta"' }] },
        { events: [sse.textDelta("a")] },
        { events: [{ raw: 'data: {"type":"response.completed","response":{}}\n' }] },
      ],
      noRetry,
    );
    expect((await runFailing(client)).message).toBe("provider stream ended with an incomplete SSE event");
    expect((await runFailing(client)).message).toBe("provider stream ended before the response completed");
    expect((await runFailing(client)).message).toBe("provider stream ended with an incomplete SSE event");
  });

  it("retries an early end when nothing was streamed", async () => {
    const { fake, client } = await setup([{ events: [] }, { events: [{ raw: "data: {" }] }, textResponse(["fine"])]);
    const { response } = await run(client);
    expect(response.text).toBe("fine");
    expect(fake.requests).toHaveLength(3);
  });

  it("keeps tool calls from a mixed text and call response", async () => {
    const { client } = await setup([
      {
        events: [
          sse.textDelta("Reading."),
          ...toolCallResponse([{ call_id: "c1", name: "read", arguments: { path: "a b" } }]).events,
        ],
      },
    ]);
    const { response } = await run(client);
    expect(response.text).toBe("Reading.");
    expect(response.calls).toEqual([{ call_id: "c1", name: "read", arguments: { path: "a b" } }]);
  });

  it("never echoes the credential through JSON parse errors", async () => {
    const { client } = await setup(
      [
        { events: [{ raw: `data: ${CREDENTIAL}\n\n` }] },
        { events: [sse.argumentsDelta(`${CREDENTIAL}`), sse.callDone("c", "read"), sse.completed()] },
      ],
      noRetry,
    );
    const invalidJson = await runFailing(client);
    expect(invalidJson.message.startsWith("invalid provider stream JSON: ")).toBe(true);
    expect(invalidJson.message).not.toContain(CREDENTIAL);
    const invalidArguments = await runFailing(client);
    expect(invalidArguments.message.startsWith("provider returned invalid tool arguments: ")).toBe(true);
    expect(invalidArguments.message).not.toContain(CREDENTIAL);
  });

  it("never echoes the credential in stream errors", async () => {
    const { client } = await setup([{ events: [sse.error(`bad key ${CREDENTIAL}\u0007\nrejected`, "auth")] }], noRetry);
    const error = await runFailing(client);
    expect(error.message).toBe("provider stream error: bad key [REDACTED]  rejected (auth)");
    expect(error.message).not.toContain(CREDENTIAL);
  });
});
