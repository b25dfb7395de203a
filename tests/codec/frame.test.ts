import { PassThrough } from "node:stream";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  decodeFrameMessage,
  encodeFrame,
  FrameDecoder,
  FrameError,
  FrameWriter,
  MAX_FRAME_BYTES,
  readFrames,
} from "../../lib/codec/index.ts";
import { collect, fromChunks, splitAt } from "../support/chunks.ts";

function prefix(length: number): Uint8Array {
  const bytes = new Uint8Array(4);
  new DataView(bytes.buffer).setUint32(0, length, true);
  return bytes;
}

function rawFrame(payload: string): Uint8Array {
  const body = Buffer.from(payload, "utf8");
  return Buffer.concat([prefix(body.length), body]);
}

async function readError(chunks: Uint8Array[]): Promise<string> {
  try {
    await collect(readFrames(fromChunks(chunks)));
  } catch (error) {
    expect(error).toBeInstanceOf(FrameError);
    return (error as Error).message;
  }
  throw new Error("expected readFrames to fail");
}

describe("encodeFrame", () => {
  it("writes a little-endian length and compact JSON", () => {
    const frame = encodeFrame({ type: "x", n: [1, 2] });
    expect(frame.readUInt32LE(0)).toBe(frame.length - 4);
    expect(frame.subarray(4).toString("utf8")).toBe('{"type":"x","n":[1,2]}');
  });

  it("counts UTF-8 bytes, not characters", () => {
    const frame = encodeFrame("é€😀");
    expect(frame.readUInt32LE(0)).toBe(Buffer.byteLength('"é€😀"'));
  });

  it("refuses a payload over MAX_FRAME_BYTES with the exact message", () => {
    const value = "x".repeat(MAX_FRAME_BYTES); // plus two quotes
    expect(() => encodeFrame(value)).toThrow(
      `code-mode IPC frame length ${MAX_FRAME_BYTES + 2} exceeds 67108864 bytes`,
    );
  });
});

