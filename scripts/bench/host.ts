// Host benchmark: scv and (when CODEX_HOST_BIN is set) the reference codex-code-mode-host,
// driven side by side through the same framed stdio client. Prints one JSON object.
//
//   CODEX_HOST_BIN=/path/to/codex-code-mode-host node scripts/bench/host.ts [--cells N] [--calls N] [--rounds N]
//     [--no-floor]
//
// `relayFloor` is scripts/bench/relay_floor.ts driven the same way: the same process topology with
// no work in it, i.e. the most any design with cells in another process can reach in that run, and
// its tree's memory after that work. `inProcessFloor` is the same relay with its cells in a worker
// thread of the host's process: the floor of the other design (the reference's).
//
// `SCV_HOST_BIN=/path/to/scv` measures a compiled scv binary instead of `node main.ts host`.
//
// Peak RSS counts the binary's mapped file pages, and how many a run maps depends on the page
// cache: a binary just written (by the compiler, or a download) sits there in large folios that
// are mapped whole, ~17 MB more than after it was read back from disk. So each host's binary is
// dropped from the page cache before it starts (`dd iflag=nocache`, where the OS allows it), and
// `floorRssMb` is an idle Node process plus one idle sandbox process started as the host starts
// it: the least a host running cells in sandbox processes can have.
//
// scv runs cells in sandbox processes, so CPU and peak RSS count the whole process tree (the host
// and its children, sampled every 20 ms). Every figure is taken twice: on the machine as it is
// ("quiet"), and with one core kept busy by a CPU-bound process this benchmark starts ("loaded").
// On a shared machine the load changes between rounds more than designs differ: judge nested calls
// by `nestedCallsPerSecondMedianOfRounds` (scv's share of the floor in rounds run back to back), and
// memory by `processes` (each process of scv's tree: the host, a launcher such as bwrap, the sandbox
// process), whose file-backed pages are the runtime's binary, counted once per process.
//
// The client must not be the bottleneck (it is shared by both hosts, so a slow client hides the
// difference): it decodes each chunk synchronously and answers every frame of a chunk from the
// `data` handler itself, with one write per batch of answers, no promise hop or timer per frame.
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { encodeFrame, FrameDecoder } from "../../lib/codec/index.ts";
import { parsePreciseJson } from "../../lib/host/precise_json.ts";
import { MessageDecoder } from "../../lib/sandbox/channel.ts";
import { prepareLaunch } from "../../lib/sandbox/launch.ts";
import { codeProcess } from "../../lib/sandbox/sandbox_process.ts";
import { DEFAULT_HEAP_MB } from "../../lib/sandbox/sandbox.ts";
import { execute, hello, MAIN, open, ROOT, tool } from "../../tests/support/frame_client.ts";

// Frames are read as untyped wire JSON; the benchmark checks only the fields it counts.
// deno-lint-ignore no-explicit-any
type Frame = any;

interface Figures {
  cellsPerSecond: number;
  cellLatencyP50Ms: number;
  cellLatencyP99Ms: number;
  nestedCallsPerSecond: number;
  /** CPU time (user + system, all threads, host and sandbox processes) per nested call, in µs (10 ms clock ticks). */
  nestedCallCpuUs: number;
  /** Peak of the summed resident sets of the host and its child processes, sampled every 20 ms. */
  peakTreeRssMb: number;
  /** Peak resident set of the host process alone (VmHWM). */
  peakRssMb: number;
  /** Resident set at the end of the run: anonymous (heaps, malloc) and file-backed (the binary's pages). */
  endRssAnonMb: number;
  endRssFileMb: number;
  /** Each process of the tree at the end (the host first): its peak (VmHWM), anonymous and file-backed memory. */
  processes: { command: string; peakRssMb: number; endRssAnonMb: number; endRssFileMb: number }[];
}

function argument(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? Number(process.argv[index + 1]) : fallback;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Peak resident set (VmHWM) of a process including all its threads, in MB. */
function peakRssMb(pid: number): number {
  return statusMb(pid, "VmHWM");
}

/** User + system CPU time of a process (all its threads), in ms; 0 once it is gone. */
function cpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}

