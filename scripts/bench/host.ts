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

interface Subject {
  host: HostProcess;
  latencies: number[];
  cellSeconds: number;
  calls: number;
  callSeconds: number;
  nextId: number;
}

async function start(command: string, args: string[]): Promise<Subject> {
  const host = startFramedProcess(command, args);
  host.send(hello());
  await host.frames.next(30_000);
  host.send(open(1, "bench"));
  await host.frames.next(30_000);
  await runCells(host, 10, 50); // warm-up
  await runNestedCalls(host, 90, 200); // warm-up
  return { host, latencies: [], cellSeconds: 0, calls: 0, callSeconds: 0, nextId: 1_000 };
}

async function round(subject: Subject, cells: number, calls: number): Promise<void> {
  const began = process.hrtime.bigint();
  subject.latencies.push(...(await runCells(subject.host, subject.nextId, cells)));
  subject.cellSeconds += Number(process.hrtime.bigint() - began) / 1e9;
  subject.nextId += cells;
  const rate = await runNestedCalls(subject.host, subject.nextId++, calls);
  subject.callSeconds += calls / rate;
  subject.calls += calls;
}

function figures(subject: Subject): Figures {
  const sorted = [...subject.latencies].sort((a, b) => a - b);
  const round2 = (n: number) => Math.round(n * 100) / 100;
  return {
    cellsPerSecond: round2(subject.latencies.length / subject.cellSeconds),
    cellLatencyP50Ms: round2(percentile(sorted, 50)),
    cellLatencyP99Ms: round2(percentile(sorted, 99)),
    nestedCallsPerSecond: round2(subject.calls / subject.callSeconds),
    peakRssMb: peakRssMb(subject.host.child.pid!),
  };
}

const cells = argument("cells", 1_000);
const calls = argument("calls", 5_000);
const rounds = argument("rounds", 5);
const reference = process.env.CODEX_HOST_BIN;
const subjects: Subject[] = [await start(process.execPath, [MAIN, "host"])];
if (reference && existsSync(reference)) subjects.push(await start(reference, []));
let measured: Figures[];
try {
  // Interleaved rounds, so that a change in machine load affects both hosts alike.
  for (let i = 0; i < rounds; i++) {
    for (const subject of subjects) await round(subject, Math.ceil(cells / rounds), Math.ceil(calls / rounds));
  }
  measured = subjects.map(figures);
} finally {
  for (const subject of subjects) subject.host.kill();
}
const ours = measured[0]!;
const result: Record<string, unknown> = { cells, nestedCalls: calls, rounds, scv: ours };
if (measured[1]) {
  const theirs = measured[1];
  const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;
  result.reference = theirs;
  result.ratio = {
    cellsPerSecond: ratio(ours.cellsPerSecond, theirs.cellsPerSecond),
    cellLatencyP50: ratio(ours.cellLatencyP50Ms, theirs.cellLatencyP50Ms),
    cellLatencyP99: ratio(ours.cellLatencyP99Ms, theirs.cellLatencyP99Ms),
    nestedCallsPerSecond: ratio(ours.nestedCallsPerSecond, theirs.nestedCallsPerSecond),
    peakRss: ratio(ours.peakRssMb, theirs.peakRssMb),
  };
  result.goals = {
    cellsPerSecondAtLeast3x: ours.cellsPerSecond >= 3 * theirs.cellsPerSecond,
    nestedCallsAtLeast2x: ours.nestedCallsPerSecond >= 2 * theirs.nestedCallsPerSecond,
    rssAtMost80Mb: ours.peakRssMb <= 80,
  };
} else {
  result.reference = "skipped: set CODEX_HOST_BIN to the reference codex-code-mode-host binary";
}
process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
process.exit(0);
