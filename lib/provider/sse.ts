// Splits an SSE byte stream into events with a per-event byte limit, then lets
// eventsource-parser read each event's fields (`data:` with one optional space, `event:`).
import { createParser, type EventSourceParser } from "eventsource-parser";
import { limitFailure } from "./errors.ts";

/** `errorLine`: the value of an `error:` field line, which older llama.cpp servers send instead of `data:`. */
export type SseMessage = { event: string | undefined; data: string; errorLine?: true };

const LF = 0x0a;
const CR = 0x0d;
const EMPTY = Buffer.alloc(0);

export class SseDecoder {
  #pending: Buffer = EMPTY;
  #maxEventBytes: number;
  #parser: EventSourceParser;
  #messages: SseMessage[] = [];

  constructor(maxEventBytes: number) {
    this.#maxEventBytes = maxEventBytes;
    this.#parser = createParser({
      onEvent: (message) => this.#messages.push({ event: message.event, data: message.data }),
      // Older llama.cpp servers report failures as an `error: {…}` line under HTTP 200 (spec §8.3).
      onError: (error) => {
        if (error.type === "unknown-field" && error.field === "error" && error.value !== undefined) {
          this.#messages.push({ event: "error", data: error.value, errorLine: true });
        }
      },
    });
  }

  /** Feeds bytes; returns the events they completed. Throws `response_limit` for an oversize event. */
  push(chunk: Uint8Array): SseMessage[] {
    const previous = this.#pending.length;
    const buffer = previous
      ? Buffer.concat([this.#pending, chunk])
      : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let start = 0;
    let position = Math.max(0, previous - 3);
    for (;;) {
      const newline = buffer.indexOf(LF, position);
      if (newline < 0) break;
      let end = -1;
      let next = newline + 1;
      if (buffer[newline + 1] === LF) {
        end = newline;
        next = newline + 2;
      } else if (
        buffer[newline - 1] === CR &&
        buffer[newline + 1] === CR &&
        buffer[newline + 2] === LF &&
        newline - 1 >= start
      ) {
        end = newline - 1;
        next = newline + 3;
      } else if (newline + 2 >= buffer.length) {
        // The separator may continue in the next chunk.
        break;
      }
      if (end < 0) {
        position = next;
        continue;
      }
      if (end - start > this.#maxEventBytes)
        throw limitFailure("response_limit", "provider SSE event exceeded byte limit");
      this.#parser.feed(buffer.toString("utf8", start, end) + "\n\n");
      start = next;
      position = next;
    }
    const rest = buffer.length - start;
    if (rest > this.#maxEventBytes) throw limitFailure("response_limit", "provider SSE event exceeded byte limit");
    // Copy so a large chunk is not kept alive by a small remainder.
    this.#pending = rest === 0 ? EMPTY : Buffer.from(buffer.subarray(start));
    const messages = this.#messages;
    this.#messages = [];
    return messages;
  }

  /** Bytes after the last complete event, decoded as UTF-8. */
  leftover(): string {
    return this.#pending.toString("utf8");
  }
}
