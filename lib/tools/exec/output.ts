// The exec tool's output text (spec §9 `exec`): the cell's text items joined by `\n` (+ `Script error:\n<error>`),
// cut to the output limit at a character boundary; a termination line always ends the output.
import type { ContentItem } from "../../sandbox/index.ts";

export type CellEnd =
  | { kind: "result"; errorText: string | null }
  | { kind: "timed_out"; seconds: number }
  | { kind: "cancelled" };

export function execOutput(
  items: readonly ContentItem[],
  end: CellEnd,
  limitBytes: number,
): { text: string; truncated: boolean } {
  const parts: string[] = [];
  for (const item of items) if (item.type === "input_text") parts.push(item.text);
  if (end.kind === "result" && end.errorText !== null) parts.push(`Script error:\n${end.errorText}`);
  const body = parts.join("\n");
  const trailer = end.kind === "timed_out"
    ? `Script terminated: timed out after ${end.seconds} seconds`
    : end.kind === "cancelled"
    ? "Script terminated: cancelled"
    : undefined;
  if (trailer === undefined) return cutToBytes(body, limitBytes);
  if (body === "") return cutToBytes(trailer, limitBytes);
  // Keep the termination line whole: cut the cell's own output to make room for it.
  const room = Math.max(0, limitBytes - Buffer.byteLength(trailer) - 1);
  const cut = cutToBytes(body, room);
  return cutToBytes(`${cut.text}\n${trailer}`, limitBytes, cut.truncated);
}

/** `text` cut to at most `maxBytes` UTF-8 bytes at a character boundary. */
export function cutToBytes(
  text: string,
  maxBytes: number,
  alreadyTruncated = false,
): { text: string; truncated: boolean } {
  // UTF-16 length × 3 bounds the UTF-8 size, so most texts skip the byte count.
  if (text.length * 3 <= maxBytes || Buffer.byteLength(text) <= maxBytes) return { text, truncated: alreadyTruncated };
  const bytes = Buffer.from(text);
  let end = maxBytes;
  // Step back over continuation bytes to the first byte of the character that does not fit.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end -= 1;
  return { text: bytes.subarray(0, end).toString("utf8"), truncated: true };
}
