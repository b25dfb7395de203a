// HTTP errors, limits, retries, cancellation and timeout (spec §8.1; checklist 24, 25 from the provider's side).
import net from "node:net";
import { describe, expect, it } from "vitest";
import { createProvider } from "../../lib/provider/index.ts";
import { defaultTiming } from "../../lib/provider/retry.ts";
import { type FakeResponse, sse, startFakeProvider, textResponse, toolCallResponse } from "../support/fake_provider.ts";
import { at } from "../support/at.ts";
import { within } from "../support/wait.ts";
import {
  CREDENTIAL,
  DEFAULT_LIMITS,
  makeClient,
  NO_RETRY,
  run,
  runFailing,
  runFailingWithDeltas,
  useProviderClients,
} from "./helpers.ts";

const { setup, track } = useProviderClients();
const noRetry = NO_RETRY;

describe("HTTP errors", () => {
  it("formats status, reason and de-duplicated labels of an error object", async () => {
    const { fake, client } = await setup([
      {
        status: 400,
        body: { error: { message: "bad model", type: "invalid_request_error", code: "model_not_found" } },
      },
      { status: 404, body: { error: { message: "gone", type: "not_found", code: "not_found" } } },
      { status: 401, body: { code: "unauthorized", message: "who are you" } },
      { status: 403, body: { error: { type: "forbidden" } } },
      { status: 400, body: "<html>plain failure</html>" },
      { status: 400, body: "" },
    ]);
    const messages = [];
    for (let i = 0; i < 6; i += 1) messages.push((await runFailing(client)).message);
    expect(messages).toEqual([
      "provider returned HTTP 400 Bad Request: bad model (model_not_found, invalid_request_error)",
      "provider returned HTTP 404 Not Found: gone (not_found)",
      "provider returned HTTP 401 Unauthorized: who are you (unauthorized)",
      "provider returned HTTP 403 Forbidden: no details (forbidden)",
      "provider returned HTTP 400 Bad Request: <html>plain failure</html>",
      "provider returned HTTP 400 Bad Request: no details",
    ]);
    // 4xx other than 429 is never retried.
    expect(fake.requests).toHaveLength(6);
  });

  it("sanitises provider text: credential redacted, control characters, 300-character cut", async () => {
    const long = "x".repeat(400);
    const { client } = await setup(
      [
        { status: 401, body: { error: { message: `key ${CREDENTIAL} is\tinvalid\n`, code: CREDENTIAL } } },
        { status: 400, body: long },
      ],
      noRetry,
    );
    const first = await runFailing(client);
    expect(first.message).toBe("provider returned HTTP 401 Unauthorized: key [REDACTED] is invalid (" + "[REDACTED])");
    expect(first.message).not.toContain(CREDENTIAL);
    const second = await runFailing(client);
    expect(second.message).toBe(`provider returned HTTP 400 Bad Request: ${"x".repeat(300)}…`);
  });

  it("reports a connection failure before any status, retried", async () => {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const made = makeClient(`http://127.0.0.1:${port}/v1`, { limits: { max_retries: 1 } });
    const client = track(made.client);
    const error = await runFailing(client);
    expect(error.code).toBe("provider_error");
    expect(error.message).toMatch(/^provider request failed: .*ECONNREFUSED.* \(gave up after 2 attempts\)$/);
    expect(made.delays).toHaveLength(1);
  });

  it("does not retry a malformed base_url", async () => {
    const made = makeClient("ftp://127.0.0.1:1/v1");
    const client = track(made.client);
    const error = await runFailing(client);
    expect(error.message.startsWith("provider request failed: ")).toBe(true);
    expect(error.message).not.toContain("gave up");
    expect(made.delays).toEqual([]);
  });
});

