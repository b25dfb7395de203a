// Host benchmark: scv and (when CODEX_HOST_BIN is set) the reference codex-code-mode-host,
// driven side by side through the same framed stdio client. Prints one JSON object.
//
//   CODEX_HOST_BIN=/path/to/codex-code-mode-host node scripts/bench/host.ts [--cells N] [--calls N]
import { existsSync, readFileSync } from "node:fs";
import {
  execute,
  hello,
  MAIN,
  open,
  startFramedProcess,
  tool,
  toolResult,
  type HostProcess,
} from "../../tests/support/frame_client.ts";

interface Figures {
  cellsPerSecond: number;
  cellLatencyP50Ms: number;
  cellLatencyP99Ms: number;
  nestedCallsPerSecond: number;
  peakRssMb: number;
}

function argument(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? Number(process.argv[index + 1]) : fallback;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Peak resident set (VmHWM) of a process, in MB. */
function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const match = /VmHWM:\s+(\d+) kB/.exec(status);
  return match ? Math.round((Number(match[1]) / 1024) * 10) / 10 : NaN;
}

async function runCells(host: HostProcess, firstId: number, count: number): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < count; i++) {
    const id = firstId + i;
    const start = process.hrtime.bigint();
    host.send(execute(id, "bench", "text(1)"));
    await host.frames.until((f) => f.type === "execute/initialResponse" && f.id === id, 30_000);
    latencies.push(Number(process.hrtime.bigint() - start) / 1e6);
    await host.frames.until((f) => f.type === "cell/closed", 30_000);
  }
  return latencies;
}

async function runNestedCalls(host: HostProcess, id: number, count: number): Promise<number> {
  const start = process.hrtime.bigint();
  host.send(
    execute(id, "bench", `let s = 0; for (let i = 0; i < ${count}; i++) s += await tools.t(i); text(s)`, {
      tools: [tool("t")],
      yieldTimeMs: 600_000,
    }),
  );
  for (;;) {
    const frame = await host.frames.next(30_000);
    if (frame.type === "delegate/request") host.send(toolResult(frame.id, 1));
    else if (frame.type === "execute/initialResponse" && frame.id === id) break;
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  await host.frames.until((f) => f.type === "cell/closed", 30_000);
  return count / seconds;
}

async function bench(command: string, args: string[], cells: number, calls: number): Promise<Figures> {
  const host = startFramedProcess(command, args);
  try {
    host.send(hello());
    await host.frames.next(30_000);
    host.send(open(1, "bench"));
    await host.frames.next(30_000);
    await runCells(host, 10, 50); // warm-up
    const started = process.hrtime.bigint();
    const latencies = await runCells(host, 1_000, cells);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    await runNestedCalls(host, 900, Math.min(200, calls)); // warm-up
    const nested = await runNestedCalls(host, 901, calls);
    const sorted = [...latencies].sort((a, b) => a - b);
    const round = (n: number) => Math.round(n * 100) / 100;
    return {
      cellsPerSecond: round(cells / seconds),
      cellLatencyP50Ms: round(percentile(sorted, 50)),
      cellLatencyP99Ms: round(percentile(sorted, 99)),
      nestedCallsPerSecond: round(nested),
      peakRssMb: peakRssMb(host.child.pid!),
    };
  } finally {
    host.kill();
  }
}

const cells = argument("cells", 1_000);
const calls = argument("calls", 5_000);
const result: Record<string, unknown> = { cells, nestedCalls: calls, scv: await bench(process.execPath, [MAIN, "host"], cells, calls) };
const reference = process.env.CODEX_HOST_BIN;
if (reference && existsSync(reference)) {
  const theirs = await bench(reference, [], cells, calls);
  const ours = result.scv as Figures;
  result.reference = theirs;
  result.ratio = {
    cellsPerSecond: Math.round((ours.cellsPerSecond / theirs.cellsPerSecond) * 100) / 100,
    cellLatencyP50: Math.round((ours.cellLatencyP50Ms / theirs.cellLatencyP50Ms) * 100) / 100,
    cellLatencyP99: Math.round((ours.cellLatencyP99Ms / theirs.cellLatencyP99Ms) * 100) / 100,
    nestedCallsPerSecond: Math.round((ours.nestedCallsPerSecond / theirs.nestedCallsPerSecond) * 100) / 100,
    peakRss: Math.round((ours.peakRssMb / theirs.peakRssMb) * 100) / 100,
  };
  result.goals = {
    cellsPerSecondAtLeast3x: (result.ratio as { cellsPerSecond: number }).cellsPerSecond >= 3,
    nestedCallsAtLeast2x: (result.ratio as { nestedCallsPerSecond: number }).nestedCallsPerSecond >= 2,
    rssAtMost80Mb: ours.peakRssMb <= 80,
  };
} else {
  result.reference = "skipped: set CODEX_HOST_BIN to the reference codex-code-mode-host binary";
}
process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
process.exit(0);
