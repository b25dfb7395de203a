import { PassThrough, Writable } from "node:stream";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { encodeLine, type NdjsonItem, NdjsonWriter, readNdjson } from "../../lib/codec/index.ts";
import { collect, fromChunks, splitAt } from "../support/chunks.ts";
import { settle } from "../support/wait.ts";

const utf8 = (text: string) => new TextEncoder().encode(text);

function read(chunks: Uint8Array[], maxLineBytes = 1024): Promise<NdjsonItem[]> {
  return collect(readNdjson(fromChunks(chunks), { maxLineBytes }));
}

describe("readNdjson", () => {
  it("parses one value per line, with CRLF and without a final newline", async () => {
    const items = await read([utf8('{"a":1}\r\n[2]\n"three"')]);
    expect(items).toEqual([
      { ok: true, value: { a: 1 } },
      { ok: true, value: [2] },
      { ok: true, value: "three" },
    ]);
  });

  it("reports empty lines, invalid JSON and invalid UTF-8 per line and keeps reading", async () => {
    const bytes = new Uint8Array([...utf8("\n{oops\n"), 0xff, 0xfe, 0x0a, ...utf8("\r\n1\n")]);
    const items = await read([bytes]);
    expect(items.map((item) => (item.ok ? item.value : item.error.kind))).toEqual([
      "empty",
      "invalid_json",
      "invalid_json",
      "empty",
      1,
    ]);
    const invalid = items[1]!;
    expect(!invalid.ok && invalid.error.kind === "invalid_json" && invalid.error.message.length > 0).toBe(true);
  });

  it("rejects a line over the cap with its size and serves the next line", async () => {
    const long = `"${"x".repeat(100)}"`;
    const items = await read([utf8(`${long}\n{"next":true}\n`)], 50);
    expect(items).toEqual([
      { ok: false, error: { kind: "too_large", size: 102 } },
      { ok: true, value: { next: true } },
    ]);
  });

  it("counts the cap without the line ending", async () => {
    const line = `"${"y".repeat(8)}"`; // 10 bytes
    expect(await read([utf8(`${line}\r\n`)], 10)).toEqual([{ ok: true, value: "y".repeat(8) }]);
    expect(await read([utf8(`${line}\r\n`)], 9)).toEqual([{ ok: false, error: { kind: "too_large", size: 10 } }]);
  });

  it("discards an oversize line that streams in many chunks without buffering it", async () => {
    const chunk = new Uint8Array(64 * 1024).fill(0x61);
    let produced = 0;
    async function* endless() {
      for (let i = 0; i < 3200; i++) {
        produced += chunk.length;
        yield chunk; // 200 MiB of one line in total
      }
      yield utf8("\n42\n");
    }
    const before = process.memoryUsage().arrayBuffers;
    const items = await collect(readNdjson(endless(), { maxLineBytes: 1 << 20 }));
    const after = process.memoryUsage().arrayBuffers;
    expect(items).toEqual([
      { ok: false, error: { kind: "too_large", size: produced } },
      { ok: true, value: 42 },
    ]);
    expect(after - before).toBeLessThan(32 * 1024 * 1024);
  });

  it("reports an oversize unterminated last line", async () => {
    expect(await read([utf8("1234567890")], 4)).toEqual([{ ok: false, error: { kind: "too_large", size: 10 } }]);
  });

  it("reads the limit anew for every line", async () => {
    let limit = 4;
    const source = fromChunks([utf8('"abcdef"\n'), utf8('"abcdef"\n')]);
    const items: NdjsonItem[] = [];
    for await (const item of readNdjson(source, { maxLineBytes: () => limit })) {
      items.push(item);
      limit = 100;
    }
    expect(items.map((item) => item.ok)).toEqual([false, true]);
  });

  it("returns exactly the values written, whatever the chunking (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.jsonValue(), { maxLength: 20 }),
        fc.array(fc.nat(), { maxLength: 30 }),
        fc.boolean(),
        async (values, cuts, crlf) => {
          const text = values.map((value) => JSON.stringify(value) + (crlf ? "\r\n" : "\n")).join("");
          const bytes = utf8(text);
          const items = await read(splitAt(bytes, cuts.map((cut) => cut % (bytes.length + 1))), 1 << 20);
          expect(items).toEqual(values.map((value) => ({ ok: true, value: JSON.parse(JSON.stringify(value)) })));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("splits multi-byte characters across every chunk boundary (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.string({ unit: "grapheme" }), { minLength: 1, maxLength: 8 }),
        fc.array(fc.nat()),
        async (strings, cuts) => {
          const bytes = utf8(strings.map((s) => JSON.stringify(s)).join("\n"));
          const items = await read(splitAt(bytes, cuts.map((cut) => cut % (bytes.length + 1))), 1 << 20);
          expect(items).toEqual(strings.map((value) => ({ ok: true, value })));
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("NdjsonWriter", () => {
  it("writes compact JSON lines that read back", async () => {
    const stream = new PassThrough();
    const writer = new NdjsonWriter(stream);
    await writer.write({ a: [1, 2], b: "x\ny" });
    await writer.write(null);
    stream.end();
    expect(encodeLine({ a: 1 })).toBe('{"a":1}\n');
    const items = await collect(readNdjson(stream, { maxLineBytes: 1024 }));
    expect(items).toEqual([
      { ok: true, value: { a: [1, 2], b: "x\ny" } },
      { ok: true, value: null },
    ]);
  });

  it("waits for drain when the stream pushes back", async () => {
    const received: string[] = [];
    let release: (() => void) | undefined;
    const slow = new Writable({
      highWaterMark: 4,
      write(chunk, _encoding, callback) {
        received.push(String(chunk));
        release = callback;
      },
    });
    const writer = new NdjsonWriter(slow);
    let done = false;
    const pending = writer.write({ big: "x".repeat(32) }).then(() => (done = true));
    await settle();
    expect(done).toBe(false);
    release!();
    await pending;
    expect(done).toBe(true);
    expect(received.join("")).toBe(`{"big":"${"x".repeat(32)}"}\n`);
  });

  it("rejects instead of hanging when the stream is destroyed while blocked", async () => {
    const stuck = new Writable({ highWaterMark: 1, write() {} });
    const writer = new NdjsonWriter(stuck);
    const pending = writer.write("blocked");
    stuck.destroy();
    await expect(pending).rejects.toThrow("stream closed before it drained");
  });

  it("rejects instead of hanging when the stream was destroyed before the write", async () => {
    const gone = new Writable({ write: (_chunk, _encoding, callback) => callback() });
    gone.on("error", () => undefined);
    gone.destroy();
    await new Promise((resolve) => gone.once("close", resolve));
    await expect(new NdjsonWriter(gone).write({ a: 1 })).rejects.toThrow("stream is already closed");
  });
});
