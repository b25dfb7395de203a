// Issue 14 fixes 1–5, replayed in the real servers' stream formats (fixtures/real_streams.ts) through the fake
// provider: payload-counted limits, the reasoning round trip, old llama.cpp error lines, refusals, rate limits.
import { describe, expect, it, onTestFinished, vi } from "vitest";
import type { HistoryItem } from "../../lib/provider/types.ts";
import { sse } from "../support/fake_provider.ts";
import { NO_RETRY, READ_TOOL, run, runFailing, useProviderClients } from "./helpers.ts";
import {
  chatStream,
  chatText,
  errorBodies,
  llamaErrorLineStream,
  responsesStream,
  split,
} from "./fixtures/real_streams.ts";

const { setup } = useProviderClients();
const CHAT = { profile: { wire_api: "chat" as const } };

describe("max_response_bytes counts payload, not SSE framing (fix 1)", () => {
  it("a 150 KB write call framed like the Responses API passes a limit smaller than its wire size", async () => {
    const content = "x".repeat(150_000);
    const args = JSON.stringify({ path: "big.txt", content });
    const events = responsesStream([{
      type: "function_call",
      id: "fc_1",
      call_id: "call_w",
      name: "write",
      arguments: args,
      pieces: 40_000,
    }]);
    const wire = events.reduce((sum, item) => sum + Buffer.byteLength((item as { raw: string }).raw), 0);
    // Real servers spend ~100+ bytes of framing per delta: the wire is many times the payload.
    expect(wire).toBeGreaterThan(5 * args.length);
    const { client } = await setup([{ events }], {
      limits: { max_response_bytes: 2 * args.length, max_tool_arguments_bytes: args.length },
    });
    const { response } = await run(client);
    expect(response.calls).toEqual([{ call_id: "call_w", name: "write", arguments: { path: "big.txt", content } }]);
  });

  it("a long chat answer in one-token chunks passes; a payload over the limit still fails", async () => {
    const text = "word ".repeat(20_000);
    const events = chatStream("vllm", chatText(text, 20_000));
    const { client } = await setup([{ events }, { events }], {
      ...CHAT,
      limits: { max_response_bytes: text.length + 10, ...NO_RETRY.limits },
    });
    expect((await run(client)).response.text).toBe(text);
    const { client: small } = await setup([{ events }], {
      ...CHAT,
      limits: { max_response_bytes: text.length - 1, ...NO_RETRY.limits },
    });
    expect(await runFailing(small)).toMatchObject({
      code: "response_limit",
      message: "provider response exceeded byte limit",
    });
  });

  it("hidden reasoning counts toward the payload too", async () => {
    const events = chatStream("llama.cpp", [{ reasoning_content: "r".repeat(5000) }, { content: "ok" }]);
    const { client } = await setup([{ events }], { ...CHAT, limits: { max_response_bytes: 4096, ...NO_RETRY.limits } });
    expect(await runFailing(client)).toMatchObject({
      code: "response_limit",
      message: "provider response exceeded byte limit",
    });
  });
});

