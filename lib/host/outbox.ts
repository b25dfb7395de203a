// The connection's bounded outgoing queue: frames are written one at a time, in order, by a
// single writer loop. Every frame is charged to the connection's output budget until the transport
// took it, so that a client that stops reading stops the cells' output upstream (their sandbox
// processes are no longer read); only what does not wait on that budget (responses, delegate
// requests of a client that keeps asking while not reading) can fill the queue, which then fails
// the connection instead of making the host buffer without bound.
import type { OutputBudget } from "../sandbox/index.ts";

export interface FrameSink {
  /** Writes one whole frame; resolves when the transport can take more. */
  write(frame: Buffer): Promise<void> | void;
}

export const OUTGOING_QUEUE_FULL = "code-mode host outgoing queue is full";

export class Outbox {
  readonly #sink: FrameSink;
  readonly #maxFrames: number;
  readonly #maxBytes: number;
  readonly #onFatal: (message: string) => void;
  readonly #budget: OutputBudget | null;
  #queue: Buffer[] = [];
  #head = 0;
  #bytes = 0;
  #writing = false;
  #stopped = false;
  #sealed = false;
  #idle: (() => void)[] = [];

  constructor(
    sink: FrameSink,
    limits: { maxFrames: number; maxBytes: number },
    onFatal: (message: string) => void,
    budget: OutputBudget | null = null,
  ) {
    this.#sink = sink;
    this.#maxFrames = limits.maxFrames;
    this.#maxBytes = limits.maxBytes;
    this.#onFatal = onFatal;
    this.#budget = budget;
  }

  get stopped(): boolean {
    return this.#stopped;
  }

  push(frame: Buffer): void {
    if (this.#stopped || this.#sealed) return;
    const queued = this.#queue.length - this.#head;
    if (queued >= this.#maxFrames || (queued > 0 && this.#bytes + frame.length > this.#maxBytes)) {
      this.stop();
      this.#onFatal(OUTGOING_QUEUE_FULL);
      return;
    }
    if (!this.#writing && queued === 0) {
      // Fast path (the delegate round trip): the transport takes the frame at once.
      let pending: Promise<void> | void;
      try {
        pending = this.#sink.write(frame);
      } catch (error) {
        this.#writeFailed(error);
        return;
      }
      if (pending) {
        // The transport wants a drain first: later frames queue behind this write, and the frame
        // counts until it left.
        this.#budget?.charge(frame.length);
        this.#writing = true;
        void this.#drain(pending, frame.length);
      }
      return;
    }
    this.#budget?.charge(frame.length);
    this.#queue.push(frame);
    this.#bytes += frame.length;
    if (!this.#writing) void this.#drain(undefined, 0);
  }

  /** Accepts no new frames; what is queued is still written. */
  seal(): void {
    this.#sealed = true;
  }

  /** Drops everything queued and writes nothing more. */
  stop(): void {
    this.#stopped = true;
    this.#budget?.release(this.#bytes);
    this.#queue = [];
    this.#head = 0;
    this.#bytes = 0;
    this.#settleIdle();
  }

  /** Resolves once every queued frame was handed to the transport (or the outbox stopped). */
  flushed(): Promise<void> {
    if (!this.#writing || this.#stopped) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  /** Writes queued frames in order; `first` is a write still in progress, of `firstBytes`. */
  async #drain(first: Promise<void> | undefined, firstBytes: number): Promise<void> {
    this.#writing = true;
    // The frame the transport holds: charged until it left.
    let inTransport = firstBytes;
    try {
      if (first) await first;
      this.#budget?.release(inTransport);
      inTransport = 0;
      while (!this.#stopped && this.#head < this.#queue.length) {
        const frame = this.#queue[this.#head]!;
        this.#queue[this.#head++] = EMPTY;
        this.#bytes -= frame.length;
        if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
          this.#queue = this.#queue.slice(this.#head);
          this.#head = 0;
        }
        inTransport = frame.length;
        const pending = this.#sink.write(frame);
        if (pending) await pending;
        this.#budget?.release(inTransport);
        inTransport = 0;
      }
    } catch (error) {
      this.#budget?.release(inTransport);
      this.#writeFailed(error);
    } finally {
      this.#writing = false;
      if (this.#head >= this.#queue.length) {
        this.#queue = [];
        this.#head = 0;
      }
      this.#settleIdle();
    }
  }

  #writeFailed(error: unknown): void {
    if (this.#stopped) return;
    this.stop();
    this.#onFatal(`failed to write code-mode host frame: ${(error as Error).message}`);
  }

  #settleIdle(): void {
    if (this.#writing && !this.#stopped) return;
    const waiters = this.#idle;
    this.#idle = [];
    for (const resolve of waiters) resolve();
  }
}

const EMPTY = Buffer.alloc(0);
