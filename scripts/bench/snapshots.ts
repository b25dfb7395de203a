// Workspace snapshots (lib/snapshots, the git store) against `git status` of the same tree in the same run. Prints
// JSON:
// - first_ms / git_first_ms: the first snapshot of a fresh store (every file stored once), and `git add -A` +
//   `git commit` of the same tree in a fresh repository; ratio_first is the one over the other;
// - unchanged_ms / git_status_unchanged_ms: a snapshot of the unchanged workspace, and `git status --porcelain` of
//   the same tree as a git repository with everything committed (median of --runs);
// - changed_ms / git_status_changed_ms: the same after --changed files were rewritten (new content each run);
// - git_add_changed_ms: `git add -A` of those changes in that repository, for reference: what git itself pays to store
//   them (a snapshot stores them too, and their folders' trees, which is most of its cost over git status);
// - ratio_unchanged, ratio_changed: snapshot ÷ git status; goal ≤ 2;
// - cpu_ratio_unchanged, cpu_ratio_changed: the same by CPU time (the store's git processes and its own, summed over
//   the runs), steadier than wall time on a loaded machine; null where /proc/self/stat is missing (not Linux).
// Files written in one phase are flushed (`sync`) before the next is timed: the disk's writeback of one phase made the
// next one's figures swing by half on this VM.
//   node scripts/bench/snapshots.ts [--files 10000] [--changed 100] [--runs 11]
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSnapshots } from "../../lib/snapshots/index.ts";
import { median, printJson, round } from "./stats.ts";

function argument(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? Number(process.argv[index + 1]) : fallback;
}
const FILES = argument("files", 10_000);
const CHANGED = argument("changed", 100);
const RUNS = argument("runs", 11);
const PER_FOLDER = 50;

const root = mkdtempSync(join(tmpdir(), "scv-bench-snapshots-"));
const workspace = join(root, "workspace");
const home = join(root, "home");
mkdirSync(workspace);
mkdirSync(home);

const pathOf = (index: number) =>
  join(`pkg${Math.floor(index / (PER_FOLDER * 20))}`, `dir${Math.floor(index / PER_FOLDER) % 20}`, `file${index}.ts`);

function writeTree(): void {
  for (let index = 0; index < FILES; index += 1) {
    const path = join(workspace, pathOf(index));
    if (index % PER_FOLDER === 0) mkdirSync(join(path, ".."), { recursive: true });
    writeFileSync(path, `export const value${index} = ${index};\n// ${"x".repeat(index % 400)}\n`);
  }
  writeFileSync(join(workspace, ".gitignore"), "node_modules/\n");
}

// Files written within the second the index is written are "racily clean" to git and rehashed on every look; a
// real workspace's files are older. Every file is dated a minute back, as both git and the store then see them.
function ageTree(): void {
  const past = new Date(Date.now() - 60_000);
  for (let index = 0; index < FILES; index += 1) utimesSync(join(workspace, pathOf(index)), past, past);
}

const gitEnv = { ...process.env, GIT_CONFIG_NOSYSTEM: "1", HOME: root, GIT_AUTHOR_NAME: "b", GIT_AUTHOR_EMAIL: "b@b" };
const git = (...args: string[]) =>
  execFileSync("git", args, {
    cwd: workspace,
    env: { ...gitEnv, GIT_COMMITTER_NAME: "b", GIT_COMMITTER_EMAIL: "b@b" },
    maxBuffer: 256 << 20,
  });

async function time(run: () => unknown): Promise<number> {
  const start = performance.now();
  await run();
  return performance.now() - start;
}

// CPU milliseconds of this process and of its children waited for (from /proc/self/stat, in clock ticks of 10 ms).
function cpuMs(): number | undefined {
  let stat: string;
  try {
    stat = readFileSync("/proc/self/stat", "latin1");
  } catch {
    return undefined;
  }
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // utime, stime, cutime, cstime are fields 14 to 17; the slice starts at field 3.
  return fields.slice(11, 15).reduce((sum, field) => sum + Number(field), 0) * 10;
}

