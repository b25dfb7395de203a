// `provider.stream_idle_timeout_seconds` in the SSE client (issue 27 item 5): a stall before any output is retried
// like a dropped connection, a stall after text has streamed is not (a retry would repeat it), and a caller slow to
// take a delta is never mistaken for a stalled provider.
import { describe, expect, it } from "vitest";
import { sse, textResponse } from "../support/fake_provider.ts";
import { providerRequest, runFailingWithDeltas, useProviderClients } from "./helpers.ts";

const { setup } = useProviderClients({ profile: { stream_idle_timeout_seconds: 0.2 } });

const created = { type: "response.created", response: {} };

describe("the stream idle timeout", () => {
  it("retries a stream that stalls before any output, with a notice naming the slowness", async () => {
    const { fake, client, delays } = await setup([
      { events: [created], mode: "chunked", end: "hang" },
      textResponse(["second try"]),
    ]);
    const notices: string[] = [];
    const deltas: string[] = [];
    await client.stream(providerRequest({}), {
      signal: new AbortController().signal,
      onTextDelta: (text) => void deltas.push(text),
      onRetry: (notice) => void notices.push(notice.reason),
    });
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
    const { error, deltas } = await runFailingWithDeltas(client);
    expect(deltas).toEqual(["partial"]);
    expect(error.message).toBe(
      "provider stream stalled: nothing arrived for 0.2 seconds (provider.stream_idle_timeout_seconds)",
    );
    expect(fake.requests).toHaveLength(1);
  });

  it("does not count the time the caller takes over a delta", async () => {
    const { fake, client } = await setup([
      { events: [sse.textDelta("slow to take"), sse.completed()], mode: "chunked" },
    ]);
    const deltas: string[] = [];
    await client.stream(providerRequest({}), {
      signal: new AbortController().signal,
      // Five idle timeouts inside the caller: the provider sent everything at once and is not to blame.
      onTextDelta: async (text) => {
        deltas.push(text);
        await new Promise((resolve) => setTimeout(resolve, 1000));
      },
    });
    expect(deltas).toEqual(["slow to take"]);
    expect(fake.requests).toHaveLength(1);
  });
});
