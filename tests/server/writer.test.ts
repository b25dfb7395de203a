import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { events } from "../../lib/server/protocol.ts";
import { EventWriter, FrameLimitError, WRITER_MAX_FRAMES, writerMaxBytes } from "../../lib/server/writer.ts";
import { settle, waitFor } from "../support/wait.ts";

/** A sink that holds every write until released, like a client that stopped reading. */
class HeldSink extends Writable {
  chunks: string[] = [];
  #held: Array<() => void> = [];
  holding = true;
  constructor() {
    super({ highWaterMark: 1 });
  }
  override _write(chunk: Buffer, _encoding: string, callback: (error?: Error | null) => void): void {
    this.chunks.push(chunk.toString());
    if (this.holding) this.#held.push(() => callback());
    else callback();
  }
  release(): void {
    this.holding = false;
    const held = this.#held;
    this.#held = [];
    for (const callback of held) callback();
  }
}

const scope = { request_id: "r", session_id: "S", turn_id: "T" };
const flushed = () => new Promise((resolve) => setImmediate(resolve));
const linesOf = (sink: HeldSink) => sink.chunks.join("").split("\n").filter(Boolean).map((line) => JSON.parse(line));
const never = new AbortController().signal;

describe("EventWriter", () => {
  it("assigns seq in write order and leaves seq-less events alone", async () => {
    const sink = new HeldSink();
    sink.holding = false;
    const writer = new EventWriter(sink, { frameLimit: 65536, onFailure: () => {} });
    await writer.control(events.initialized("1", "0"));
    await writer.control(events.queueSnapshot("S", [], false));
    await writer.turn(events.turnStarted(scope), never);
    await writer.control(events.error("x", "invalid_request", "m"));
    await writer.turn(events.assistantDelta(scope, "hi"), never);
    await flushed();
    const parsed = linesOf(sink);
    expect(parsed.map((event) => event.seq)).toEqual([undefined, 1, 2, undefined, 3]);
    // One burst, one write, every frame newline-terminated.
    expect(sink.chunks).toHaveLength(1);
    expect(sink.chunks[0]!.endsWith("\n")).toBe(true);
    expect(sink.chunks[0]!.split("\n")).toHaveLength(6);
  });

  it("refuses a turn event over the frame limit without using a seq", async () => {
    const sink = new HeldSink();
    sink.holding = false;
    const writer = new EventWriter(sink, { frameLimit: 200, onFailure: () => {} });
    await expect(writer.turn(events.assistantDelta(scope, "x".repeat(200)), never)).rejects.toBeInstanceOf(
      FrameLimitError,
    );
    // Escaping counts: 40 quotes become 80 bytes of JSON.
    await expect(writer.turn(events.assistantDelta(scope, '"'.repeat(70)), never)).rejects.toThrow(
      "server event exceeds configured frame limit",
    );
    await writer.turn(events.assistantDelta(scope, "ok"), never);
    await flushed();
    expect(linesOf(sink).map((event) => event.seq)).toEqual([1]);
  });

  it("refuses a control event over the frame limit without using a seq, and measures events with fits()", async () => {
    const sink = new HeldSink();
    sink.holding = false;
    const writer = new EventWriter(sink, { frameLimit: 300, onFailure: () => {} });
    const big = events.queueUpdated({ request_id: "r", session_id: "S" }, {
      queue_id: "Q",
      revision: 2,
      prompt: "p".repeat(300),
      submitter: "r",
    });
    expect(writer.fits(big)).toBe(false);
    await expect(writer.control(big)).rejects.toBeInstanceOf(FrameLimitError);
    const small = events.sessionPaused({ request_id: "r", session_id: "S" }, true);
    const size = Buffer.byteLength(JSON.stringify({ ...small, seq: 1 }));
    expect(writer.fits(small, 300 - size)).toBe(true);
    expect(writer.fits(small, 301 - size)).toBe(false);
    await writer.control(small);
    await flushed();
    expect(linesOf(sink).map((event) => [event.type, event.seq])).toEqual([["session.paused", 1]]);
  });

  it("makes turn events wait for room and lets cancellation interrupt the wait", async () => {
    const sink = new HeldSink();
    const writer = new EventWriter(sink, { frameLimit: 65536, onFailure: () => {} });
    for (let index = 0; index < WRITER_MAX_FRAMES; index += 1)
      await writer.turn(events.assistantDelta(scope, "x"), never);
    const controller = new AbortController();
    let settled = false;
    const waiting = writer.turn(events.assistantDelta(scope, "waiting"), controller.signal).finally(() => {
      settled = true;
    });
    await settle();
    expect(settled).toBe(false);
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ name: "AbortError" });
    const resumed = writer.turn(events.assistantDelta(scope, "after"), never);
    sink.release();
    await resumed;
    await flushed();
    const last = linesOf(sink).at(-1);
    expect(last).toMatchObject({ content: "after", seq: WRITER_MAX_FRAMES + 1 });
    expect(await writer.drain(1000)).toBe(true);
  });

  it("fails the writer when control backpressure lasts past the timeout", async () => {
    const sink = new HeldSink();
    const failures: Error[] = [];
    const writer = new EventWriter(sink, {
      frameLimit: 65536,
      onFailure: (error) => failures.push(error),
      controlTimeoutMs: 50,
    });
    for (let index = 0; index < WRITER_MAX_FRAMES; index += 1)
      await writer.turn(events.assistantDelta(scope, "x"), never);
    await writer.control(events.error("r", "invalid_request", "m"));
    expect(failures).toHaveLength(1);
    expect(writer.failed).toBe(true);
    expect(await writer.drain(20)).toBe(false);
  });

  it("bounds the queue by bytes as well as frames", () => {
    expect(writerMaxBytes(8_388_608)).toBe(16 * 1024 * 1024 + 2);
    expect(writerMaxBytes(65_536)).toBe(16 * 1024 * 1024);
  });

  it("reports a broken stream as a failure", async () => {
    const failures: Error[] = [];
    const broken = new Writable({
      write(_chunk, _encoding, callback) {
        callback(new Error("EPIPE"));
      },
    });
    const writer = new EventWriter(broken, { frameLimit: 65536, onFailure: (error) => failures.push(error) });
    await writer.control(events.initialized("1", "0"));
    await waitFor(() => failures.length > 0, { what: "the write failure" });
    await settle();
    // Reported once, although both the write callback and the stream's error event saw it.
    expect(failures.map((failure) => failure.message)).toEqual(["write protocol output: EPIPE"]);
    expect(writer.failed).toBe(true);
  });
});