describe("reasoning round trip (fix 2)", () => {
  it("Responses: store:false, encrypted reasoning requested, reasoning replayed without id before the call, phase kept", async () => {
    const { fake, client } = await setup([
      {
        events: responsesStream([
          {
            type: "reasoning",
            id: "rs_1",
            encrypted_content: "gAAAAABo-ENCRYPTED-1",
            summary: ["Need to read the file first."],
          },
          { type: "message", id: "msg_1", text: "Reading README.", phase: "commentary" },
          { type: "function_call", id: "fc_1", call_id: "call_1", name: "read", arguments: '{"path":"README.md"}' },
        ]),
      },
      { events: responsesStream([{ type: "message", id: "msg_2", text: "Done.", phase: "final_answer" }]) },
    ]);
    const first = await run(client, { tools: [READ_TOOL] });
    expect(first.deltas.join("")).toBe("Reading README.");
    expect(first.response.replay).toEqual({
      reasoning: [{
        type: "reasoning",
        summary: [{ type: "summary_text", text: "Need to read the file first." }],
        encrypted_content: "gAAAAABo-ENCRYPTED-1",
      }],
      messages: [{ text: "Reading README.", phase: "commentary" }],
    });
    const history: HistoryItem[] = [
      { kind: "user", content: "read it" },
      { kind: "assistant", content: first.response.text, calls: first.response.calls, replay: first.response.replay! },
      { kind: "tool_result", call_id: "call_1", name: "read", output: "# Title", success: true },
    ];
    await run(client, { tools: [READ_TOOL], history });
    const body = fake.requests[1]!.body;
    expect(body.store).toBe(false);
    expect(body.include).toEqual(["reasoning.encrypted_content"]);
    expect(body.input).toEqual([
      { role: "user", content: "read it" },
      {
        type: "reasoning",
        summary: [{ type: "summary_text", text: "Need to read the file first." }],
        encrypted_content: "gAAAAABo-ENCRYPTED-1",
      },
      { role: "assistant", content: "Reading README.", phase: "commentary" },
      { type: "function_call", call_id: "call_1", name: "read", arguments: '{"path":"README.md"}' },
      { type: "function_call_output", call_id: "call_1", output: "# Title" },
    ]);
    expect(JSON.stringify(body.input)).not.toContain("rs_1");
    // The cache key is the same on every request of one client (one session).
    expect(body.prompt_cache_key).toBe(fake.requests[0]!.body.prompt_cache_key);
  });

  it("Chat: reasoning_content (vLLM, llama.cpp) and reasoning (Ollama) go back in the field they came in", async () => {
    for (const [server, field] of [["vllm", "reasoning_content"], ["ollama", "reasoning"]] as const) {
      const part = field === "reasoning_content"
        ? { reasoning_content: "Let me check. " }
        : { reasoning: "Let me check. " };
      const { fake, client } = await setup(
        [
          {
            events: chatStream(server, [part, {
              tool_call: { index: 0, id: "call_9", name: "read", arguments: '{"path":"a.txt"}' },
            }]),
          },
          { events: chatStream(server, chatText("It says hi.", 3)) },
        ],
        CHAT,
      );
      const first = await run(client, { tools: [READ_TOOL] });
      expect(first.deltas).toEqual([]);
      expect(first.response.text).toBe("");
      await run(client, {
        tools: [READ_TOOL],
        history: [
          { kind: "user", content: "read a.txt" },
          { kind: "assistant", content: "", calls: first.response.calls, replay: first.response.replay! },
          { kind: "tool_result", call_id: "call_9", name: "read", output: "hi", success: true },
        ],
      });
      const assistant = fake.requests[1]!.body.messages[2];
      expect(assistant).toEqual({
        role: "assistant",
        content: "",
        [field]: "Let me check. ",
        tool_calls: [{ id: "call_9", type: "function", function: { name: "read", arguments: '{"path":"a.txt"}' } }],
      });
    }
  });

  it('Chat: an empty answer with no calls is not sent back as content:""', async () => {
    const { fake, client } = await setup([{ events: chatStream("llama.cpp", chatText("ok", 1)) }], CHAT);
    await run(client, {
      history: [
        { kind: "user", content: "one" },
        { kind: "assistant", content: "", calls: [] },
        { kind: "user", content: "two" },
      ],
    });
    expect(fake.requests[0]!.body.messages.map((message: { role: string }) => message.role)).toEqual([
      "system",
      "user",
      "user",
    ]);
  });
});

