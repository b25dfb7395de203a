// The files grep hands its worker in one message: read straight into one buffer of their own (which is then
// transferred, not copied), binary files and files without the pattern's required literal left out.

import { readSync } from "node:fs";
import type { MatchBatch } from "./regex_worker.ts";

const BINARY_PROBE_BYTES = 8192;

/** Files read for one message to the worker: their bytes back to back in a buffer of its own (transferred). */
export class Batch {
  readonly paths: string[] = [];
  readonly #files: Array<{ start: number; end: number }> = [];
  readonly #buffer: Buffer;
  #used = 0;

  constructor(capacity: number) {
    this.#buffer = Buffer.allocUnsafeSlow(capacity);
  }

  fits(size: number): boolean {
    return this.#used + size <= this.#buffer.length;
  }

  /**
   * Reads the open file `fd` (`size` bytes, which fit) into the batch, unless it is binary (a NUL byte in its
   * first 8 KiB) or lacks `literal`.
   */
  read(fd: number, size: number, path: string, literal: Buffer | undefined): void {
    const start = this.#used;
    let filled = 0;
    // The first bytes alone decide that a file is binary, before the rest is read.
    const probe = Math.min(BINARY_PROBE_BYTES, size);
    while (filled < size) {
      const read = readSync(fd, this.#buffer, start + filled, (filled < probe ? probe : size) - filled, filled);
      if (read === 0) break;
      filled += read;
      if (filled === probe && this.#buffer.subarray(start, start + probe).includes(0)) return;
    }
    const bytes = this.#buffer.subarray(start, start + filled);
    if (filled === 0 || bytes.subarray(0, BINARY_PROBE_BYTES).includes(0)) return;
    if (literal !== undefined && bytes.indexOf(literal) < 0) return;
    this.#used += filled;
    this.paths.push(path);
    this.#files.push({ start, end: start + filled });
  }

  take(): MatchBatch {
    return { data: this.#buffer.buffer as ArrayBuffer, files: this.#files };
  }
}
