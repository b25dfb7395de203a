// A client that stops reading while cells emit large output (issue 26, item 7b): the host's peak
// resident memory, and whether every execute is answered once the client reads again. Prints one
// JSON object. Not a timed benchmark: the figure is memory.
//
//   node scripts/bench/host_output_budget.ts [--cells 20] [--mib 60] [--stall-ms 8000]
//
// `SCV_HOST_BIN=/path/to/scv` measures a compiled binary instead of `node main.ts host`.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { encodeFrame, readFrames } from "../../lib/codec/index.ts";
import { parsePreciseJson } from "../../lib/host/precise_json.ts";
import { cliCommand } from "../../tests/support/cli_command.ts";
import { execute, hello, open, ROOT } from "../../tests/support/frame_client.ts";

// Frames are read as untyped wire JSON; the script checks only the fields it counts.
// deno-lint-ignore no-explicit-any
type Frame = any;

function argument(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? Number(process.argv[index + 1]) : fallback;
}

function statusKb(pid: number, field: string): number {
  try {
    const match = readFileSync(`/proc/${pid}/status`, "latin1").match(new RegExp(`^${field}:\\s+(\\d+) kB`, "m"));
    return match === null ? 0 : Number(match[1]);
  } catch {
    return 0;
  }
}

const cells = argument("cells", 20);
const mib = argument("mib", 60);
const stallMs = argument("stall-ms", 8_000);
const binary = process.env.SCV_HOST_BIN;
const { command, args } = binary ? { command: binary, args: ["host"] } : cliCommand(["host"]);
const host = spawn(command, args, { cwd: ROOT, stdio: ["pipe", "pipe", "pipe"], env: { ...process.env } });
let stderr = "";
host.stderr.setEncoding("utf8");
host.stderr.on("data", (chunk: string) => (stderr += chunk));
const exited = new Promise<number | null>((resolve) => host.once("exit", (code) => resolve(code)));

let peakKb = 0;
const sampler = setInterval(() => (peakKb = Math.max(peakKb, statusKb(host.pid!, "VmRSS"))), 20);

host.stdin.write(encodeFrame(hello(["yield-observation"])));
host.stdin.write(encodeFrame(open(1, "s")));
// Nothing is read while the cells run: the host's stdout pipe fills and stays full.
for (let i = 0; i < cells; i++) {
  host.stdin.write(
    encodeFrame(execute(10 + i, "s", `text('x'.repeat(${mib} * 1024 * 1024))`, { yieldTimeMs: 600_000 })),
  );
}
await new Promise((resolve) => setTimeout(resolve, stallMs));
const stalledPeakMb = Math.round(Math.max(peakKb, statusKb(host.pid!, "VmHWM")) / 1024);

// Reading again.
const answered = new Set<number>();
let bytes = 0;
const started = performance.now();
const reader = (async () => {
  for await (
    const frame of readFrames(host.stdout, { parse: parsePreciseJson }) as AsyncIterable<Frame>
  ) {
    if (frame.type !== "execute/initialResponse") continue;
    const id = Number(frame.id);
    const text = frame.result?.value?.Result?.content_items?.[0]?.text;
    if (typeof text === "string") bytes += text.length;
    answered.add(id);
    if (answered.size === cells) return;
  }
})();
const outcome = await Promise.race([
  reader.then(() => "answered"),
  exited.then((code) => `host exited (${code})`),
  new Promise<string>((resolve) => setTimeout(() => resolve("timed out"), 1_800_000)),
]);
const readSeconds = (performance.now() - started) / 1000;
const peakMb = Math.round(Math.max(peakKb, statusKb(host.pid!, "VmHWM")) / 1024);
clearInterval(sampler);
host.kill("SIGKILL");
console.log(JSON.stringify({
  host: binary ?? "node main.ts host",
  cells,
  mibPerCell: mib,
  outcome,
  executesAnswered: answered.size,
  textMiB: Math.round(bytes / 1024 / 1024),
  peakRssMbWhileStalled: stalledPeakMb,
  peakRssMb: peakMb,
  readSeconds: Math.round(readSeconds * 10) / 10,
  stderrTail: stderr.trim().split("\n").slice(-3),
}));
process.exit(0);
