// Command sandbox benchmark (issue 29): what confining one command costs. Runs `bash -c true` `--runs` times as is and
// through each Linux back end whose self-test holds here (the same launch the `bash` tool uses, the layout planned per
// command as the tool does), interleaved run by run so that a change in the machine's load touches all alike; once
// "quiet" and once "loaded" (one core kept busy by a CPU-bound process this benchmark starts). The workspace is a
// small repository-like tree (folders and files two levels deep, as the secret walk reads them). Prints one JSON
// object.
//
//   node scripts/bench/command_sandbox.ts [--runs 40]
//
// Figures: per condition and back end, p50 and p90 of spawn → exit in ms, overhead_p50_ms over the unconfined p50 (the
// issue's goal: under 15 ms) and layout_p50_ms, the part of it spent in scv before the spawn (planning the layout and
// building the command line). `walk` is the secret walk alone over the tree, read afresh and reused (nothing
// changed); `self_test_ms` the back end's self-test (once per process).
//
// `tool` is what a user waits for: the `bash` tool's run of `true` from call to outcome, unconfined and in each back
// end, with `--gap` ms between commands (the model reading the last output, 300 by default) in which the tool sets
// up the next command's sandbox ahead (lib/tools/standby_shell.ts); overhead_p50_ms is over the unconfined tool run.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import path from "node:path";
import { CommandSandbox, scanSecrets } from "../../lib/confine/index.ts";
import { bashTools, timeBashTool } from "./bash_tool_run.ts";
import { percentile, printJson, round } from "./stats.ts";

function argument(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? Number(process.argv[index + 1]) : fallback;
}
const RUNS = argument("runs", 40);
const GAP_MS = argument("gap", 300);
const BACKENDS = ["bwrap", "unshare"] as const;
/** The secret walk trusts no folder changed this recently (lib/confine/secret_scan.ts); the tree is left to age. */
const RACY_MARGIN_MS = 3_000;

function timed(file: string, args: string[], cwd: string, env: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(file, args, { cwd, env: { ...process.env, ...env }, stdio: "ignore" });
    child.once("error", reject);
    child.once(
      "exit",
      (code) => code === 0 ? resolve(performance.now() - started) : reject(new Error(`${file} exited ${code}`)),
    );
  });
}

