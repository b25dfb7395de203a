// Cutting text to a byte or character budget without splitting a character.

/** The length of `bytes` without an incomplete UTF-8 sequence at its very end. */
export function completeUtf8Length(bytes: Uint8Array): number {
  const length = bytes.length;
  // Walk back over at most 3 continuation bytes to the lead byte of the last sequence.
  for (let back = 1; back <= Math.min(4, length); back += 1) {
    const byte = bytes[length - back]!;
    if ((byte & 0xc0) === 0x80) continue;
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return needed > back ? length - back : length;
  }
  return length;
}

/** `text` cut to at most `max` UTF-8 bytes at a character boundary. */
export function cutToBytes(text: string, max: number): string {
  if (Buffer.byteLength(text, "utf8") <= max) return text;
  let result = "";
  let size = 0;
  for (const character of text) {
    const length = Buffer.byteLength(character, "utf8");
    if (size + length > max) break;
    result += character;
    size += length;
  }
  return result;
}

/** `value` cut to `max` characters (code points), with `…` when anything was cut. */
export function boundedChars(value: string, max: number): string {
  const characters = Array.from(value);
  return characters.length > max ? characters.slice(0, max).join("") + "…" : value;
}
