// The host's end of a sandbox process's channel: frames of a 4-byte little-endian length and JSON
// (the format of lib/codec/frame.ts) over the child's stdin and stdout. Unlike the host protocol's
// frames, these may be as large as a cell's output budget allows, and nothing in them is trusted:
// a frame over `maxBytes` or one that is not JSON ends the channel (the caller kills the child).

export class ChannelError extends Error {
  override name = "ChannelError";
}

export function encodeMessage(message: unknown): Buffer {
  const json = JSON.stringify(message);
  const length = Buffer.byteLength(json, "utf8");
  const frame = Buffer.allocUnsafe(4 + length);
  frame.writeUInt32LE(length, 0);
  frame.write(json, 4, "utf8");
  return frame;
}

export class MessageDecoder {
  readonly #maxBytes: number;
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  /** Bytes the frame being read needs in all (its prefix included); 0 while reading a prefix. */
  #needed = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /** The messages completed by `chunk`; throws ChannelError on a frame that breaks the rules. */
  push(chunk: Buffer): unknown[] {
    this.#pending.push(chunk);
    this.#pendingBytes += chunk.length;
    const messages: unknown[] = [];
    // A large frame is joined once, when it is complete.
    if (this.#pendingBytes < Math.max(4, this.#needed)) return messages;
    let data = this.#pending.length === 1 ? chunk : Buffer.concat(this.#pending, this.#pendingBytes);
    let offset = 0;
    while (data.length - offset >= 4) {
      const length = data.readUInt32LE(offset);
      if (length > this.#maxBytes)
        throw new ChannelError(`sandbox message of ${length} bytes exceeds ${this.#maxBytes}`);
      if (data.length - offset - 4 < length) {
        this.#needed = 4 + length;
        break;
      }
      this.#needed = 0;
      const text = data.toString("utf8", offset + 4, offset + 4 + length);
      offset += 4 + length;
      try {
        messages.push(JSON.parse(text) as unknown);
      } catch {
        throw new ChannelError("sandbox message is not JSON");
      }
    }
    data = data.subarray(offset);
    this.#pending = data.length === 0 ? [] : [data];
    this.#pendingBytes = data.length;
    return messages;
  }
}
