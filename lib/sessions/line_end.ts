import { fstatSync, ftruncateSync, readSync } from "node:fs";

const CHUNK = 65536;

/** Cuts a torn last line (a writer killed mid-line) off the file open at `fd`, keeping every complete line. */
export function truncateTornTail(fd: number): void {
  const size = fstatSync(fd).size;
  if (size === 0 || endsWithNewline(fd)) return;
  const buffer = Buffer.alloc(CHUNK);
  for (let end = size; end > 0; end -= CHUNK) {
    const start = Math.max(0, end - CHUNK);
    const read = readSync(fd, buffer, 0, end - start, start);
    const newline = buffer.subarray(0, read).lastIndexOf(0x0a);
    if (newline >= 0) {
      ftruncateSync(fd, start + newline + 1);
      return;
    }
  }
  ftruncateSync(fd, 0);
}

/** True when the file open at `fd` is empty or ends with a newline (else a torn line is there to be closed). */
export function endsWithNewline(fd: number): boolean {
  const size = fstatSync(fd).size;
  if (size === 0) return true;
  const last = Buffer.alloc(1);
  readSync(fd, last, 0, 1, size - 1);
  return last[0] === 0x0a;
}