describe("limits", () => {
  it("fails with response_limit when one SSE event is too large", async () => {
    const { client } = await setup(
      [
        textResponse(["x".repeat(600)]),
        { events: [{ raw: `data: ${"y".repeat(700)}` }] },
        textResponse(["z".repeat(100)]),
      ],
      { limits: { max_sse_event_bytes: 512 } },
    );
    for (let i = 0; i < 2; i += 1) {
      const error = await runFailing(client);
      expect(error.code).toBe("response_limit");
      expect(error.message).toBe("provider SSE event exceeded byte limit");
    }
    expect((await run(client)).response.text).toBe("z".repeat(100));
  });

  it("fails with response_limit when the whole response is too large", async () => {
    const { fake, client } = await setup(
      [textResponse(Array.from({ length: 20 }, () => "a".repeat(100)))],
      { limits: { max_response_bytes: 1024 } },
    );
    const error = await runFailing(client);
    expect(error.code).toBe("response_limit");
    expect(error.message).toBe("provider response exceeded byte limit");
    expect(fake.requests).toHaveLength(1);
  });

  it("fails with response_limit when the assistant text is too large", async () => {
    const { client } = await setup([textResponse(["é".repeat(50), "é".repeat(50), "é"])], {
      limits: { max_assistant_bytes: 200 },
    });
    const { error, deltas } = await runFailingWithDeltas(client);
    expect(error).toMatchObject({ code: "response_limit", message: "assistant response exceeded byte limit" });
    expect(deltas).toHaveLength(2);
  });

  it("fails with tool_limit for more than max_tool_calls calls (checklist 25: 33 calls)", async () => {
    const calls = Array.from({ length: 33 }, (_, i) => ({ call_id: `c${i}`, name: "read", arguments: { path: "a" } }));
    const { client } = await setup([toolCallResponse(calls), toolCallResponse(calls.slice(0, 32))]);
    const error = await runFailing(client);
    expect(error.code).toBe("tool_limit");
    expect(error.message).toBe("provider returned too many tool calls");
    expect((await run(client)).response.calls).toHaveLength(32);
  });

  it("fails with tool_limit when one call's arguments are too large", async () => {
    const { client } = await setup(
      [
        {
          events: [
            sse.argumentsDelta('{"path":"'),
            sse.argumentsDelta("a".repeat(100)),
            sse.argumentsDelta('"}'),
            sse.callDone("c", "read"),
            sse.completed(),
          ],
        },
        toolCallResponse([{ call_id: "c", name: "read", arguments: { path: "a".repeat(80) } }]),
      ],
      { limits: { max_tool_arguments_bytes: 100 } },
    );
    const error = await runFailing(client);
    expect(error).toMatchObject({ code: "tool_limit", message: "tool arguments exceeded byte limit" });
    expect(at((await run(client)).response.calls, 0).arguments).toEqual({ path: "a".repeat(80) });
  });
});

