// The connection's bounded outgoing queue: frames are written one at a time, in order, by a
// single writer loop; a client that stops reading fills the queue and fails the connection
// instead of making the host buffer without bound.

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
  #queue: Buffer[] = [];
  #head = 0;
  #bytes = 0;
  #writing = false;
  #stopped = false;
  #sealed = false;
  #idle: (() => void)[] = [];

  constructor(sink: FrameSink, limits: { maxFrames: number; maxBytes: number }, onFatal: (message: string) => void) {
    this.#sink = sink;
    this.#maxFrames = limits.maxFrames;
    this.#maxBytes = limits.maxBytes;
    this.#onFatal = onFatal;
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
        // The transport wants a drain first: later frames queue behind this write.
        this.#writing = true;
        void this.#drain(pending);
      }
      return;
    }
    this.#queue.push(frame);
    this.#bytes += frame.length;
    if (!this.#writing) void this.#drain(undefined);
  }

  /** Accepts no new frames; what is queued is still written. */
  seal(): void {
    this.#sealed = true;
  }

  /** Drops everything queued and writes nothing more. */
  stop(): void {
    this.#stopped = true;
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

  /** Writes queued frames in order; `first` is a write still in progress. */
  async #drain(first: Promise<void> | undefined): Promise<void> {
    this.#writing = true;
    try {
      if (first) await first;
      while (!this.#stopped && this.#head < this.#queue.length) {
        const frame = this.#queue[this.#head]!;
        this.#queue[this.#head++] = EMPTY;
        this.#bytes -= frame.length;
        if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
          this.#queue = this.#queue.slice(this.#head);
          this.#head = 0;
        }
        const pending = this.#sink.write(frame);
        if (pending) await pending;
      }
    } catch (error) {
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
