// Memory a sandbox process gives back when it sits idle. Runs --cells trivial cells in one session
// (one sandbox process), then lets the session sit idle for --idle seconds, and prints the resident
// memory of that session's sandbox processes (the process running the code, not a launcher such as
// bwrap) right after the last cell and at the end of the idle period, next to a fresh process's.
// Goal: an idle process returns to near a fresh one's size. Printed twice: with idle recycling off
// (`keptAsIs`, the process as V8 leaves it) and on (`recycledWhenIdle`, the default).
//   node scripts/bench/idle_memory.ts [--cells 3000] [--idle 20] [--trivial]
import { readFileSync } from "node:fs";
import { createSandbox } from "../../lib/sandbox/index.ts";
import type { CellCallbacks } from "../../lib/sandbox/index.ts";
import { codeProcess } from "../../lib/sandbox/sandbox_process.ts";
import { printJson, round } from "./stats.ts";

function argument(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? Number(process.argv[index + 1]) : fallback;
}
const CELLS = argument("cells", 3000);
const IDLE_S = argument("idle", 20);
const TRIVIAL = process.argv.includes("--trivial");
const MIB = 1024 * 1024;

const callbacks: CellCallbacks = { callTool: async (call) => call.input, notify: async () => {} };

/** Resident MB of every sandbox process below this one (the code-running process of each launcher). */
function sandboxRssMb(): number[] {
  const children = readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, "latin1").trim();
  if (children === "") return [];
  return children.split(" ").map((pid) => {
    try {
      const statm = readFileSync(`/proc/${codeProcess(Number(pid))}/statm`, "latin1");
      return round((Number(statm.split(" ")[1]) * 4096) / MIB, 1);
    } catch {
      return 0;
    }
  });
}

/** One session's life: CELLS cells, then IDLE_S seconds without any; `recycle`: the default idle recycling. */
async function measure(recycle: boolean): Promise<Record<string, unknown>> {
  const sandbox = createSandbox({ warmWorkers: 1, ...(recycle ? {} : { idleRecycleMs: Infinity }) });
  const session = sandbox.openSession();
  const run = async (source: string): Promise<void> => {
    const observation = await session.startCell({ source, tools: [], yieldTimeMs: null, callbacks }).initial;
    if (observation.kind !== "result" || observation.errorText !== null) {
      throw new Error(`benchmark cell failed: ${JSON.stringify(observation)}`);
    }
  };
  await run("text('warm')");
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const fresh = sandboxRssMb();
  for (let i = 0; i < CELLS; i++) {
    // Cells that leave something for the collector, as real ones do (`--trivial`: the host benchmark's cell).
    await run(
      TRIVIAL
        ? "text(String(1+1))"
        : `const rows = []; for (let j = 0; j < 200; j++) rows.push({ j, s: "row " + j + " ${i}" }); text(String(rows.length))`,
    );
  }
  const afterCells = sandboxRssMb();
  const samples: { s: number; mb: number[] }[] = [];
  for (let s = 1; s <= IDLE_S; s++) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    if (s % 5 === 0 || s === IDLE_S) samples.push({ s, mb: sandboxRssMb() });
  }
  const started = performance.now();
  await run("text('after idle')");
  const firstCellAfterIdleMs = performance.now() - started;
  await session.close();
  await sandbox.shutdown();
  return {
    freshRssMb: fresh,
    afterCellsRssMb: afterCells,
    idleSamples: samples,
    firstCellAfterIdleMs: round(firstCellAfterIdleMs, 1),
  };
}

printJson({
  cells: CELLS,
  idleSeconds: IDLE_S,
  keptAsIs: await measure(false),
  recycledWhenIdle: await measure(true),
  note: "2-core machine shared with other engineers' work; one entry per sandbox process below the benchmark",
});
