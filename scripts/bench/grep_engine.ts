// grep over a large real tree (default: this repository's node_modules, ~140 MB of text) with the `grep` tool, whose
// regular expression runs in a worker thread (lib/tools/search/regex_worker.ts), next to the engine it replaced:
// the same walk, reads and line matcher on the main thread. For each pattern: the median time of both, their ratio
// (goal: the tool within 1.5× of the main-thread engine), the matching lines each found, and the longest stall
// of the main thread's event loop during the search (what other sessions wait for). BENCH_GREP_ROOT picks another
// tree (searched as the workspace), BENCH_GREP_RUNS the runs per engine (default 5, alternating). Not part of
// `npm run bench` (minutes on a loaded machine). Prints JSON.
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { defaultConfig } from "../../lib/config/defaults.ts";
import { createGrepTool } from "../../lib/tools/search/grep.ts";
import { searchText } from "../../lib/tools/search/search_text.ts";
import { walk, yieldToLoop } from "../../lib/tools/search/walk.ts";
import { median, printJson, round } from "./stats.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TREE = resolve(process.env.BENCH_GREP_ROOT ?? join(ROOT, "node_modules"));
// The tree is searched as a folder of the repository when it is inside it (node_modules is ignored there, and a
// folder asked for by name is still searched), else as a workspace of its own.
const WORKSPACE = TREE.startsWith(ROOT) ? ROOT : TREE;
const START = relative(WORKSPACE, TREE) || ".";
const RUNS = Number(process.env.BENCH_GREP_RUNS ?? 5);
const PATTERNS = [
  { pattern: "useState", note: "a literal (files without it are skipped before matching)" },
  { pattern: "function\\s+\\w+\\(", note: "a literal, then classes" },
  { pattern: "TODO|FIXME", note: "an alternation (no prefilter)" },
  { pattern: "[a-z]+Error\\(", note: "a class loop (backtracks a little on every line)" },
  { pattern: "\\d{4}-\\d{2}-\\d{2}", note: "no literal at all" },
];
const MAX_RESULTS = 2000;
const MAX_FILE_BYTES = 16 * 1024 * 1024;

const config = defaultConfig("/nonexistent");

async function toolGrep(pattern: string): Promise<number> {
  const prepared = createGrepTool().prepare({ pattern, path: START, max_results: MAX_RESULTS }, {
    workspace: WORKSPACE,
    config,
  });
  if ("error" in prepared) throw new Error(prepared.error);
  const outcome = await prepared.run({
    workspace: WORKSPACE,
    config,
    signal: new AbortController().signal,
    progress: () => {},
  });
  if (!outcome.success) throw new Error(outcome.output);
  const more = outcome.output.match(/… (\d+) more matching lines/);
  const shown = outcome.output.split("\n").filter((line) => /^[^(…].*:\d+:/.test(line)).length;
  return shown + (more ? Number(more[1]) : 0);
}

/** The engine grep had before: walk, read and match on the main thread, yielding every 20 ms between files. */
async function mainThreadGrep(pattern: string): Promise<number> {
  const regex = new RegExp(pattern, "gm");
  const probe = Buffer.alloc(8192);
  let total = 0;
  let last = Date.now();
  for (const entry of walk(WORKSPACE, START === "." ? "" : START)) {
    if (entry.kind === "file") {
      let fd: number;
      try {
        fd = openSync(join(WORKSPACE, entry.path), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
      } catch {
        continue;
      }
      try {
        const info = fstatSync(fd);
        if (info.isFile() && info.size > 0 && info.size <= MAX_FILE_BYTES) {
          const first = readSync(fd, probe, 0, Math.min(8192, info.size), 0);
          if (!probe.subarray(0, first).includes(0)) {
            const buffer = Buffer.allocUnsafe(info.size);
            let filled = 0;
            while (filled < info.size) {
              const read = readSync(fd, buffer, filled, info.size - filled, filled);
              if (read === 0) break;
              filled += read;
            }
            total += searchText(buffer.toString("utf8", 0, filled), regex, () => {});
          }
        }
      } finally {
        closeSync(fd);
      }
    }
    if (Date.now() - last > 20) {
      await yieldToLoop();
      last = Date.now();
    }
  }
  return total;
}

type Figures = { seconds: number[]; lines: number; stallMs: number };

/** One timed run, added to `figures`: seconds, the line count, and the longest event-loop stall (ms). */
async function measure(run: () => Promise<number>, figures: Figures): Promise<void> {
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  histogram.enable();
  const start = process.hrtime.bigint();
  figures.lines = await run();
  figures.seconds.push(Number(process.hrtime.bigint() - start) / 1e9);
  histogram.disable();
  figures.stallMs = Math.max(figures.stallMs, histogram.max / 1e6);
}

const results: Record<string, unknown>[] = [];
for (const { pattern, note } of PATTERNS) {
  const worker: Figures = { seconds: [], lines: 0, stallMs: 0 };
  const main: Figures = { seconds: [], lines: 0, stallMs: 0 };
  // Warm the page cache and the JIT, then alternate so that both see the same machine load.
  await toolGrep(pattern);
  await mainThreadGrep(pattern);
  for (let index = 0; index < RUNS; index += 1) {
    await measure(() => toolGrep(pattern), worker);
    await measure(() => mainThreadGrep(pattern), main);
  }
  const toolSeconds = median(worker.seconds);
  const mainSeconds = median(main.seconds);
  results.push({
    pattern,
    note,
    tool_seconds: round(toolSeconds),
    main_thread_seconds: round(mainSeconds),
    tool_vs_main_thread: round(toolSeconds / mainSeconds, 2),
    goal_met: toolSeconds <= 1.5 * mainSeconds,
    // The tool leaves out secret-like and hard-linked files, which the old engine searched.
    lines_tool: worker.lines,
    lines_main_thread: main.lines,
    tool_longest_stall_ms: round(worker.stallMs, 1),
    main_thread_longest_stall_ms: round(main.stallMs, 1),
  });
}
printJson({ tree: TREE, runs: RUNS, patterns: results });