describe("old llama.cpp error lines under HTTP 200 (fix 3)", () => {
  it("fail the turn with the server's message, not an empty success", async () => {
    const message = "the request exceeds the available context size, try increasing it";
    const { fake, client } = await setup([{ events: llamaErrorLineStream(message) }, {
      events: llamaErrorLineStream(message),
    }], CHAT);
    const error = await runFailing(client);
    expect(error.code).toBe("provider_error");
    expect(error.message).toContain(`provider stream error: ${message} (500)`);
    // A context overflow is not retried, and the hint names the flags that raise the window.
    expect(fake.requests).toHaveLength(1);
    expect(error.message).toContain("OLLAMA_CONTEXT_LENGTH");
  });

  it("also on the Responses wire, and with a data: error object after text", async () => {
    const { client } = await setup([{ events: llamaErrorLineStream("model crashed") }], NO_RETRY);
    expect((await runFailing(client)).message).toBe("provider stream error: model crashed (500)");
    const events = [...chatStream("llama.cpp", chatText("partial", 2)).slice(0, 3), {
      raw: `data: ${JSON.stringify({ error: { code: 500, message: "slot unavailable", type: "server_error" } })}\n\n`,
    }];
    const { client: chatClient } = await setup([{ events }], { ...CHAT, ...NO_RETRY });
    expect((await runFailing(chatClient)).message).toBe("provider stream error: slot unavailable (500, server_error)");
  });
});

describe("refusals and several message items (fix 4)", () => {
  it("Responses refusal parts are shown as the assistant's text", async () => {
    const { client } = await setup([{
      events: responsesStream([{ type: "message", id: "msg_r", refusal: "I can't help with that." }]),
    }]);
    const { response, deltas } = await run(client);
    expect(deltas.join("")).toBe("I can't help with that.");
    expect(response.text).toBe("I can't help with that.");
  });

  it("a refusal sent only in output_item.done is shown once", async () => {
    const events = responsesStream([{ type: "message", id: "msg_r", refusal: "No." }]).filter(
      (item) => !String((item as { raw: string }).raw).includes("response.refusal."),
    );
    const { client } = await setup([{ events }]);
    expect((await run(client)).response.text).toBe("No.");
  });

  it("text in output_item.done is not repeated when its deltas named the item differently or not at all", async () => {
    const done = {
      type: "response.output_item.done",
      output_index: 1,
      item: { id: "msg_x", type: "message", content: [{ type: "output_text", text: "Hello." }] },
    };
    const { client } = await setup([
      // Deltas with neither output_index nor item_id (some compatible servers), the item at output_index 1.
      {
        events: [
          { type: "response.output_text.delta", delta: "Hel" },
          { type: "response.output_text.delta", delta: "lo." },
          done,
          sse.completed(),
        ],
      },
      // Deltas naming the item by id only.
      { events: [{ type: "response.output_text.delta", item_id: "msg_x", delta: "Hello." }, done, sse.completed()] },
      // No deltas at all: the done item is the text.
      { events: [done, sse.completed()] },
    ]);
    for (let attempt = 0; attempt < 3; attempt++) expect((await run(client)).response.text).toBe("Hello.");
  });

  it("Chat refusal deltas are shown", async () => {
    const { client } = await setup([{
      events: chatStream("openai", [{ refusal: "I'm sorry, " }, { refusal: "I can't do that." }]),
    }], CHAT);
    const { response, deltas } = await run(client);
    expect(deltas).toEqual(["I'm sorry, ", "I can't do that."]);
    expect(response.text).toBe("I'm sorry, I can't do that.");
  });

  it("two message items in one response are joined by a blank line, and replayed with their phases", async () => {
    const { fake, client } = await setup([
      {
        events: responsesStream([
          { type: "message", id: "msg_a", text: "Plan: read, then answer.", phase: "commentary" },
          { type: "message", id: "msg_b", text: "The answer is 42.", phase: "final_answer" },
        ]),
      },
      { events: responsesStream([{ type: "message", id: "msg_c", text: "ok" }]) },
    ]);
    const { response, deltas } = await run(client);
    expect(response.text).toBe("Plan: read, then answer.\n\nThe answer is 42.");
    expect(deltas.join("")).toBe(response.text);
    await run(client, {
      history: [
        { kind: "user", content: "q" },
        { kind: "assistant", content: response.text, calls: [], replay: response.replay! },
        { kind: "user", content: "again" },
      ],
    });
    expect(fake.requests[1]!.body.input.slice(1, 3)).toEqual([
      { role: "assistant", content: "Plan: read, then answer.", phase: "commentary" },
      { role: "assistant", content: "The answer is 42.", phase: "final_answer" },
    ]);
  });
});

