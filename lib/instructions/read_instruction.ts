// Reading one instruction file within what is left of the byte budget, without splitting a character. A file
// that is not a regular file, that cannot be read, or whose real path the caller refuses counts as absent.
import { open, realpath } from "node:fs/promises";
import { completeUtf8Length } from "../util/text_bounds.ts";

export type ReadInstruction = {
  /** The text kept (at most `budget` bytes). */
  text: string;
  /** Bytes kept. */
  bytes: number;
  /** The file's whole size in bytes. */
  size: number;
  /** The real path the file resolved to. */
  real: string;
};

/**
 * Reads `file` (following links), keeping at most `budget` bytes. `accept(real)` decides whether the resolved file
 * may be read at all (a link out of the repository, or to a secret, may not). Undefined when the file is absent,
 * refused, not a regular file, or unreadable.
 */
export async function readInstruction(
  file: string,
  budget: number,
  accept: (real: string) => boolean,
): Promise<ReadInstruction | undefined> {
  let real: string;
  try {
    real = await realpath(file);
  } catch {
    return undefined;
  }
  if (!accept(real)) return undefined;
  let handle;
  try {
    handle = await open(real, "r");
    const stat = await handle.stat();
    if (!stat.isFile()) return undefined;
    const length = Math.max(0, Math.min(stat.size, budget));
    const buffer = Buffer.alloc(length);
    const { bytesRead } = length === 0 ? { bytesRead: 0 } : await handle.read(buffer, 0, length, 0);
    const read = buffer.subarray(0, bytesRead);
    const kept = stat.size > bytesRead ? read.subarray(0, completeUtf8Length(read)) : read;
    return { text: kept.toString("utf8"), bytes: kept.length, size: stat.size, real };
  } catch {
    return undefined;
  } finally {
    await handle?.close();
  }
}
