// How much undelivered output one caller (a host connection) lets pile up: cell output read from
// sandbox processes and not yet delivered, and encoded frames not yet taken by the transport. Over
// the limit, sandbox processes are no longer read (their writes block, and so do their cells) until
// delivery makes room, so a client that stops reading holds the host's memory at about the limit.
// Units are bytes as they travel (UTF-8 JSON), which is about what a string costs in memory.

interface Waiter {
  needed: number;
  resume: () => void;
}

export class OutputBudget {
  readonly limit: number;
  #used = 0;
  #waiters: Waiter[] = [];
  #waking = false;

  constructor(limit: number) {
    this.limit = limit;
  }

  get used(): number {
    return this.#used;
  }

  /** Whether `needed` more fits: within the limit, or alone (so that one large message can always pass). */
  fits(needed: number): boolean {
    return this.#used === 0 || this.#used + needed <= this.limit;
  }

  charge(bytes: number): void {
    this.#used += bytes;
  }

  release(bytes: number): void {
    if (bytes <= 0) return;
    this.#used = Math.max(0, this.#used - bytes);
    if (this.#waiters.length > 0) this.#wake();
  }

  /** Calls `resume` (once) when `needed` more fits; the returned function cancels the wait. */
  wait(needed: number, resume: () => void): () => void {
    const waiter = { needed, resume };
    if (this.fits(needed)) {
      queueMicrotask(resume);
      return () => undefined;
    }
    this.#waiters.push(waiter);
    return () => {
      const index = this.#waiters.indexOf(waiter);
      if (index >= 0) this.#waiters.splice(index, 1);
    };
  }

  #wake(): void {
    // A resumed waiter may charge at once; the next one is judged after it.
    if (this.#waking) return;
    this.#waking = true;
    try {
      for (let i = 0; i < this.#waiters.length;) {
        const waiter = this.#waiters[i]!;
        if (!this.fits(waiter.needed)) {
          i++;
          continue;
        }
        this.#waiters.splice(i, 1);
        waiter.resume();
      }
    } finally {
      this.#waking = false;
    }
  }
}
