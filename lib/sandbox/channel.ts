// The host's end of a sandbox process's channel: frames of a 4-byte little-endian length and JSON
// (the format of lib/codec/frame.ts) over the child's stdin and stdout. Nothing in them is trusted:
// a frame over `maxBytes` (checked on its length prefix, before it is buffered) or one that is not
// JSON ends the channel (the caller kills the child). Strings longer than a frame may carry travel
// in `part` messages ahead of their message (child_main.ts); `PartAssembler` joins them.

/**
 * Largest frame a sandbox process may send: a part carries at most 256 Ki UTF-16 units (6 bytes
 * each at worst, as `\u001f`), and a message at most two of its own strings below that.
 */
export const MAX_CHANNEL_FRAME_BYTES = 4 * 1024 * 1024;

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
    return this.frames(chunk).map((frame) => frame.message);
  }

  /** Like `push`, with each message's frame size (prefix included). */
  frames(chunk: Buffer): { message: unknown; bytes: number }[] {
    this.#pending.push(chunk);
    this.#pendingBytes += chunk.length;
    const messages: { message: unknown; bytes: number }[] = [];
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
        messages.push({ message: JSON.parse(text) as unknown, bytes: 4 + length });
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

/** The fields a part may carry (child_main.ts streams these when long). */
const PART_FIELDS = new Set(["v", "e", "w"]);

/**
 * Joins `part` messages into the message they precede. The first part announces the UTF-16 length
 * of all the parts (`n`); more than that, or a message that arrives before all of it, breaks the
 * channel, as does an announcement over `maxChars`.
 */
export class PartAssembler {
  readonly #maxChars: number;
  #parts = new Map<string, string[]>();
  #declared = -1;
  #received = 0;

  constructor(maxChars: number) {
    this.#maxChars = maxChars;
  }

  /** Whether parts of a message were announced and its message has not arrived yet. */
  get inProgress(): boolean {
    return this.#declared >= 0;
  }

  /** The length a first part announces (validated), or null when `message` is no first part. */
  announced(message: unknown): number | null {
    if (this.inProgress || !isPart(message)) return null;
    const n = (message as { n?: unknown }).n;
    if (!Number.isSafeInteger(n) || (n as number) <= 0 || (n as number) > this.#maxChars) {
      throw new ChannelError(`sandbox message parts announce ${String(n)} characters (limit ${this.#maxChars})`);
    }
    return n as number;
  }

  /** Null when `message` was a part; else the message, with its parts joined in front of their fields. */
  accept(message: unknown): unknown {
    if (isPart(message)) {
      const part = message as { f?: unknown; v?: unknown; n?: unknown };
      if (typeof part.f !== "string" || !PART_FIELDS.has(part.f) || typeof part.v !== "string") {
        throw new ChannelError("sandbox message part is malformed");
      }
      if (!this.inProgress) this.#declared = this.announced(message)!;
      else if (part.n !== undefined) throw new ChannelError("sandbox message part announces a length twice");
      this.#received += part.v.length;
      if (this.#received > this.#declared) {
        throw new ChannelError(`sandbox message parts exceed the ${this.#declared} characters they announced`);
      }
      const list = this.#parts.get(part.f) ?? [];
      list.push(part.v);
      this.#parts.set(part.f, list);
      return null;
    }
    if (!this.inProgress) return message;
    if (this.#received !== this.#declared || typeof message !== "object" || message === null) {
      throw new ChannelError("sandbox message arrived before all of its parts");
    }
    const record = message as Record<string, unknown>;
    for (const [field, list] of this.#parts) {
      const tail = record[field];
      if (typeof tail !== "string") throw new ChannelError("sandbox message lacks the field its parts belong to");
      record[field] = list.join("") + tail;
    }
    this.#parts = new Map();
    this.#declared = -1;
    this.#received = 0;
    return record;
  }
}

function isPart(message: unknown): boolean {
  return typeof message === "object" && message !== null && (message as { t?: unknown }).t === "part";
}