describe("readFrames", () => {
  it("ends cleanly at EOF on a frame boundary, including immediate EOF", async () => {
    expect(await collect(readFrames(fromChunks([])))).toEqual([]);
    const both = Buffer.concat([encodeFrame({ a: 1 }), encodeFrame([true])]);
    expect(await collect(readFrames(fromChunks([both])))).toEqual([{ a: 1 }, [true]]);
  });

  it("fails with early eof inside the prefix or the payload", async () => {
    expect(await readError([new Uint8Array([1, 0])])).toBe("early eof");
    expect(await readError([rawFrame('{"a":1}').subarray(0, 6)])).toBe("early eof");
  });

  it("checks the declared length before reading any payload", async () => {
    // A 4 GiB - 1 declaration with no payload at all must fail at once, without allocating it.
    expect(await readError([prefix(0xffffffff)])).toBe("code-mode IPC frame length 4294967295 exceeds 67108864 bytes");
    expect(await readError([prefix(83_886_081)])).toBe("code-mode IPC frame length 83886081 exceeds 67108864 bytes");
  });

  it("accepts a frame of exactly MAX_FRAME_BYTES", async () => {
    const payload = `"${"z".repeat(MAX_FRAME_BYTES - 2)}"`;
    const frames = await collect(readFrames(fromChunks(splitAt(rawFrame(payload), [3, 1000, 5_000_000]))));
    expect((frames[0] as string).length).toBe(MAX_FRAME_BYTES - 2);
  });

  it("reports invalid JSON and invalid UTF-8 with the decode prefix", async () => {
    expect(await readError([rawFrame("{")])).toMatch(/^failed to decode code-mode IPC frame: /);
    const garbage = new Uint8Array([3, 0, 0, 0, 0xff, 0xfe, 0xfd]);
    expect(await readError([garbage])).toMatch(/^failed to decode code-mode IPC frame: /);
  });

  it("returns exactly the values written, whatever the chunking (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.jsonValue(), { maxLength: 12 }),
        fc.array(fc.nat(), { maxLength: 40 }),
        async (values, cuts) => {
          const bytes = Buffer.concat(values.map((value) => encodeFrame(value)));
          const frames = await collect(
            readFrames(fromChunks(splitAt(bytes, cuts.map((cut) => cut % (bytes.length + 1))))),
          );
          expect(frames).toEqual(values.map((value) => JSON.parse(JSON.stringify(value))));
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("decodeFrameMessage", () => {
  it("decodes one whole frame", () => {
    expect(decodeFrameMessage(encodeFrame({ ok: true }))).toEqual({ ok: true });
  });

  it("has the exact error texts of the host spec", () => {
    expect(() => decodeFrameMessage(new Uint8Array([1, 0, 0]))).toThrow(
      "code-mode IPC frame is missing its length prefix",
    );
    expect(() => decodeFrameMessage(new Uint8Array([5, 0, 0, 0, 0x7b]))).toThrow(
      "code-mode IPC frame declares 5 payload bytes but contains 1",
    );
    expect(() => decodeFrameMessage(Buffer.concat([rawFrame("1"), Buffer.from(" ")]))).toThrow(
      "code-mode IPC frame declares 1 payload bytes but contains 2",
    );
    expect(() => decodeFrameMessage(prefix(MAX_FRAME_BYTES + 1))).toThrow(
      "code-mode IPC frame length 67108865 exceeds 67108864 bytes",
    );
    expect(() => decodeFrameMessage(new Uint8Array([1, 0, 0, 0, 0x7b]))).toThrow(
      /^failed to decode code-mode IPC frame: /,
    );
  });

  it("never throws anything but FrameError on random bytes (property)", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        try {
          decodeFrameMessage(bytes);
        } catch (error) {
          expect(error).toBeInstanceOf(FrameError);
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe("FrameWriter", () => {
  it("writes each encoded frame whole, and one encoded frame many times", async () => {
    const stream = new PassThrough();
    const writer = new FrameWriter(stream);
    const frame = encodeFrame({ repeated: true });
    await writer.write(frame);
    await writer.write(frame);
    stream.end();
    expect(await collect(readFrames(stream))).toEqual([{ repeated: true }, { repeated: true }]);
  });

  it("rejects instead of hanging on a stream that is already closed", async () => {
    const stream = new PassThrough();
    stream.on("error", () => undefined);
    stream.destroy();
    await new Promise((resolve) => stream.once("close", resolve));
    await expect(new FrameWriter(stream).write(encodeFrame(1))).rejects.toThrow("stream is already closed");
  });
});

describe("FrameDecoder", () => {
  it("returns the good frames of a chunk before failing on a bad one", () => {
    const decoder = new FrameDecoder();
    const chunk = Buffer.concat([encodeFrame({ first: 1 }), rawFrame("{bad")]);
    expect(decoder.push(chunk)).toEqual([{ first: 1 }]);
    expect(() => decoder.push(new Uint8Array(0))).toThrow(/^failed to decode code-mode IPC frame: /);
    expect(() => decoder.end()).toThrow(/^failed to decode code-mode IPC frame: /);
  });

  it("hands the whole-chunk error to readFrames after the good frames", async () => {
    const seen: unknown[] = [];
    const chunk = Buffer.concat([encodeFrame("ok"), prefix(MAX_FRAME_BYTES + 1)]);
    await expect(
      (async () => {
        for await (const value of readFrames(fromChunks([chunk]))) seen.push(value);
      })(),
    ).rejects.toThrow("code-mode IPC frame length 67108865 exceeds 67108864 bytes");
    expect(seen).toEqual(["ok"]);
  });

  it("parses payloads with the caller's parser, errors included", async () => {
    const parse = (text: string) => ({ raw: text });
    expect(await collect(readFrames(fromChunks([rawFrame("9223372036854775807")]), { parse }))).toEqual([
      { raw: "9223372036854775807" },
    ]);
    expect(decodeFrameMessage(rawFrame("[1]"), { parse })).toEqual({ raw: "[1]" });
    const failing = () => {
      throw new SyntaxError("nope");
    };
    expect(() => decodeFrameMessage(rawFrame("[1]"), { parse: failing })).toThrow(
      "failed to decode code-mode IPC frame: nope",
    );
  });
});