const cpuCounter = (): { total: number | undefined } => ({ total: cpuMs() === undefined ? undefined : 0 });

/** Runs `run`, adding its wall time to `wall` and its CPU time (this process and children) to `cpu.total`. */
async function measure(run: () => unknown, wall: number[], cpu: { total: number | undefined }): Promise<void> {
  const cpuBefore = cpuMs();
  wall.push(await time(run));
  const cpuAfter = cpuMs();
  cpu.total = cpuBefore === undefined || cpuAfter === undefined || cpu.total === undefined
    ? undefined
    : cpu.total + cpuAfter - cpuBefore;
}

function cpuRatio(store: { total: number | undefined }, git: { total: number | undefined }): number | null {
  return store.total === undefined || git.total === undefined || git.total === 0
    ? null
    : round(store.total / git.total, 2);
}

let round_ = 0;
function changeFiles(): void {
  round_ += 1;
  for (let index = 0; index < CHANGED; index += 1) {
    const file = Math.floor((index * FILES) / CHANGED);
    writeFileSync(join(workspace, pathOf(file)), `export const value${file} = ${round_};\n`);
  }
  flush();
}

function flush(): void {
  if (process.platform !== "win32") execFileSync("sync");
}

try {
  writeTree();
  ageTree();
  flush();
  git("init", "-q");
  const gitFirst = await time(() => {
    git("add", "-A");
    git("commit", "-qm", "tree");
  });
  git("status", "--porcelain");

  const store = await openSnapshots({
    home,
    workspace,
    sessionId: "00000000-0000-4000-8000-000000000000",
    maxFileBytes: 10 << 20,
    maxFiles: FILES * 2,
    timeoutMs: 600_000,
    env: process.env,
  });
  flush();
  const first = await time(() => store.beforeTurn("first"));
  // One more look settles the racily clean entries the first index write left, as git status does for git.
  await store.afterTurn("first");
  flush();

  const unchanged: number[] = [];
  const statusUnchanged: number[] = [];
  const cpu = { unchanged: cpuCounter(), statusUnchanged: cpuCounter() };
  for (let run = 0; run < RUNS; run += 1) {
    await measure(() => store.beforeTurn(`u${run}`), unchanged, cpu.unchanged);
    await measure(() => git("status", "--porcelain"), statusUnchanged, cpu.statusUnchanged);
  }

  const changed: number[] = [];
  const statusChanged: number[] = [];
  const added: number[] = [];
  const cpuChanged = { changed: cpuCounter(), statusChanged: cpuCounter() };
  for (let run = 0; run < RUNS; run += 1) {
    changeFiles();
    await measure(() => git("status", "--porcelain"), statusChanged, cpuChanged.statusChanged);
    await measure(() => store.beforeTurn(`c${run}`), changed, cpuChanged.changed);
    added.push(await time(() => git("add", "-A")));
  }

  const figures = {
    files: FILES,
    changed_files: CHANGED,
    runs: RUNS,
    first_ms: round(first, 1),
    git_first_ms: round(gitFirst, 1),
    ratio_first: round(first / gitFirst, 2),
    unchanged_ms: round(median(unchanged), 1),
    git_status_unchanged_ms: round(median(statusUnchanged), 1),
    changed_ms: round(median(changed), 1),
    git_status_changed_ms: round(median(statusChanged), 1),
    git_add_changed_ms: round(median(added), 1),
    ratio_unchanged: round(median(unchanged) / median(statusUnchanged), 2),
    ratio_changed: round(median(changed) / median(statusChanged), 2),
    cpu_ratio_unchanged: cpuRatio(cpu.unchanged, cpu.statusUnchanged),
    cpu_ratio_changed: cpuRatio(cpuChanged.changed, cpuChanged.statusChanged),
    goal: "ratio ≤ 2",
  };
  printJson(figures);
} finally {
  rmSync(root, { recursive: true, force: true });
}
