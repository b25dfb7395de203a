// `provider.stream_idle_timeout_seconds` in the SSE client (issue 27 item 5): a stall before any output is retried
// like a dropped connection, a stall after text has streamed is not (a retry would repeat it), and a caller slow to
// take a delta is never mistaken for a stalled provider.
//
// Time is the subject: the client's timers run on a fake clock (the fake provider and the sockets stay real), and a
// test moves it on only once the stream is where the stall must happen. On the real clock, a process that a busy
// machine leaves unscheduled for 0.2 s would see a stall that the provider never made.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { sse, textResponse } from "../support/fake_provider.ts";
import { waitFor } from "../support/wait.ts";
import { providerRequest, useProviderClients } from "./helpers.ts";

const IDLE_MS = 200;
const { setup } = useProviderClients({ profile: { stream_idle_timeout_seconds: IDLE_MS / 1000 } });

const created = { type: "response.created", response: {} };

beforeEach(() => void vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] }));
afterEach(() => void vi.useRealTimers());

/** Moves the fake clock on by one idle timeout at a time until `done()` holds (checked before each move). */
function stallUntil(done: () => boolean, what: string): Promise<boolean> {
  return waitFor(() => {
    if (done()) return true;
    vi.advanceTimersByTime(IDLE_MS);
    return false;
  }, { what });
}

describe("the stream idle timeout", () => {
  it("retries a stream that stalls before any output, with a notice naming the slowness", async () => {
    const { fake, client, delays } = await setup([
      { events: [created], mode: "chunked", end: "hang" },
      textResponse(["second try"]),
    ]);
    const notices: string[] = [];
    const deltas: string[] = [];
    const streamed = client.stream(providerRequest({}), {
      signal: new AbortController().signal,
      onTextDelta: (text) => void deltas.push(text),
      onRetry: (notice) => void notices.push(notice.reason),
    });
    // The clock stops once the retry reached the provider: its attempt never sees the clock move.
    await stallUntil(() => fake.requests.length === 2, "the retry after the stall");
    await streamed;
    expect(deltas).toEqual(["second try"]);
    expect(notices).toEqual(["the provider is slow: nothing arrived for 0.2 s"]);
    expect(delays).toHaveLength(1);
    expect(fake.requests).toHaveLength(2);
  });

  it("does not retry once text has streamed", async () => {
    const { fake, client } = await setup([
      { events: [sse.textDelta("partial")], mode: "chunked", end: "hang" },
      textResponse(["never asked for"]),
    ]);
    const deltas: string[] = [];
    let error: Error | undefined;
    let settled = false;
    const outcome = client.stream(providerRequest({}), {
      signal: new AbortController().signal,
      onTextDelta: (text) => void deltas.push(text),
    }).then(() => undefined, (rejection: Error) => (error = rejection)).finally(() => (settled = true));
    // The stall comes after the text reached the caller.
    await waitFor(() => deltas.length === 1, { what: "the streamed text" });
    await stallUntil(() => settled, "the stalled stream's outcome");
    await outcome;
    expect(deltas).toEqual(["partial"]);
    expect(error?.message).toBe(
      "provider stream stalled: nothing arrived for 0.2 seconds (provider.stream_idle_timeout_seconds)",
    );
    expect(fake.requests).toHaveLength(1);
  });

  it("does not count the time the caller takes over a delta", async () => {
    const { fake, client } = await setup([
      { events: [sse.textDelta("slow to take"), sse.completed()], mode: "chunked" },
    ]);
    const deltas: string[] = [];
    const streamed = client.stream(providerRequest({}), {
      signal: new AbortController().signal,
      // Five idle timeouts inside the caller: the provider sent everything at once and is not to blame.
      onTextDelta: async (text) => {
        deltas.push(text);
        await new Promise((resolve) => setTimeout(resolve, 5 * IDLE_MS));
      },
    });
    await waitFor(() => deltas.length === 1, { what: "the delta" });
    vi.advanceTimersByTime(5 * IDLE_MS);
    await streamed;
    expect(deltas).toEqual(["slow to take"]);
    expect(fake.requests).toHaveLength(1);
  });
});
