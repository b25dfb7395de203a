// Reads newline-delimited JSON from a byte stream, one result per line, so that a caller can
// answer a bad line and keep reading. Oversize lines are discarded as they stream in, never buffered.

export type NdjsonError =
  | { kind: "empty" }
  | { kind: "too_large"; size: number }
  | { kind: "invalid_json"; message: string };

export type NdjsonItem = { ok: true; value: unknown } | { ok: false; error: NdjsonError };

export interface NdjsonReadOptions {
  /** Largest accepted line in bytes, not counting the line ending; may change between lines. */
  maxLineBytes: number | (() => number);
}

type Utf8Decoder = InstanceType<typeof TextDecoder>;

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

export async function* readNdjson(
  source: AsyncIterable<Uint8Array>,
  options: NdjsonReadOptions,
): AsyncGenerator<NdjsonItem> {
  const limit = typeof options.maxLineBytes === "function" ? options.maxLineBytes : () => options.maxLineBytes as number;
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  // Bytes of the current, unfinished line (only while it is within the limit).
  let carry: Uint8Array[] = [];
  let carryBytes = 0;
  // Size of the current line while it is being discarded; -1 when not discarding.
  let discarded = -1;

  for await (const chunk of source) {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      if (newline === -1) {
        const rest = chunk.subarray(start);
        if (discarded >= 0) {
          discarded += rest.length;
        } else if (carryBytes + rest.length > limit() + 1) {
          // +1 leaves room for a CR that is stripped later.
          discarded = carryBytes + rest.length;
          carry = [];
          carryBytes = 0;
        } else {
          carry.push(rest.slice());
          carryBytes += rest.length;
        }
        break;
      }
      if (discarded >= 0) {
        const size = withoutCr(discarded + newline - start, chunk, newline);
        discarded = -1;
        // Reported as too large even if the limit grew meanwhile: the line's start is gone.
        yield { ok: false, error: { kind: "too_large", size } };
        start = newline + 1;
        continue;
      }
      if (carryBytes === 0) {
        // Fast path: decode whole runs of complete lines in this chunk at once.
        const lastNewline = chunk.lastIndexOf(NEWLINE);
        yield* decodeLines(chunk.subarray(start, lastNewline + 1), decoder, limit);
        start = lastNewline + 1;
        continue;
      }
      carry.push(chunk.subarray(start, newline));
      const line = concat(carry, carryBytes + newline - start);
      carry = [];
      carryBytes = 0;
      yield parseLine(line, decoder, limit);
      start = newline + 1;
    }
  }
  if (discarded >= 0) {
    yield { ok: false, error: { kind: "too_large", size: discarded } };
  } else if (carryBytes > 0) {
    yield parseLine(concat(carry, carryBytes), decoder, limit);
  }
}

function withoutCr(size: number, chunk: Uint8Array, newline: number): number {
  return newline > 0 && chunk[newline - 1] === CARRIAGE_RETURN ? size - 1 : size;
}

/** Decodes `bytes`, which holds complete lines each ending in "\n". */
function* decodeLines(bytes: Uint8Array, decoder: Utf8Decoder, limit: () => number): Generator<NdjsonItem> {
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    // Some line is not UTF-8: fall back to line by line so only that line fails.
    let start = 0;
    while (start < bytes.length) {
      const newline = bytes.indexOf(NEWLINE, start);
      yield parseLine(bytes.subarray(start, newline), decoder, limit);
      start = newline + 1;
    }
    return;
  }
  const ascii = text.length === bytes.length;
  let start = 0;
  while (start < text.length) {
    const newline = text.indexOf("\n", start);
    let end = newline;
    if (end > start && text.charCodeAt(end - 1) === CARRIAGE_RETURN) end--;
    const line = text.slice(start, end);
    start = newline + 1;
    const max = limit();
    if (line.length * 3 > max) {
      const size = ascii ? line.length : Buffer.byteLength(line, "utf8");
      if (size > max) {
        yield { ok: false, error: { kind: "too_large", size } };
        continue;
      }
    }
    yield parseText(line);
  }
}

function parseLine(bytes: Uint8Array, decoder: Utf8Decoder, limit: () => number): NdjsonItem {
  let end = bytes.length;
  if (end > 0 && bytes[end - 1] === CARRIAGE_RETURN) end--;
  if (end > limit()) return { ok: false, error: { kind: "too_large", size: end } };
  let text: string;
  try {
    text = decoder.decode(bytes.subarray(0, end));
  } catch {
    return { ok: false, error: { kind: "invalid_json", message: "line is not valid UTF-8" } };
  }
  return parseText(text);
}

function parseText(text: string): NdjsonItem {
  if (text.length === 0) return { ok: false, error: { kind: "empty" } };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, error: { kind: "invalid_json", message: (error as Error).message } };
  }
}

function concat(parts: Uint8Array[], total: number): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(total);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
