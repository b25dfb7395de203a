// The retry notices behind `turn.retrying` (issue 22): one before each retry's wait, with the attempt that failed,
// the wait and a short reason, against real sockets on 127.0.0.1.
import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { RetryNotice } from "../../lib/provider/types.ts";
import { startFakeProvider, textResponse } from "../support/fake_provider.ts";
import { makeClient } from "./helpers.ts";

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

function request(notices: RetryNotice[]) {
  return {
    signal: new AbortController().signal,
    onTextDelta: () => {},
    onRetry: (notice: RetryNotice) => void notices.push(notice),
  };
}

const input = {
  model: "fake-model",
  instructions: "x",
  history: [{ kind: "user" as const, content: "hi" }],
  tools: [],
};

describe("retry notices", () => {
  it("name the HTTP status and the server's delay, one per retry, the attempt counting from 1", async () => {
    const provider = await startFakeProvider([
      { status: 429, headers: { "retry-after": "3" }, body: { error: { message: "x", type: "rate_limit_error" } } },
      { status: 502, body: "bad gateway" },
      textResponse(["ok"]),
    ]);
    closers.push(() => provider.close());
    const { client, delays } = makeClient(provider.url, { random: 0.5 });
    closers.push(() => client.close());
    const notices: RetryNotice[] = [];
    const response = await client.stream(input, request(notices));
    expect(response.text).toBe("ok");
    expect(notices).toEqual([
      { attempt: 1, max_attempts: 3, delay_ms: 3000, reason: "HTTP 429" },
      { attempt: 2, max_attempts: 3, delay_ms: 2000, reason: "HTTP 502" },
    ]);
    // Each notice comes before its wait, and announces the wait actually taken.
    expect(delays).toEqual([3000, 2000]);
  });

  it("call a reset connection a connection reset", async () => {
    let connections = 0;
    const server = net.createServer((socket) => {
      connections += 1;
      socket.once("data", () => {
        if (connections === 1) socket.resetAndDestroy();
        else {
          const body = 'event: response.completed\ndata: {"type":"response.completed","response":{}}\n\n';
          socket.end(
            `HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: ${body.length}\r\n` +
              `Connection: close\r\n\r\n${body}`,
          );
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    closers.push(() => new Promise((resolve) => server.close(() => resolve())));
    const { port } = server.address() as net.AddressInfo;
    const { client } = makeClient(`http://127.0.0.1:${port}/v1`);
    closers.push(() => client.close());
    const notices: RetryNotice[] = [];
    await client.stream(input, request(notices));
    expect(notices.map((notice) => notice.reason)).toEqual(["connection reset"]);
  });

  it("are not sent for a failure no retry fixes", async () => {
    const provider = await startFakeProvider([
      { status: 400, body: { error: { message: "bad", type: "invalid_request_error" } } },
    ]);
    closers.push(() => provider.close());
    const { client } = makeClient(provider.url);
    closers.push(() => client.close());
    const notices: RetryNotice[] = [];
    await expect(client.stream(input, request(notices))).rejects.toThrow("HTTP 400");
    expect(notices).toEqual([]);
  });
});