describe("retries", () => {
  it("retries a 429 and then succeeds (checklist 24)", async () => {
    const { fake, client, delays } = await setup(
      [{ status: 429, body: { error: { message: "slow down", type: "rate_limit_error" } } }, textResponse(["ok"])],
      { random: 0 },
    );
    const { response } = await run(client);
    expect(response.text).toBe("ok");
    expect(fake.requests).toHaveLength(2);
    expect(delays).toEqual([500]);
  });

  it("gives up after max_retries + 1 attempts on 5xx with exponential backoff (checklist 24)", async () => {
    const { fake, client, delays } = await setup(
      [
        { status: 500, body: "boom" },
        { status: 502, body: "boom" },
        { status: 503, body: { error: { message: "down", type: "server_error" } } },
        textResponse(["never"]),
      ],
      { random: 0.75 },
    );
    const error = await runFailing(client);
    expect(error.code).toBe("provider_error");
    expect(error.message).toBe(
      "provider returned HTTP 503 Service Unavailable: down (server_error) (gave up after 3 attempts)",
    );
    expect(fake.requests).toHaveLength(3);
    expect(delays).toEqual([1250, 2500]);
  });

  it("honours max_retries", async () => {
    const { fake, client } = await setup([{ status: 500 }, { status: 500 }], { limits: { max_retries: 0 } });
    expect((await runFailing(client)).message).toBe("provider returned HTTP 500 Internal Server Error: no details");
    expect(fake.requests).toHaveLength(1);
  });

  it("waits an integer Retry-After", async () => {
    const { client, delays } = await setup([{ status: 429, headers: { "Retry-After": "7" } }, textResponse(["ok"])]);
    await run(client);
    expect(delays).toEqual([7000]);
  });

  it("reports a Retry-After over 60 s at once instead of waiting (checklist 24)", async () => {
    const { fake, client, delays } = await setup([
      { status: 429, headers: { "Retry-After": "120" }, body: { error: { message: "quota" } } },
      textResponse(["never"]),
    ]);
    const error = await runFailing(client);
    expect(error.code).toBe("provider_error");
    expect(error.message.startsWith("provider returned HTTP 429 Too Many Requests: quota")).toBe(true);
    expect(error.message).toContain("120 seconds");
    expect(delays).toEqual([]);
    expect(fake.requests).toHaveLength(1);
  });

  it("reports a computed backoff over 60 s instead of waiting", async () => {
    const responses: FakeResponse[] = Array.from({ length: 8 }, () => ({ status: 500 }));
    const { fake, client, delays } = await setup(responses, { limits: { max_retries: 8 }, random: 0.5 });
    const error = await runFailing(client);
    expect(delays).toEqual([1000, 2000, 4000, 8000, 16000, 32000]);
    expect(fake.requests).toHaveLength(7);
    expect(error.message).toBe(
      "provider returned HTTP 500 Internal Server Error: no details (retry delay of 64 seconds exceeds 60 seconds; not retried) (gave up after 7 attempts)",
    );
  });

  it("retries transient stream errors but not others", async () => {
    const { fake, client } = await setup([
      { events: [sse.error("engine overloaded", "unknown")] },
      { events: [sse.error("try again", "service_unavailable")] },
      { events: [sse.failed("slow", "rate_limit_exceeded")] },
      textResponse(["third time"]),
      { events: [sse.error("nope", "invalid_request_error")] },
      textResponse(["never"]),
    ], { limits: { max_retries: 3 } });
    expect((await run(client)).response.text).toBe("third time");
    expect(fake.requests).toHaveLength(4);
    expect((await runFailing(client)).message).toBe("provider stream error: nope (invalid_request_error)");
    expect(fake.requests).toHaveLength(5);
  });

  it("retries a cut before any output (checklist 24)", async () => {
    const { fake, client } = await setup([{ events: [], end: "destroy" }, textResponse(["ok"])]);
    expect((await run(client)).response.text).toBe("ok");
    expect(fake.requests).toHaveLength(2);
  });

  it("does not retry a cut after a delta (checklist 24)", async () => {
    const { fake, client } = await setup([
      { events: [sse.textDelta("partial")], mode: "chunked", end: "destroy" },
      textResponse(["never"]),
    ]);
    const { error, deltas } = await runFailingWithDeltas(client);
    expect(error.code).toBe("provider_error");
    // undici reports a cut chunked body as an early end, a short Content-Length body as a read error.
    expect(error.message).toBe("provider stream ended before the response completed");
    expect(deltas).toEqual(["partial"]);
    expect(fake.requests).toHaveLength(1);
  });

  it("does not retry after a tool-call event", async () => {
    const { fake, client } = await setup([
      { events: [sse.argumentsDelta('{"a":1}'), sse.error("overloaded", "server_error")] },
      textResponse(["never"]),
    ]);
    expect((await runFailing(client)).message).toBe("provider stream error: overloaded (server_error)");
    expect(fake.requests).toHaveLength(1);
  });

  it("does not retry limits", async () => {
    const { fake, client } = await setup([textResponse(["x".repeat(300)]), textResponse(["never"])], {
      limits: { max_assistant_bytes: 100 },
    });
    expect((await runFailing(client)).code).toBe("response_limit");
    expect(fake.requests).toHaveLength(1);
  });
});

describe("the caller's own failures", () => {
  it("pass through unchanged and unretried when onTextDelta throws or rejects", async () => {
    class SinkError extends Error {}
    for (const mode of ["throw", "reject"] as const) {
      const { fake, client } = await setup([textResponse(["a", "b"]), textResponse(["never"])]);
      const failure = new SinkError(`sink ${mode}`);
      const error = await client
        .stream(
          { model: "fake-model", instructions: "i", history: [{ kind: "user", content: "hi" }], tools: [] },
          {
            signal: new AbortController().signal,
            onTextDelta: () => (mode === "throw"
              ? (() => {
                throw failure;
              })()
              : Promise.reject(failure)),
          },
        )
        .catch((caught: unknown) => caught);
      expect(error).toBe(failure);
      expect(fake.requests).toHaveLength(1);
    }
  });
});