describe("rate limits and hopeless retries (fix 5)", () => {
  it("waits what a 'try again in 11.75s' body says when there is no Retry-After", async () => {
    const { client, delays } = await setup([
      { status: 429, body: errorBodies.openaiRateLimit },
      { events: responsesStream([{ type: "message", id: "m", text: "ok" }]) },
    ]);
    expect((await run(client)).response.text).toBe("ok");
    expect(delays).toEqual([11750]);
  });

  it("reads 'try again in 120ms', retry-after-ms and an HTTP-date Retry-After", async () => {
    // The HTTP date counts from now: the clock (Date) is fake and stands still, so the time the three requests take
    // on a busy machine does not shorten the delay read.
    vi.useFakeTimers({ toFake: ["Date"], now: new Date("2026-01-01T00:00:00.000Z") });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const ok = { events: responsesStream([{ type: "message", id: "m", text: "ok" }]) };
    const date = new Date(Date.now() + 30_000).toUTCString();
    const { client, delays } = await setup(
      [
        { status: 429, body: errorBodies.openaiRateLimitMs },
        ok,
        { status: 429, headers: { "retry-after-ms": "2500", "retry-after": "9" }, body: errorBodies.openaiRateLimit },
        ok,
        {
          status: 503,
          headers: { "Retry-After": date },
          body: { error: { message: "overloaded", type: "server_error" } },
        },
        ok,
      ],
    );
    await run(client);
    await run(client);
    await run(client);
    expect(delays[0]).toBe(120);
    expect(delays[1]).toBe(2500);
    // An HTTP date: seconds from now (the date has whole seconds, so allow the clock's drift).
    expect(delays[2]).toBeGreaterThan(27_000);
    expect(delays[2]).toBeLessThanOrEqual(30_000);
  });

  it("does not retry insufficient_quota, a request too large or llama.cpp's --jinja 500", async () => {
    for (
      const [status, body, text] of [
        [429, errorBodies.openaiInsufficientQuota, "You exceeded your current quota"],
        [429, errorBodies.openaiRequestTooLarge, "Request too large for gpt-4o"],
        [
          413,
          { error: { message: "Request Entity Too Large", type: "invalid_request_error" } },
          "Request Entity Too Large",
        ],
        [500, errorBodies.llamaJinja, "tools param requires --jinja flag"],
      ] as const
    ) {
      const { fake, client, delays } = await setup([{ status, body }, { status, body }, { status, body }], CHAT);
      const error = await runFailing(client);
      expect(error.message).toContain(text);
      expect(error.message).not.toContain("gave up after");
      expect(fake.requests).toHaveLength(1);
      expect(delays).toEqual([]);
    }
  });

  it("still retries an ordinary 500 and a plain 429", async () => {
    const ok = { events: chatStream("vllm", chatText("ok", 1)) };
    const { fake, client } = await setup([
      { status: 500, body: { error: { message: "boom", type: "server_error" } } },
      ok,
    ], CHAT);
    expect((await run(client)).response.text).toBe("ok");
    expect(fake.requests).toHaveLength(2);
  });
});

describe("local-server configuration errors name the flag (deliverable 4)", () => {
  it("llama-server without --jinja, vLLM without --enable-auto-tool-choice, Ollama without tool support", async () => {
    for (
      const [status, body, flag] of [
        [500, errorBodies.llamaJinja, "start llama-server with --jinja"],
        [400, errorBodies.vllmAutoToolChoice, "start vLLM with --enable-auto-tool-choice --tool-call-parser"],
        [400, errorBodies.ollamaNoTools, "this Ollama model has no tool support"],
      ] as const
    ) {
      const { client } = await setup([{ status, body }], { ...CHAT, ...NO_RETRY });
      const error = await runFailing(client, { tools: [READ_TOOL] });
      expect(error.message).toMatch(new RegExp(`^provider returned HTTP ${status} `));
      expect(error.message).toContain(flag);
      expect(error.message).toContain("docs/local-models.md");
    }
  });
});

describe("fixture sanity", () => {
  it("split keeps every character", () => {
    expect(split("abcdefg", 3).join("")).toBe("abcdefg");
  });
});
