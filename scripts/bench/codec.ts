// Codec throughput: NDJSON decode of 1,000,000 short lines and frame decode of 100,000 frames,
// each next to its physical limit measured in the same run (JSON.parse of the same payloads
// already split). Prints JSON; goal: ratio ≥ 0.85.
import { encodeFrame, readFrameBatches, readFrames, readNdjson, readNdjsonBatches } from "../../lib/codec/index.ts";
import { median, printJson, round } from "./stats.ts";

const LINES = Number(process.env.BENCH_LINES ?? 1_000_000);
const FRAMES = Number(process.env.BENCH_FRAMES ?? 100_000);
const CHUNK = 64 * 1024; // what a pipe delivers
const RUNS = 5;

function chunked(bytes: Buffer): Buffer[] {
  const chunks: Buffer[] = [];
  for (let offset = 0; offset < bytes.length; offset += CHUNK) chunks.push(bytes.subarray(offset, offset + CHUNK));
  return chunks;
}

async function* iterate(chunks: Buffer[]): AsyncGenerator<Buffer> {
  for (const chunk of chunks) yield chunk;
}

async function time(run: () => Promise<number> | number): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = process.hrtime.bigint();
    const count = await run();
    samples.push(Number(process.hrtime.bigint() - start) / 1e9);
    if (count <= 0) throw new Error("benchmark decoded nothing");
  }
  return median(samples);
}

const lineTexts = Array.from(
  { length: LINES },
  (_, i) => JSON.stringify({ type: "turn.start", request_id: String(i), prompt: "hi" }),
);
const ndjsonBytes = Buffer.from(`${lineTexts.join("\n")}\n`);
const ndjsonChunks = chunked(ndjsonBytes);

const ndjsonLimit = await time(() => {
  let n = 0;
  for (const line of lineTexts) if (JSON.parse(line)) n++;
  return n;
});
const ndjsonCodec = await time(async () => {
  let n = 0;
  for await (const item of readNdjson(iterate(ndjsonChunks), { maxLineBytes: 1 << 20 })) if (item.ok) n++;
  return n;
});

const ndjsonBatched = await time(async () => {
  let n = 0;
  for await (const batch of readNdjsonBatches(iterate(ndjsonChunks), { maxLineBytes: 1 << 20 })) {
    for (const item of batch) if (item.ok) n++;
  }
  return n;
});

const framePayloads = Array.from(
  { length: FRAMES },
  (_, i) =>
    JSON.stringify({
      type: "operation/request",
      id: i,
      request: { method: "session/wait", sessionId: "s1", request: { cell_id: "1", yield_time_ms: 100 } },
    }),
);
const frameBytes = Buffer.concat(framePayloads.map((payload) => encodeFrame(JSON.parse(payload))));
const frameChunks = chunked(frameBytes);

const frameLimit = await time(() => {
  let n = 0;
  for (const payload of framePayloads) if (JSON.parse(payload)) n++;
  return n;
});
// Frames arrive as bytes: decoding UTF-8 is work no reader can skip, so also measure that floor.
const payloadBytes = framePayloads.map((payload) => Buffer.from(payload));
const utf8 = new TextDecoder("utf-8", { fatal: true });
const frameDecodeLimit = await time(() => {
  let n = 0;
  for (const bytes of payloadBytes) if (JSON.parse(utf8.decode(bytes))) n++;
  return n;
});
const frameCodec = await time(async () => {
  let n = 0;
  for await (const value of readFrames(iterate(frameChunks))) if (value) n++;
  return n;
});

const frameBatched = await time(async () => {
  let n = 0;
  for await (const batch of readFrameBatches(iterate(frameChunks))) for (const value of batch) if (value) n++;
  return n;
});

printJson({
  benchmark: "codec",
  node: process.version,
  ndjson: {
    lines: LINES,
    lines_per_s: Math.round(LINES / ndjsonCodec),
    mb_per_s: round(ndjsonBytes.length / 1e6 / ndjsonCodec, 1),
    limit_lines_per_s: Math.round(LINES / ndjsonLimit),
    ratio_to_limit: round(ndjsonLimit / ndjsonCodec, 3),
    batched_lines_per_s: Math.round(LINES / ndjsonBatched),
    batched_ratio_to_limit: round(ndjsonLimit / ndjsonBatched, 3),
  },
  frames: {
    frames: FRAMES,
    frames_per_s: Math.round(FRAMES / frameCodec),
    mb_per_s: round(frameBytes.length / 1e6 / frameCodec, 1),
    limit_frames_per_s: Math.round(FRAMES / frameLimit),
    ratio_to_limit: round(frameLimit / frameCodec, 3),
    batched_frames_per_s: Math.round(FRAMES / frameBatched),
    batched_ratio_to_limit: round(frameLimit / frameBatched, 3),
    decode_and_parse_limit_frames_per_s: Math.round(FRAMES / frameDecodeLimit),
    batched_ratio_to_decode_and_parse_limit: round(frameDecodeLimit / frameBatched, 3),
  },
  goal: "ratio_to_limit >= 0.85",
});