describe("cancellation and timeout", () => {
  it("rejects with AbortError when cancelled mid-stream", async () => {
    const { client } = await setup([{ events: [sse.textDelta("first")], mode: "chunked", end: "hang" }]);
    const controller = new AbortController();
    const pending = client.stream(
      { model: "m", instructions: "", history: [{ kind: "user", content: "x" }], tools: [] },
      { signal: controller.signal, onTextDelta: () => controller.abort() },
    );
    // The provider holds the stream open: only the abort can end it.
    const error = await within(
      pending.then(
        () => {
          throw new Error("expected a failure");
        },
        (failure: Error) => failure,
      ),
      "the aborted stream to reject",
    );
    expect(error.name).toBe("AbortError");
  });

  it("rejects with AbortError when cancelled before the response head", async () => {
    const { fake, client } = await setup([{ events: [sse.completed()], headerDelayMs: 10_000 }]);
    const controller = new AbortController();
    void fake.waitForRequests(1).then(() => controller.abort());
    const error = await runFailing(client, {}, controller.signal);
    expect(error.name).toBe("AbortError");
  });

  it("interrupts the retry wait", async () => {
    const fake = track(await startFakeProvider([{ status: 503 }, textResponse(["never"])]));
    const client = track(createProvider({
      profile: {
        kind: "openai-compatible",
        wire_api: "responses",
        model: "m",
        base_url: fake.url,
        api_key_env: "OPENAI_API_KEY",
        timeout_seconds: 600,
        headers: {},
        image_input: false,
      },
      limits: DEFAULT_LIMITS,
      credential: CREDENTIAL,
      hostedWebSearch: false,
      timing: {
        random: () => 1.4, // a real wait of about 1.9 s
        // The real wait, cancelled as soon as it starts; what ended it is recorded.
        delay: async (ms, signal) => {
          const waiting = defaultTiming.delay(ms, signal);
          controller.abort();
          try {
            await waiting;
            waitEnded = "elapsed";
          } catch (error) {
            waitEnded = "interrupted";
            throw error;
          }
        },
      },
    }));
    const controller = new AbortController();
    let waitEnded: "elapsed" | "interrupted" | undefined;
    const error = await runFailing(client, {}, controller.signal);
    expect(error.name).toBe("AbortError");
    expect(waitEnded).toBe("interrupted");
    expect(fake.requests).toHaveLength(1);
  });

  it("rejects at once when the signal is already aborted", async () => {
    const { fake, client } = await setup([textResponse(["never"])]);
    const controller = new AbortController();
    controller.abort();
    expect((await runFailing(client, {}, controller.signal)).name).toBe("AbortError");
    expect(fake.requests).toHaveLength(0);
  });

  it("fails a request that exceeds timeout_seconds, without retrying", async () => {
    const { fake, client } = await setup(
      [{ events: [sse.textDelta("slow")], mode: "chunked", end: "hang" }, textResponse(["never"])],
      { profile: { timeout_seconds: 0.3 } },
    );
    const error = await runFailing(client);
    expect(error.code).toBe("provider_error");
    expect(error.message).toBe("provider request timed out after 0.3 seconds");
    expect(fake.requests).toHaveLength(1);
  });

  it("does not retry a short Content-Length body after a delta", async () => {
    const { fake, client } = await setup([
      { events: [sse.textDelta("partial")], end: "destroy" },
      textResponse(["never"]),
    ]);
    const error = await runFailing(client);
    expect(error.message.startsWith("provider stream failed: ")).toBe(true);
    expect(fake.requests).toHaveLength(1);
  });

  it("later streams fail at once after close()", async () => {
    // Made by hand: this test closes the client itself.
    const fake = track(await startFakeProvider([textResponse(["ok"])]));
    const provider = makeClient(fake.url).client;
    await run(provider);
    await provider.close();
    await expect(run(provider)).rejects.toThrow("provider client is closed");
    expect(fake.requests).toHaveLength(1);
  });
});

describe("usage", () => {
  it("reports only the counts the provider sent", async () => {
    const { client } = await setup([
      textResponse(["a"], { input_tokens: 5, output_tokens: 1 }),
      textResponse(["b"], { input_tokens: 7 }),
      textResponse(["c"]),
    ]);
    expect((await run(client)).response.usage).toEqual({ input_tokens: 5, output_tokens: 1 });
    expect((await run(client)).response.usage).toEqual({ input_tokens: 7 });
    expect((await run(client)).response.usage).toEqual({});
  });
});