/** The live child processes of `parent`: from each task's `children` file in /proc, else by a scan of /proc. */
function children(parent: number): number[] {
  try {
    const pids: number[] = [];
    for (const task of readdirSync(`/proc/${parent}/task`)) {
      const text = readFileSync(`/proc/${parent}/task/${task}/children`, "latin1").trim();
      if (text !== "") pids.push(...text.split(" ").map(Number));
    }
    return pids;
  } catch {
    // A kernel without CONFIG_PROC_CHILDREN, or the process is gone.
  }
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = readFileSync(`/proc/${entry}/stat`, "latin1").split(") ")[1]!.split(" ");
      if (Number(fields[1]) === parent && fields[0] !== "Z") pids.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

/** The host and all its descendants (sandbox processes, and the code process below a launcher such as bwrap). */
const tree = (pid: number): number[] => [pid, ...children(pid).flatMap(tree)];
const treeCpuMs = (pids: number[]): number => pids.reduce((sum, pid) => sum + cpuMs(pid), 0);

/** Samples the summed VmRSS of a process tree; `stop()` returns its peak in MB. */
function treeRssSampler(pid: number): { stop(): number } {
  let peak = 0;
  let pids = tree(pid);
  let round = 0;
  const timer = setInterval(() => {
    // Children come and go (a terminated cell's process is replaced): look again now and then.
    if (++round % 10 === 0) pids = tree(pid);
    let sum = 0;
    for (const one of pids) {
      try {
        sum += Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${one}/status`, "utf8"))![1]);
      } catch {
        // Gone meanwhile.
      }
    }
    peak = Math.max(peak, sum);
  }, 20);
  return {
    stop() {
      clearInterval(timer);
      return Math.round((peak / 1024) * 10) / 10;
    },
  };
}

/** One `kB` field of /proc/<pid>/status, in MB. */
function statusMb(pid: number, field: string): number {
  const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return match ? Math.round((Number(match[1]) / 1024) * 10) / 10 : NaN;
}

/** Pre-encoded `delegate/response` frames for the bench tool's constant result, per id. */
function toolResultFrame(id: number | bigint): Buffer {
  return encodeFrame({
    type: "delegate/response",
    id,
    result: { status: "ok", value: { type: "tool/result", result: 1 } },
  });
}

/**
 * A framed stdio client whose frames go to one synchronous handler at a time. The handler
 * returns frames to send (written together, once per chunk) and `true` in `done` when finished.
 */
class BenchClient {
  readonly child: ChildProcessWithoutNullStreams;
  readonly #decoder = new FrameDecoder({ parse: parsePreciseJson });
  #handler: ((frame: Frame, out: Buffer[]) => boolean) | null = null;
  #finish: (() => void) | null = null;
  #fail: ((error: Error) => void) | null = null;
  #stderr = "";

  constructor(command: string, args: string[]) {
    this.child = spawn(command, args, { cwd: ROOT, stdio: ["pipe", "pipe", "pipe"] });
    this.child.stdin.on("error", () => undefined);
    this.child.stderr.setEncoding("utf8");
    this.child.stderr.on("data", (chunk: string) => (this.#stderr += chunk));
    this.child.stdout.on("data", (chunk: Buffer) => this.#onData(chunk));
    this.child.once(
      "exit",
      (code, signal) => this.#fail?.(new Error(`host exited (${code ?? signal}): ${this.#stderr}`)),
    );
  }

  /** Sends `first`, then feeds every received frame to `handler` until it returns true. */
  exchange(first: Buffer, handler: (frame: Frame, out: Buffer[]) => boolean, timeoutMs = 60_000): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`bench exchange timed out; stderr: ${this.#stderr}`)), timeoutMs);
      this.#handler = handler;
      this.#finish = () => {
        clearTimeout(timer);
        resolve();
      };
      this.#fail = (error) => {
        clearTimeout(timer);
        reject(error);
      };
      this.child.stdin.write(first);
    });
  }

  /** Closes the host's stdin (a graceful end), then kills it if it has not exited soon after. */
  async stop(): Promise<void> {
    this.#fail = null;
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once("exit", () => resolve()));
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 3_000);
    await exited;
    clearTimeout(timer);
  }

  #onData(chunk: Buffer): void {
    const frames = this.#decoder.push(chunk);
    const out: Buffer[] = [];
    for (const frame of frames) {
      const handler = this.#handler;
      if (handler === null) continue;
      if (handler(frame, out)) {
        this.#handler = null;
        const finish = this.#finish;
        this.#finish = null;
        finish?.();
      }
    }
    if (out.length === 1) this.child.stdin.write(out[0]);
    else if (out.length > 1) this.child.stdin.write(Buffer.concat(out));
  }
}

