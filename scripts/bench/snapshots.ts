// Workspace snapshots (lib/snapshots, the git store) against `git status` of the same tree in the same run. Prints
// JSON:
// - first_ms: the first snapshot of a fresh store (every file hashed once);
// - unchanged_ms / git_status_unchanged_ms: a snapshot of the unchanged workspace, and `git status --porcelain` of
//   the same tree as a git repository with everything committed (median of --runs);
// - changed_ms / git_status_changed_ms: the same after --changed files were rewritten (new content each run);
// - git_add_changed_ms: `git add -A` of those changes in that repository, for reference: what git itself pays to store
//   them (a snapshot stores them too, and their folders' trees, which is most of its cost over git status);
// - ratio_unchanged, ratio_changed: snapshot ÷ git status; goal ≤ 2.
//   node scripts/bench/snapshots.ts [--files 10000] [--changed 100] [--runs 7]
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
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
const RUNS = argument("runs", 7);
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

let round_ = 0;
function changeFiles(): void {
  round_ += 1;
  for (let index = 0; index < CHANGED; index += 1) {
    const file = Math.floor((index * FILES) / CHANGED);
    writeFileSync(join(workspace, pathOf(file)), `export const value${file} = ${round_};\n`);
  }
}

try {
  writeTree();
  ageTree();
  git("init", "-q");
  git("add", "-A");
  git("commit", "-qm", "tree");
  git("status", "--porcelain");

  const store = await openSnapshots({
    home,
    workspace,
    sessionId: "00000000-0000-4000-8000-000000000000",
    maxFileBytes: 10 << 20,
    maxFiles: FILES * 2,
    env: process.env,
  });
  const first = await time(() => store.beforeTurn("first"));
  // One more look settles the racily clean entries the first index write left, as git status does for git.
  await store.afterTurn("first");

  const unchanged: number[] = [];
  const statusUnchanged: number[] = [];
  for (let run = 0; run < RUNS; run += 1) {
    unchanged.push(await time(() => store.beforeTurn(`u${run}`)));
    statusUnchanged.push(await time(() => git("status", "--porcelain")));
  }

  const changed: number[] = [];
  const statusChanged: number[] = [];
  const added: number[] = [];
  for (let run = 0; run < RUNS; run += 1) {
    changeFiles();
    statusChanged.push(await time(() => git("status", "--porcelain")));
    changed.push(await time(() => store.beforeTurn(`c${run}`)));
    added.push(await time(() => git("add", "-A")));
  }

  const figures = {
    files: FILES,
    changed_files: CHANGED,
    runs: RUNS,
    first_ms: round(first, 1),
    unchanged_ms: round(median(unchanged), 1),
    git_status_unchanged_ms: round(median(statusUnchanged), 1),
    changed_ms: round(median(changed), 1),
    git_status_changed_ms: round(median(statusChanged), 1),
    git_add_changed_ms: round(median(added), 1),
    ratio_unchanged: round(median(unchanged) / median(statusUnchanged), 2),
    ratio_changed: round(median(changed) / median(statusChanged), 2),
    goal: "ratio ≤ 2",
  };
  printJson(figures);
} finally {
  rmSync(root, { recursive: true, force: true });
}
