// Startup: `dist/scv --version` against `node -e 0` on the same Node, median of N runs each.
// Compiles the binary first when it is missing. Goal: ratio ≤ 1.2.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { BINARY, compileBinary } from "../compile.ts";
import { median, printJson, round } from "./stats.ts";

const RUNS = Number(process.env.BENCH_RUNS ?? 30);

if (!existsSync(BINARY)) await compileBinary();

function timeRuns(command: string, args: string[]): number {
  const samples: number[] = [];
  for (let i = 0; i < RUNS + 2; i++) {
    const start = process.hrtime.bigint();
    const result = spawnSync(command, args, { stdio: ["ignore", "pipe", "pipe"] });
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    if (result.status !== 0) {
      const why = result.error?.message ?? `exited with ${result.status ?? result.signal}: ${result.stderr.toString().trim()}`;
      throw new Error(`${command} ${args.join(" ")} failed: ${why}`);
    }
    if (i >= 2) samples.push(ms); // the first runs warm the page cache
  }
  return median(samples);
}

const scv = timeRuns(BINARY, ["--version"]);
const node = timeRuns(process.execPath, ["-e", "0"]);
printJson({
  benchmark: "startup",
  node: process.version,
  runs: RUNS,
  scv_version_median_ms: round(scv, 2),
  node_e0_median_ms: round(node, 2),
  ratio: round(scv / node, 3),
  goal: "ratio <= 1.2",
});