/** Sequential trivial cells: the next execute is sent from the handler that sees `cell/closed`. */
async function runCells(client: BenchClient, firstId: number, count: number): Promise<number[]> {
  const latencies: number[] = [];
  let id = firstId;
  let start = process.hrtime.bigint();
  const frameFor = (n: number): Buffer => encodeFrame(execute(n, "bench", "text(1)"));
  await client.exchange(frameFor(id), (frame, out) => {
    if (frame.type === "execute/initialResponse" && Number(frame.id) === id) {
      latencies.push(Number(process.hrtime.bigint() - start) / 1e6);
    } else if (frame.type === "cell/closed") {
      if (++id >= firstId + count) return true;
      start = process.hrtime.bigint();
      out.push(frameFor(id));
    }
    return false;
  });
  return latencies;
}

/** One cell making `count` sequential nested tool calls, each answered as soon as it arrives. */
async function runNestedCalls(client: BenchClient, id: number, count: number): Promise<number> {
  const request = encodeFrame(
    execute(id, "bench", `let s = 0; for (let i = 0; i < ${count}; i++) s += await tools.t(i); text(s)`, {
      tools: [tool("t")],
      yieldTimeMs: 600_000,
    }),
  );
  const start = process.hrtime.bigint();
  let seconds = 0;
  let answered = 0;
  await client.exchange(request, (frame, out) => {
    if (frame.type === "delegate/request") {
      out.push(toolResultFrame(frame.id));
      answered++;
    } else if (frame.type === "execute/initialResponse" && Number(frame.id) === id) {
      seconds = Number(process.hrtime.bigint() - start) / 1e9;
      const text = frame.result?.value?.Result?.content_items?.[0]?.text;
      if (answered !== count || text !== String(count)) {
        throw new Error(`nested-call cell answered ${answered} calls, output ${JSON.stringify(frame)}`);
      }
    } else if (frame.type === "cell/closed") {
      return true;
    }
    return false;
  });
  return count / seconds;
}

interface Subject {
  /** Nested calls per second in each round, for ratios between rounds that ran side by side. */
  roundRates: number[];
  client: BenchClient;
  latencies: number[];
  cellSeconds: number;
  calls: number;
  callSeconds: number;
  callCpuMs: number;
  nextId: number;
  peakTreeRssMb: number;
}

/** Advises the OS to drop a file from the page cache; false where that is not possible. */
function dropFromPageCache(path: string): boolean {
  const result = spawnSync("dd", [`if=${path}`, "iflag=nocache", "count=0", "status=none"], { stdio: "ignore" });
  return result.status === 0;
}

