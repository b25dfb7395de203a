// Length-prefixed JSON frames of the code-mode host protocol (host spec §2): a 4-byte
// little-endian u32 payload length, then that many bytes of compact UTF-8 JSON.
import { concatBytes } from "./concat_bytes.ts";
import { waitForDrain } from "./ndjson_writer.ts";

export const MAX_FRAME_BYTES = 67_108_864;
const PREFIX_BYTES = 4;

export class FrameError extends Error {
  override name = "FrameError";
}

export function frameTooLargeMessage(length: number): string {
  return `code-mode IPC frame length ${length} exceeds ${MAX_FRAME_BYTES} bytes`;
}

/** Encodes once; the returned buffer can be written any number of times. */
export function encodeFrame(value: unknown): Buffer {
  const json = JSON.stringify(value);
  const length = Buffer.byteLength(json, "utf8");
  if (length > MAX_FRAME_BYTES) throw new FrameError(frameTooLargeMessage(length));
  const frame = Buffer.allocUnsafe(PREFIX_BYTES + length);
  frame.writeUInt32LE(length, 0);
  frame.write(json, PREFIX_BYTES, "utf8");
  return frame;
}

/** How a frame's JSON text becomes a value; JSON.parse unless the caller needs more (e.g. exact i64). */
export type PayloadParser = (text: string) => unknown;

export interface FrameReadOptions {
  parse?: PayloadParser;
}

/** Decodes one whole WebSocket message, which must hold exactly one frame. */
export function decodeFrameMessage(message: Uint8Array, options: FrameReadOptions = {}): unknown {
  if (message.length < PREFIX_BYTES) throw new FrameError("code-mode IPC frame is missing its length prefix");
  const declared = readLength(message, 0);
  if (declared > MAX_FRAME_BYTES) throw new FrameError(frameTooLargeMessage(declared));
  const contained = message.length - PREFIX_BYTES;
  if (contained !== declared) {
    throw new FrameError(`code-mode IPC frame declares ${declared} payload bytes but contains ${contained}`);
  }
  return parsePayload(message.subarray(PREFIX_BYTES), options.parse);
}

const payloadDecoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

export function parsePayload(payload: Uint8Array, parse: PayloadParser = JSON.parse): unknown {
  let text: string;
  try {
    text = payloadDecoder.decode(payload);
  } catch {
    throw new FrameError("failed to decode code-mode IPC frame: invalid UTF-8 in frame payload");
  }
  try {
    return parse(text);
  } catch (error) {
    throw new FrameError(`failed to decode code-mode IPC frame: ${(error as Error).message}`);
  }
}

function readLength(bytes: Uint8Array, offset: number): number {
  return (bytes[offset]! | (bytes[offset + 1]! << 8) | (bytes[offset + 2]! << 16)) + bytes[offset + 3]! * 0x1000000;
}

/**
 * Yields each frame's parsed JSON. Ends cleanly at EOF on a frame boundary; throws FrameError
 * `early eof` for EOF inside a frame, and checks a declared length before reading its payload.
 */
export async function* readFrames(
  source: AsyncIterable<Uint8Array>,
  options: FrameReadOptions = {},
): AsyncGenerator<unknown> {
  for await (const batch of readFrameBatches(source, options)) yield* batch;
}

/** Yields the frames of each chunk together: one await per chunk instead of per frame. */
export async function* readFrameBatches(
  source: AsyncIterable<Uint8Array>,
  options: FrameReadOptions = {},
): AsyncGenerator<unknown[]> {
  const decoder = new FrameDecoder(options);
  for await (const chunk of source) {
    const frames = decoder.push(chunk);
    if (frames.length > 0) yield frames;
  }
  decoder.end();
}

/**
 * The synchronous core of readFrames. A chunk's good frames are returned even when a later frame
 * of the same chunk is bad; the error is thrown by the next `push` or by `end`, and every call after.
 */
export class FrameDecoder {
  readonly #parse: PayloadParser;
  #error: unknown;
  #pending: Uint8Array[] = [];
  #pendingBytes = 0;
  // Payload length of the frame being read, or -1 while reading a prefix.
  #needed = -1;

  constructor(options: FrameReadOptions = {}) {
    this.#parse = options.parse ?? JSON.parse;
  }

  push(chunk: Uint8Array): unknown[] {
    if (this.#error !== undefined) throw this.#error;
    const frames: unknown[] = [];
    try {
      this.#decode(chunk, frames);
    } catch (error) {
      this.#error = error;
      if (frames.length === 0) throw error;
    }
    return frames;
  }

  #decode(chunk: Uint8Array, frames: unknown[]): void {
    let data = chunk;
    if (this.#pendingBytes > 0) {
      // Join only once the current step can complete, so a large payload is copied once.
      const want = this.#needed < 0 ? PREFIX_BYTES : this.#needed;
      this.#pending.push(chunk);
      this.#pendingBytes += chunk.length;
      if (this.#pendingBytes < want) return;
      data = concatBytes(this.#pending, this.#pendingBytes);
      this.#pending = [];
      this.#pendingBytes = 0;
    }
    let offset = 0;
    for (;;) {
      if (this.#needed < 0) {
        if (data.length - offset < PREFIX_BYTES) break;
        const needed = readLength(data, offset);
        if (needed > MAX_FRAME_BYTES) throw new FrameError(frameTooLargeMessage(needed));
        this.#needed = needed;
        offset += PREFIX_BYTES;
      }
      if (data.length - offset < this.#needed) break;
      const payload = data.subarray(offset, offset + this.#needed);
      offset += this.#needed;
      this.#needed = -1;
      frames.push(parsePayload(payload, this.#parse));
    }
    if (offset < data.length) {
      // Copy: the caller may reuse its buffer.
      this.#pending = [data.slice(offset)];
      this.#pendingBytes = data.length - offset;
    }
  }

  /** Throws a held error, or `early eof` when the stream ended inside a frame. */
  end(): void {
    if (this.#error !== undefined) throw this.#error;
    if (this.#pendingBytes > 0 || this.#needed >= 0) throw new FrameError("early eof");
  }
}

/** Writes whole frames, one `write` each so frames never interleave, honouring backpressure. */
export class FrameWriter {
  readonly #stream: NodeJS.WritableStream & { writableNeedDrain?: boolean };

  constructor(stream: NodeJS.WritableStream) {
    this.#stream = stream;
  }

  get writableNeedDrain(): boolean {
    return this.#stream.writableNeedDrain ?? false;
  }

  async write(frame: Buffer): Promise<void> {
    if (!this.#stream.write(frame)) await waitForDrain(this.#stream);
  }
}