/** A repository-like tree: 12 folders of 8 folders of 10 files, a .git, a few files at the top. */
function makeWorkspace(): { workspace: string; folders: number; entries: number } {
  const workspace = mkdtempSync("/var/tmp/scv-bench-sandbox-");
  mkdirSync(path.join(workspace, ".git"));
  let folders = 1;
  let entries = 1;
  for (const name of ["package.json", "README.md", "tsconfig.json"]) {
    writeFileSync(path.join(workspace, name), "{}\n");
    entries += 1;
  }
  for (let top = 0; top < 12; top++) {
    for (let sub = 0; sub < 8; sub++) {
      const folder = path.join(workspace, `area${top}`, `module${sub}`);
      mkdirSync(folder, { recursive: true });
      for (let file = 0; file < 10; file++) writeFileSync(path.join(folder, `file${file}.ts`), "export {};\n");
      folders += 1;
      entries += 11;
    }
    folders += 1;
    entries += 1;
  }
  return { workspace, folders, entries };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const p50 = (values: number[]) => percentile([...values].sort((a, b) => a - b), 50);
const p90 = (values: number[]) => percentile([...values].sort((a, b) => a - b), 90);

/** The secret walk alone: afresh (a file made and removed at the top each time, so nothing is reused) and reused. */
function walkFigures(workspace: string) {
  const fresh: number[] = [];
  const reused: number[] = [];
  const marker = path.join(workspace, "walk-marker");
  for (let run = 0; run < RUNS; run++) {
    writeFileSync(marker, "");
    rmSync(marker);
    const begin = performance.now();
    scanSecrets(workspace);
    fresh.push(performance.now() - begin);
  }
  const aged = () => BigInt(Date.now() + 60_000) * 1_000_000n;
  scanSecrets(workspace, aged);
  for (let run = 0; run < RUNS; run++) {
    const begin = performance.now();
    const scan = scanSecrets(workspace, aged);
    reused.push(performance.now() - begin);
    if (!scan.reused) throw new Error("the walk was not reused although nothing changed");
  }
  return { afresh_p50_ms: round(p50(fresh)), reused_p50_ms: round(p50(reused)) };
}

const { workspace, folders, entries } = makeWorkspace();
const loadAtStart = loadavg().map((value) => round(value, 2));
let burner: ReturnType<typeof spawn> | undefined;
try {
  const sandboxes: Partial<Record<(typeof BACKENDS)[number], CommandSandbox>> = {};
  const selfTests: Record<string, unknown> = {};
  for (const backend of BACKENDS) {
    const started = performance.now();
    const sandbox = await CommandSandbox.open({
      mode: "workspace-write",
      workspace,
      writableRoots: [],
      network: false,
      hidden: [],
      env: { SCV_SANDBOX_BACKEND: backend },
    });
    selfTests[backend] = sandbox.active ? round(performance.now() - started) : { holds: false, why: sandbox.missing };
    if (sandbox.active) sandboxes[backend] = sandbox;
  }
  const walk = walkFigures(workspace);
  // Let the tree age past the walk's racy margin, as a workspace between two commands has.
  const age = Date.now() - statSync(workspace).ctimeMs;
  if (age < RACY_MARGIN_MS + 100) await sleep(RACY_MARGIN_MS + 100 - age);

  const conditions: Record<string, unknown> = {};
  for (const condition of ["quiet", "loaded"] as const) {
    if (condition === "loaded") {
      burner = spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" });
      await sleep(200);
    }
    const plain: number[] = [];
    const confined: Record<string, { total: number[]; layout: number[] }> = {};
    for (let run = 0; run < RUNS; run++) {
      plain.push(await timed("/bin/bash", ["-c", "true"], workspace, {}));
      for (const [backend, sandbox] of Object.entries(sandboxes)) {
        const series = (confined[backend] ??= { total: [], layout: [] });
        const begin = performance.now();
        const launch = sandbox.launch({ file: "/bin/bash", args: ["-c", "true"] })!;
        series.layout.push(performance.now() - begin);
        await timed(launch.file, launch.args, workspace, launch.env);
        series.total.push(performance.now() - begin);
      }
    }
    const tools = bashTools(sandboxes);
    const toolTimes: Record<string, number[]> = {};
    for (let run = 0; run < RUNS; run++) {
      for (const [name, tool] of Object.entries(tools)) {
        (toolTimes[name] ??= []).push(await timeBashTool(tool, workspace, "true"));
        await sleep(GAP_MS);
      }
    }
    const toolPlainP50 = p50(toolTimes.unconfined!);
    const plainP50 = p50(plain);
    conditions[condition] = {
      load_average: loadavg().map((value) => round(value, 2)),
      unconfined: { p50_ms: round(plainP50), p90_ms: round(p90(plain)) },
      ...Object.fromEntries(
        Object.entries(confined).map(([backend, series]) => [backend, {
          p50_ms: round(p50(series.total)),
          p90_ms: round(p90(series.total)),
          overhead_p50_ms: round(p50(series.total) - plainP50),
          layout_p50_ms: round(p50(series.layout)),
        }]),
      ),
      tool: Object.fromEntries(
        Object.entries(toolTimes).map(([name, times]) => [name, {
          p50_ms: round(p50(times)),
          p90_ms: round(p90(times)),
          ...(name === "unconfined" ? {} : { overhead_p50_ms: round(p50(times) - toolPlainP50) }),
        }]),
      ),
    };
  }
  printJson({
    runs: RUNS,
    gap_ms: GAP_MS,
    load_average_at_start: loadAtStart,
    workspace: { folders, entries },
    self_test_ms: selfTests,
    walk,
    ...conditions,
  });
} finally {
  burner?.kill("SIGKILL");
  rmSync(workspace, { recursive: true, force: true });
}