/** Peak RSS of an idle Node plus one idle sandbox process (started as the host starts it), in MB. */
async function floorRssMb(): Promise<{ idleNodeMb: number; idleSandboxProcessMb: number; floorRssMb: number }> {
  const node = spawn(process.execPath, [
    "--max-semi-space-size=4",
    "-e",
    "setTimeout(() => {}, 60000); setTimeout(() => process.stdout.write('ready'), 300)",
  ], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  await new Promise<void>((resolve) => node.stdout.once("data", () => resolve()));
  const idleNodeMb = peakRssMb(node.pid!);
  node.kill();
  const launcher = prepareLaunch({ maxOutputChars: 128 * 1024 * 1024, storeQuotaChars: 64 * 1024 * 1024 });
  const launch = launcher.forHeap(DEFAULT_HEAP_MB);
  const sandbox = spawn(launch.command, launch.args, {
    cwd: launch.cwd,
    env: launch.env,
    stdio: ["pipe", "pipe", "inherit"],
  });
  const decoder = new MessageDecoder(1 << 20);
  await new Promise<void>((resolve) =>
    sandbox.stdout.on("data", (chunk: Buffer) => {
      if ((decoder.push(chunk) as { t: string }[]).some((message) => message.t === "idle")) setTimeout(resolve, 300);
    })
  );
  // The process that runs the code: a launcher (bwrap) may stand between.
  const idleSandboxProcessMb = peakRssMb(codeProcess(sandbox.pid));
  sandbox.kill("SIGKILL");
  launcher.dispose();
  return { idleNodeMb, idleSandboxProcessMb, floorRssMb: Math.round((idleNodeMb + idleSandboxProcessMb) * 10) / 10 };
}

async function start(command: string, args: string[]): Promise<Subject> {
  // Every host's binary is dropped, also after a failure for an earlier one: both start alike.
  if (existsSync(command) && !dropFromPageCache(command)) pageCacheDropped = false;
  const client = new BenchClient(command, args);
  await client.exchange(encodeFrame(hello()), () => true);
  await client.exchange(encodeFrame(open(1, "bench")), () => true);
  await runCells(client, 10, 50); // warm-up
  await runNestedCalls(client, 90, 200); // warm-up
  return {
    client,
    roundRates: [],
    latencies: [],
    cellSeconds: 0,
    calls: 0,
    callSeconds: 0,
    callCpuMs: 0,
    nextId: 1_000,
    peakTreeRssMb: 0,
  };
}

function reset(subject: Subject): void {
  subject.roundRates = [];
  subject.latencies = [];
  subject.cellSeconds = 0;
  subject.calls = 0;
  subject.callSeconds = 0;
  subject.callCpuMs = 0;
  subject.peakTreeRssMb = 0;
}

async function round(subject: Subject, cells: number, calls: number): Promise<void> {
  const sampler = treeRssSampler(subject.client.child.pid!);
  const began = process.hrtime.bigint();
  subject.latencies.push(...(await runCells(subject.client, subject.nextId, cells)));
  subject.cellSeconds += Number(process.hrtime.bigint() - began) / 1e9;
  subject.nextId += cells;
  const pids = tree(subject.client.child.pid!);
  const cpuBefore = treeCpuMs(pids);
  const rate = await runNestedCalls(subject.client, subject.nextId++, calls);
  subject.callCpuMs += treeCpuMs(pids) - cpuBefore;
  subject.peakTreeRssMb = Math.max(subject.peakTreeRssMb, sampler.stop());
  subject.callSeconds += calls / rate;
  subject.roundRates.push(rate);
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
    nestedCallCpuUs: Math.round((subject.callCpuMs * 1000) / subject.calls),
    peakTreeRssMb: subject.peakTreeRssMb,
    peakRssMb: peakRssMb(subject.client.child.pid!),
    endRssAnonMb: statusMb(subject.client.child.pid!, "RssAnon"),
    endRssFileMb: statusMb(subject.client.child.pid!, "RssFile"),
    processes: tree(subject.client.child.pid!).map((pid) => {
      let command = "?";
      try {
        command = readFileSync(`/proc/${pid}/comm`, "latin1").trim();
      } catch {
        // Gone meanwhile.
      }
      return {
        command,
        peakRssMb: statusMb(pid, "VmHWM"),
        endRssAnonMb: statusMb(pid, "RssAnon"),
        endRssFileMb: statusMb(pid, "RssFile"),
      };
    }),
  };
}

