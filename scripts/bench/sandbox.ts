// Sandbox benchmark: sequential trivial cells and sequential nested tool calls, no transport.
// Prints one JSON object: cells/s, p50/p99 ms, nested calls/s, peak RSS MB (main thread and workers).
import { createSandbox } from "../../lib/sandbox/index.ts";
import type { CellCallbacks, ToolDefinition } from "../../lib/sandbox/index.ts";
import { percentile, printJson, round } from "./stats.ts";

const CELLS = Number(process.env.SCV_BENCH_CELLS ?? 2000);
const TOOL_CELLS = Number(process.env.SCV_BENCH_TOOL_CELLS ?? 20);
const CALLS_PER_CELL = 100;

const echo: ToolDefinition = {
  name: "echo",
  tool_name: { name: "echo", namespace: null },
  description: "Returns its input",
  kind: "function",
};
const callbacks: CellCallbacks = {
  callTool: async (call) => call.input,
  notify: async () => {},
};

let peakRss = process.memoryUsage().rss;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);

const sandbox = createSandbox();
const session = sandbox.openSession();
const run = async (source: string): Promise<void> => {
  const observation = await session.startCell({ source, tools: [echo], yieldTimeMs: 30_000, callbacks }).initial;
  if (observation.kind !== "result" || observation.errorText !== null) {
    throw new Error(`Benchmark cell failed: ${JSON.stringify(observation)}`);
  }
};

// Warm-up: boot the pool and let V8 compile the hot paths.
for (let i = 0; i < 200; i++) await run("text(String(1+1))");

const latencies: number[] = [];
const cellsStart = performance.now();
for (let i = 0; i < CELLS; i++) {
  const start = performance.now();
  await run("text(String(1+1))");
  latencies.push(performance.now() - start);
}
const cellsSeconds = (performance.now() - cellsStart) / 1000;
latencies.sort((a, b) => a - b);

const toolSource = `for (let i = 0; i < ${CALLS_PER_CELL}; i++) await tools.echo({ i }); text("ok")`;
await run(toolSource);
const toolsStart = performance.now();
for (let i = 0; i < TOOL_CELLS; i++) await run(toolSource);
const toolSeconds = (performance.now() - toolsStart) / 1000;

await sandbox.shutdown();
clearInterval(sampler);
peakRss = Math.max(peakRss, process.memoryUsage().rss);

printJson({
  cells: CELLS,
  cellsPerSecond: round(CELLS / cellsSeconds, 1),
  p50Ms: round(percentile(latencies, 50)),
  p99Ms: round(percentile(latencies, 99)),
  nestedCallsPerSecond: round((TOOL_CELLS * CALLS_PER_CELL) / toolSeconds, 0),
  peakRssMb: round(peakRss / (1024 * 1024), 1),
});
