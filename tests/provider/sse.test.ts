// The SSE splitter on its own: chunking never changes the events, and the byte limit holds.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AttemptFailure } from "../../lib/provider/errors.ts";
import { SseDecoder, type SseMessage } from "../../lib/provider/sse.ts";

function decodeAll(chunks: Uint8Array[], limit = 1 << 20): { messages: SseMessage[]; leftover: string } {
  const decoder = new SseDecoder(limit);
  const messages = chunks.flatMap((chunk) => decoder.push(chunk));
  return { messages, leftover: decoder.leftover() };
}

const eventArbitrary = fc.record({
  event: fc.option(fc.constantFrom("response.output_text.delta", "error"), { nil: undefined }),
  data: fc.string({ unit: "grapheme", maxLength: 40 }).filter((text) => !/[\r\n]/.test(text) && text.trim() !== ""),
  crlf: fc.boolean(),
});

describe("SseDecoder", () => {
  it("yields the same events however the bytes are chunked", () => {
    fc.assert(
      fc.property(
        fc.array(eventArbitrary, { maxLength: 12 }),
        fc.array(fc.nat(), { maxLength: 20 }),
        (events, cuts) => {
          const text = events
            .map(({ event, data, crlf }) => {
              const nl = crlf ? "\r\n" : "\n";
              return `${event ? `event: ${event}${nl}` : ""}data: ${data}${nl}${nl}`;
            })
            .join("");
          const bytes = Buffer.from(text);
          const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
          const chunks: Uint8Array[] = [];
          let last = 0;
          for (const point of [...points, bytes.length]) {
            chunks.push(bytes.subarray(last, point));
            last = point;
          }
          const { messages, leftover } = decodeAll(chunks);
          expect(leftover).toBe("");
          expect(messages).toEqual(events.map(({ event, data }) => ({ event, data })));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("keeps an unterminated event as leftover", () => {
    const { messages, leftover } = decodeAll([Buffer.from('data: {"a":1}\n\ndata: {"b"')]);
    expect(messages).toEqual([{ event: undefined, data: '{"a":1}' }]);
    expect(leftover).toBe('data: {"b"');
  });

  it("enforces the event byte limit on complete and pending events", () => {
    const limit = 32;
    const exact = `data: ${"x".repeat(limit - 6)}`;
    expect(decodeAll([Buffer.from(`${exact}\n\n`)], limit).messages).toHaveLength(1);
    for (const body of [`${exact}y\n\n`, `${exact}yy`]) {
      let failure: unknown;
      try {
        decodeAll([Buffer.from(body)], limit);
      } catch (error) {
        failure = error;
      }
      expect(failure).toBeInstanceOf(AttemptFailure);
      expect((failure as AttemptFailure).error.code).toBe("response_limit");
      expect((failure as AttemptFailure).error.message).toBe("provider SSE event exceeded byte limit");
    }
  });
});
