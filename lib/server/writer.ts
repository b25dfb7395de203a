// The single event writer of a connection (spec §2): compact JSON + "\n" per event, in order, with the
// session's `seq` assigned at the moment an event enters the stream (so seq follows write order without gaps),
// a server frame limit, and a bounded queue. Turn events wait for room (cancellable); control events are
// written at once and then get 3 s for the queue to come back under its limits.
import { abortError } from "../util/abort.ts";

import { MESSAGES, type ServerEvent } from "../protocol/index.ts";

export const WRITER_MAX_FRAMES = 256;
export const CONTROL_SEND_TIMEOUT_MS = 3000;

export class FrameLimitError extends Error {
  override name = "FrameLimitError";
  constructor() {
    super(MESSAGES.serverFrameTooLarge);
  }
}

/** The writer cannot make progress (broken stdout or control backpressure): the connection must end, exit 1. */
export class WriterFailedError extends Error {
  override name = "WriterFailedError";
}

export function writerMaxBytes(frameLimit: number): number {
  return Math.max(16 * 1024 * 1024, 2 * (frameLimit + 1));
}

type Waiter = () => void;

export class EventWriter {
  #stream: NodeJS.WritableStream;
  #frameLimit: number;
  #maxBytes: number;
  #frames = 0;
  #bytes = 0;
  #seq = 0;
  #waiters: Waiter[] = [];
  #batch: string[] = [];
  #batchBytes = 0;
  #flushScheduled = false;
  #failure: Error | undefined;
  #onFailure: (error: Error) => void;
  #controlTimeoutMs: number;

