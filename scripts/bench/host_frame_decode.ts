// The host's client-frame parser (lib/host/frame_json.ts: nesting limit, duplicate struct keys,
// exact i64 ids) against plain JSON.parse and the earlier parser (JSON.parse with an i64 reviver
// when the text holds 16+ digits), on the frames where its scan could cost the most. A decode is
// what the codec does with a payload: UTF-8 decoding, then the parser. Prints JSON: median ms per
// decode and the ratio to a decode with plain JSON.parse.
//
//   node scripts/bench/host_frame_decode.ts
import { parsePayload } from "../../lib/codec/index.ts";
import { parseClientFrame } from "../../lib/host/frame_json.ts";
import { parsePreciseJson } from "../../lib/host/precise_json.ts";
import { execute, tool, toolResult } from "../../tests/support/frame_client.ts";
import { median, printJson, round } from "./stats.ts";

const RUNS = Number(process.env.BENCH_RUNS ?? 7);

function toolResultFrame(result: unknown): string {
  return JSON.stringify(toolResult(7, result));
}

/** A source of code-like lines: quotes, backslashes and brackets inside one big string. */
function sourceText(bytes: number): string {
  const line = 'const x = await tools.t({ a: "q\\"uote", b: [1, 2, 3] }); text(`${x}\\n`);\n';
  return line.repeat(Math.ceil(bytes / line.length)).slice(0, bytes);
}

function smallObjects(bytes: number): unknown[] {
  const items: unknown[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const item = { id: i, name: `item-${i}`, ok: i % 2 === 0, tags: ["a", "b"], score: i * 0.5 };
    items.push(item);
    size += JSON.stringify(item).length + 1;
  }
  return items;
}

/** Built one at a time, so that no run pays for another frame's garbage. */
const frames: Record<string, () => string> = {
  "execute, 50 MB source": () => JSON.stringify(execute(3, "s1", sourceText(50 * 1024 * 1024), { tools: [tool("t")] })),
  "tool result, 50 MB string": () => toolResultFrame("y".repeat(50 * 1024 * 1024)),
  "tool result, 1 MB of small objects": () => toolResultFrame(smallObjects(1024 * 1024)),
  "tool result, 50 MB of small objects": () => toolResultFrame(smallObjects(50 * 1024 * 1024)),
  // The densest typed part a client can send: a catalog of 6,000 tools (Codex sends a catalog once per revision).
  "execute, 1 MB catalog of 6,000 tools": () =>
    JSON.stringify(
      execute(4, "s1", "text(1)", {
        tools: Array.from({ length: 6_000 }, (_, i) =>
          tool(`t${i}`, { input_schema: { type: "object", properties: { a: { type: "string" } } } })),
      }),
    ),
  "wait request with an i64 id": () =>
    JSON.stringify({
      type: "operation/request",
      id: "@id",
      request: { method: "session/wait", sessionId: "s1", request: { cell_id: "1", yield_time_ms: 100 } },
    }).replace('"@id"', "9007199254740993"),
};

const parsers: Record<string, (text: string) => unknown> = {
  jsonParse: JSON.parse,
  previous: parsePreciseJson,
  clientFrame: parseClientFrame,
};

/** Median ms per decode of each parser, the parsers interleaved run by run. */
function time(payload: Buffer): Record<string, number> {
  const repeat = payload.length < 100_000 ? 2_000 : 1;
  const samples: Record<string, number[]> = { jsonParse: [], previous: [], clientFrame: [] };
  for (let run = 0; run < RUNS; run++) {
    for (const [name, parse] of Object.entries(parsers)) {
      const start = process.hrtime.bigint();
      for (let i = 0; i < repeat; i++)
        if (parsePayload(payload, parse) === undefined) throw new Error("decoded nothing");
      samples[name]!.push(Number(process.hrtime.bigint() - start) / 1e6 / repeat);
    }
  }
  return Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, median(values)]));
}

const results: Record<string, unknown> = {};
for (const [name, build] of Object.entries(frames)) {
  const payload = Buffer.from(build());
  const ms = time(payload);
  results[name] = {
    megabytes: round(payload.length / 1024 / 1024, 2),
    jsonParseDecodeMs: round(ms.jsonParse!),
    previousDecodeMs: round(ms.previous!),
    clientFrameDecodeMs: round(ms.clientFrame!),
    ratioToJsonParse: round(ms.clientFrame! / ms.jsonParse!, 2),
  };
}
printJson({ runs: RUNS, node: process.version, results });
