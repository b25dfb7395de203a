// Reads newline-delimited JSON from a byte stream, one result per line, so that a caller can
// answer a bad line and keep reading. Oversize lines are discarded as they stream in, never buffered.
import { concatBytes } from "./concat_bytes.ts";

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

/** Yields one item per line of `source`. */
export async function* readNdjson(
  source: AsyncIterable<Uint8Array>,
  options: NdjsonReadOptions,
): AsyncGenerator<NdjsonItem> {
  for await (const batch of readNdjsonBatches(source, options)) yield* batch;
}

/** Yields the items of each chunk together: the fast path, one await per chunk instead of per line. */
export async function* readNdjsonBatches(
  source: AsyncIterable<Uint8Array>,
  options: NdjsonReadOptions,
): AsyncGenerator<NdjsonItem[]> {
  const decoder = new NdjsonDecoder(options);
  for await (const chunk of source) {
    const items = decoder.push(chunk);
    if (items.length > 0) yield items;
  }
  const rest = decoder.end();
  if (rest.length > 0) yield rest;
}

/** The synchronous core: push chunks in, take the items of the lines they complete. */
export class NdjsonDecoder {
  readonly #limit: () => number;
  readonly #decoder: Utf8Decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  // Bytes of the current, unfinished line (only while it is within the limit).
  #carry: Uint8Array[] = [];
  #carryBytes = 0;
  // Size of the current line while it is being discarded; -1 when not discarding.
  #discarded = -1;

  constructor(options: NdjsonReadOptions) {
    const { maxLineBytes } = options;
    this.#limit = typeof maxLineBytes === "function" ? maxLineBytes : () => maxLineBytes;
  }

  push(chunk: Uint8Array): NdjsonItem[] {
    const items: NdjsonItem[] = [];
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      if (newline === -1) {
        this.#keep(chunk.subarray(start));
        break;
      }
      if (this.#discarded >= 0) {
        let size = this.#discarded + newline - start;
        if (newline > 0 && chunk[newline - 1] === CARRIAGE_RETURN) size--;
        this.#discarded = -1;
        // Too large even if the limit grew meanwhile: the line's start is gone.
        items.push({ ok: false, error: { kind: "too_large", size } });
      } else if (this.#carryBytes === 0) {
        // Fast path: decode all complete lines of this chunk at once.
        const lastNewline = chunk.lastIndexOf(NEWLINE);
        this.#decodeLines(chunk.subarray(start, lastNewline + 1), items);
        start = lastNewline + 1;
        continue;
      } else {
        this.#carry.push(chunk.subarray(start, newline));
        const line = concatBytes(this.#carry, this.#carryBytes + newline - start);
        this.#carry = [];
        this.#carryBytes = 0;
        items.push(this.#parseLine(line));
      }
      start = newline + 1;
    }
    return items;
  }

  /** Ends the stream: an unterminated last line still counts. */
  end(): NdjsonItem[] {
    const items: NdjsonItem[] = [];
    if (this.#discarded >= 0) {
      items.push({ ok: false, error: { kind: "too_large", size: this.#discarded } });
    } else if (this.#carryBytes > 0) {
      items.push(this.#parseLine(concatBytes(this.#carry, this.#carryBytes)));
    }
    this.#carry = [];
    this.#carryBytes = 0;
    this.#discarded = -1;
    return items;
  }

  #keep(rest: Uint8Array): void {
    if (this.#discarded >= 0) {
      this.#discarded += rest.length;
    } else if (this.#carryBytes + rest.length > this.#limit() + 1) {
      // +1 leaves room for a CR that is stripped later.
      this.#discarded = this.#carryBytes + rest.length;
      this.#carry = [];
      this.#carryBytes = 0;
    } else {
      // Copy: the caller may reuse its buffer.
      this.#carry.push(rest.slice());
      this.#carryBytes += rest.length;
    }
  }

  /** Decodes `bytes`, which holds complete lines each ending in "\n". */
  #decodeLines(bytes: Uint8Array, items: NdjsonItem[]): void {
    let text: string;
    try {
      text = this.#decoder.decode(bytes);
    } catch {
      // Some line is not UTF-8: go line by line so only that line fails.
      let start = 0;
      while (start < bytes.length) {
        const newline = bytes.indexOf(NEWLINE, start);
        items.push(this.#parseLine(bytes.subarray(start, newline)));
        start = newline + 1;
      }
      return;
    }
    const ascii = text.length === bytes.length;
    const max = this.#limit();
    let start = 0;
    while (start < text.length) {
      const newline = text.indexOf("\n", start);
      let end = newline;
      if (end > start && text.charCodeAt(end - 1) === CARRIAGE_RETURN) end--;
      const line = text.slice(start, end);
      start = newline + 1;
      // A UTF-16 code unit is at most 3 UTF-8 bytes, so short lines need no byte count.
      if (line.length * 3 > max) {
        const size = ascii ? line.length : Buffer.byteLength(line, "utf8");
        if (size > max) {
          items.push({ ok: false, error: { kind: "too_large", size } });
          continue;
        }
      }
      items.push(parseText(line));
    }
  }

  #parseLine(bytes: Uint8Array): NdjsonItem {
    let end = bytes.length;
    if (end > 0 && bytes[end - 1] === CARRIAGE_RETURN) end--;
    if (end > this.#limit()) return { ok: false, error: { kind: "too_large", size: end } };
    let text: string;
    try {
      text = this.#decoder.decode(bytes.subarray(0, end));
    } catch {
      return { ok: false, error: { kind: "invalid_json", message: "line is not valid UTF-8" } };
    }
    return parseText(text);
  }
}

function parseText(text: string): NdjsonItem {
  if (text.length === 0) return { ok: false, error: { kind: "empty" } };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, error: { kind: "invalid_json", message: (error as Error).message } };
  }
}