const cells = argument("cells", 1_000);
const calls = argument("calls", 5_000);
const rounds = argument("rounds", 5);
const reference = process.env.CODEX_HOST_BIN;
const RELAY_FLOOR = join(import.meta.dirname, "relay_floor.ts");
/** The relay floor as plain JavaScript: run from TypeScript, each of its processes would also carry Node's type stripper. */
async function bundledRelayFloor(folder: string): Promise<string> {
  const outfile = join(folder, "relay_floor.mjs");
  await build({
    entryPoints: [RELAY_FLOOR],
    bundle: true,
    platform: "node",
    format: "esm",
    outfile,
    logLevel: "error",
  });
  return outfile;
}
const relayFolder = mkdtempSync(join(tmpdir(), "scv-bench-relay-"));
const scvBinary = process.env.SCV_HOST_BIN;
const subjects: Subject[] = [];
let pageCacheDropped = true;
const conditions: Record<string, Figures[]> = {};
const roundShares: Record<string, number> = {};
let burner: ChildProcessWithoutNullStreams | null = null;
let floorSubject: Subject | null = null;
let inProcessSubject: Subject | null = null;
try {
  subjects.push(await (scvBinary ? start(scvBinary, ["host"]) : start(process.execPath, [MAIN, "host"])));
  if (reference && existsSync(reference)) subjects.push(await start(reference, []));
  if (!process.argv.includes("--no-floor")) {
    const relayFloor = await bundledRelayFloor(relayFolder);
    inProcessSubject = await start(process.execPath, [relayFloor, "worker"]);
    floorSubject = await start(process.execPath, [relayFloor]);
  }
  if (inProcessSubject !== null) subjects.push(inProcessSubject);
  if (floorSubject !== null) subjects.push(floorSubject);
  for (const condition of ["quiet", "loaded"]) {
    if (condition === "loaded") {
      // One core kept busy, as Codex keeps one busy while cells run.
      burner = spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "pipe" });
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    subjects.forEach(reset);
    // Interleaved rounds, so that a change in machine load affects both hosts alike.
    for (let i = 0; i < rounds; i++) {
      for (const subject of subjects) await round(subject, Math.ceil(cells / rounds), Math.ceil(calls / rounds));
    }
    conditions[condition] = subjects.map(figures);
    if (floorSubject !== null) roundShares[condition] = medianRoundShare(subjects[0]!, floorSubject);
  }
} finally {
  burner?.kill("SIGKILL");
  await Promise.all(subjects.map((subject) => subject.client.stop()));
  rmSync(relayFolder, { recursive: true, force: true });
}
const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;
/** The median of scv's share of the floor in each round: both ran back to back, so a load that changes between rounds cancels out. */
function medianRoundShare(ours: Subject, relay: Subject): number {
  const shares = ours.roundRates.map((rate, i) => rate / relay.roundRates[i]!).sort((a, b) => a - b);
  return Math.round(percentile(shares, 50) * 100) / 100;
}
const floor = await floorRssMb();
const result: Record<string, unknown> = {
  cells,
  nestedCalls: calls,
  rounds,
  scvCommand: scvBinary ? `${scvBinary} host` : "node main.ts host",
  binariesDroppedFromPageCache: pageCacheDropped,
  ...floor,
};
for (const [condition, measured] of Object.entries(conditions)) {
  const ours = measured[0]!;
  const entry: Record<string, unknown> = {
    scv: ours,
    scvTreeRssOverFloorMb: Math.round((ours.peakTreeRssMb - floor.floorRssMb) * 10) / 10,
  };
  const theirs = reference && existsSync(reference) ? measured[1] : undefined;
  const relay = floorSubject === null ? undefined : measured.at(-1)!;
  const inProcess = inProcessSubject === null ? undefined : measured.at(-2)!;
  if (relay) {
    // What any design with cells in another process can do here: no design of scv's can beat it.
    entry.relayFloor = {
      cellsPerSecond: relay.cellsPerSecond,
      nestedCallsPerSecond: relay.nestedCallsPerSecond,
      nestedCallCpuUs: relay.nestedCallCpuUs,
      // The relay's own tree after the same work: two Node processes doing nothing but pass frames.
      peakTreeRssMb: relay.peakTreeRssMb,
      processes: relay.processes,
      scvShareOfFloor: {
        cellsPerSecond: ratio(ours.cellsPerSecond, relay.cellsPerSecond),
        nestedCallsPerSecond: ratio(ours.nestedCallsPerSecond, relay.nestedCallsPerSecond),
        nestedCallsPerSecondMedianOfRounds: roundShares[condition],
      },
      ...(theirs
        ? {
          overReference: {
            cellsPerSecond: ratio(relay.cellsPerSecond, theirs.cellsPerSecond),
            nestedCallsPerSecond: ratio(relay.nestedCallsPerSecond, theirs.nestedCallsPerSecond),
          },
        }
        : {}),
    };
  }
  if (inProcess && relay) {
    // The floor of the other design: the same do-nothing host with its cells in a worker thread of its own process.
    entry.inProcessFloor = {
      nestedCallsPerSecond: inProcess.nestedCallsPerSecond,
      nestedCallCpuUs: inProcess.nestedCallCpuUs,
      peakTreeRssMb: inProcess.peakTreeRssMb,
      overRelayFloor: { nestedCallsPerSecond: ratio(inProcess.nestedCallsPerSecond, relay.nestedCallsPerSecond) },
    };
  }
  if (theirs) {
    entry.reference = theirs;
    entry.ratio = {
      cellsPerSecond: ratio(ours.cellsPerSecond, theirs.cellsPerSecond),
      cellLatencyP50: ratio(ours.cellLatencyP50Ms, theirs.cellLatencyP50Ms),
      cellLatencyP99: ratio(ours.cellLatencyP99Ms, theirs.cellLatencyP99Ms),
      nestedCallsPerSecond: ratio(ours.nestedCallsPerSecond, theirs.nestedCallsPerSecond),
      nestedCallCpu: ratio(ours.nestedCallCpuUs, theirs.nestedCallCpuUs),
      peakTreeRss: ratio(ours.peakTreeRssMb, theirs.peakTreeRssMb),
    };
    entry.goals = {
      cellsPerSecondAtLeast3x: ours.cellsPerSecond >= 3 * theirs.cellsPerSecond,
      nestedCallsAtLeast2x: ours.nestedCallsPerSecond >= 2 * theirs.nestedCallsPerSecond,
      treeRssAtMostFloorPlus25Mb: ours.peakTreeRssMb <= floor.floorRssMb + 25,
    };
  } else {
    entry.reference = "skipped: set CODEX_HOST_BIN to the reference codex-code-mode-host binary";
  }
  result[condition] = entry;
}
process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
process.exit(0);