  constructor(
    stream: NodeJS.WritableStream,
    options: { frameLimit: number; onFailure: (error: Error) => void; controlTimeoutMs?: number },
  ) {
    this.#controlTimeoutMs = options.controlTimeoutMs ?? CONTROL_SEND_TIMEOUT_MS;
    this.#stream = stream;
    this.#frameLimit = options.frameLimit;
    this.#maxBytes = writerMaxBytes(options.frameLimit);
    this.#onFailure = options.onFailure;
    stream.on("error", (error: Error) => this.#fail(new WriterFailedError(`write protocol output: ${error.message}`)));
  }

  get failed(): boolean {
    return this.#failure !== undefined;
  }

  get seq(): number {
    return this.#seq;
  }

  setFrameLimit(frameLimit: number): void {
    this.#frameLimit = frameLimit;
    this.#maxBytes = writerMaxBytes(frameLimit);
  }

  /**
   * True when `event` would fit the frame limit (with `slack` bytes to spare, e.g. for a seq that grows a digit
   * before the event is written). Lets a caller refuse a request before changing any state.
   */
  fits(event: ServerEvent | { request_id: string }, slack = 0): boolean {
    const copy = Object.hasOwn(event, "seq") ? { ...event, seq: this.#seq + 1 } : event;
    return Buffer.byteLength(JSON.stringify(copy)) + slack <= this.#frameLimit;
  }

  /**
   * Writes a connection-level event (a reply or an error): throws FrameLimitError (nothing written, no seq used)
   * when it is larger than the frame limit; if the queue is over its limits afterwards, waits up to 3 s for
   * room, then fails the writer.
   */
  async control(event: ServerEvent): Promise<void> {
    if (this.#failure) return;
    const line = this.#encode(event);
    this.#commit(event);
    this.#push(line);
    if (this.#hasRoomFor(0)) return;
    const ok = await this.#waitForRoom(0, this.#controlTimeoutMs, undefined);
    if (!ok) this.#fail(new WriterFailedError(`protocol output was not drained within ${this.#controlTimeoutMs} ms`));
  }

  /**
   * Writes a turn event: throws FrameLimitError (nothing written, no seq used) when the event is larger than the
   * frame limit; waits for room in the queue, interruptible by `signal` (rejects with an AbortError).
   */
  async turn(event: ServerEvent, signal: AbortSignal): Promise<void> {
    if (this.#failure) throw this.#failure;
    let line = this.#encode(event);
    if (!this.#hasRoomFor(Buffer.byteLength(line))) {
      await this.#waitForRoom(Buffer.byteLength(line), undefined, signal);
      if (this.#failure) throw this.#failure;
      // Control events may have taken seq numbers meanwhile.
      line = this.#encode(event);
    }
    this.#commit(event);
    this.#push(line);
  }

  /** Resolves once everything written has been flushed, or after `timeoutMs` (false). */
  async drain(timeoutMs: number): Promise<boolean> {
    if (this.#frames === 0 || this.#failure) return this.#frames === 0;
    return new Promise((resolve) => {
      const timer = setTimeout(() => finish(false), timeoutMs);
      const check = () => {
        if (this.#frames === 0 || this.#failure) finish(this.#frames === 0);
        else this.#waiters.push(check);
      };
      const finish = (value: boolean) => {
        clearTimeout(timer);
        resolve(value);
      };
      this.#waiters.push(check);
    });
  }

  // Encodes with the next seq (not yet taken, see #commit) and checks the frame limit.
  #encode(event: ServerEvent): string {
    if (Object.hasOwn(event, "seq")) (event as { seq: number }).seq = this.#seq + 1;
    const json = JSON.stringify(event);
    if (json.length > this.#frameLimit / 3 && Buffer.byteLength(json) > this.#frameLimit) {
      throw new FrameLimitError();
    }
    return `${json}\n`;
  }

  #commit(event: ServerEvent): void {
    if (Object.hasOwn(event, "seq")) this.#seq += 1;
  }

  #hasRoomFor(size: number): boolean {
    return this.#frames < WRITER_MAX_FRAMES && this.#bytes + size <= this.#maxBytes;
  }

  // Lines written in the same turn of the event loop go out as one write (one syscall for a burst of deltas);
  // each still counts as a frame until its batch is flushed.
  #push(line: string): void {
    const size = Buffer.byteLength(line);
    this.#frames += 1;
    this.#bytes += size;
    this.#batch.push(line);
    this.#batchBytes += size;
    if (!this.#flushScheduled) {
      this.#flushScheduled = true;
      setImmediate(this.#flush);
    }
  }

  #flush = (): void => {
    this.#flushScheduled = false;
    const lines = this.#batch;
    const frames = lines.length;
    const bytes = this.#batchBytes;
    this.#batch = [];
    this.#batchBytes = 0;
    if (frames === 0) return;
    this.#stream.write(frames === 1 ? lines[0]! : lines.join(""), (error?: Error | null) => {
      this.#frames -= frames;
      this.#bytes -= bytes;
      if (error) this.#fail(new WriterFailedError(`write protocol output: ${error.message}`));
      this.#wake();
    });
  };

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const waiter of waiters) waiter();
  }

  #waitForRoom(size: number, timeoutMs: number | undefined, signal: AbortSignal | undefined): Promise<boolean> {
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const onAbort = () => {
        cleanup();
        reject(signal?.reason ?? abortError());
      };
      const cleanup = () => {
        if (timer) clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        const index = this.#waiters.indexOf(check);
        if (index >= 0) this.#waiters.splice(index, 1);
      };
      const check = () => {
        if (this.#failure || this.#hasRoomFor(size)) {
          cleanup();
          resolve(!this.#failure);
        } else {
          this.#waiters.push(check);
        }
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener("abort", onAbort, { once: true });
      if (timeoutMs !== undefined) {
        timer = setTimeout(() => {
          cleanup();
          resolve(false);
        }, timeoutMs);
      }
      this.#waiters.push(check);
    });
  }

  #fail(error: Error): void {
    if (this.#failure) return;
    this.#failure = error;
    this.#wake();
    this.#onFailure(error);
  }
}
