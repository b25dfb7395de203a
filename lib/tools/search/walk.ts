// Walking a workspace folder for grep, glob and list: children in name order, `.git` skipped, every .gitignore on
// the way honoured (those of the folders above the start too, and .git/info/exclude), ignored folders never
// entered, symbolic links reported but never followed, and what the caller does not admit (scv's instance home,
// secret-like folders) neither reported nor entered. Synchronous for speed; the caller yields now and then.

import { closeSync, constants, type Dirent, fstatSync, openSync, readdirSync, readSync } from "node:fs";
import { join } from "node:path";
import { setImmediate } from "node:timers";
import { type IgnoreRule, matchRules, parseGitignore } from "./gitignore.ts";

export type WalkEntry = {
  /** Workspace-relative, `/`-separated. */
  path: string;
  kind: "file" | "directory" | "symlink" | "other";
  /** Folders below the start (its children are depth 1). */
  depth: number;
};

type IgnoreLevel = { base: string; rules: IgnoreRule[] };

export type WalkOptions = {
  /** Do not list entries deeper than this (children of the start are depth 1). */
  maxDepth?: number;
  /** Called for each folder before it is entered; false skips it (glob prunes folders its pattern cannot reach). */
  enter?: (path: string) => boolean;
  /** Called for each entry that is not ignored; false leaves it out: not reported and, for a folder, not entered. */
  admit?: (entry: WalkEntry) => boolean;
};

/** Entries under `start` (workspace-relative, "" for the root; a real folder already checked to be inside). */
export function* walk(workspace: string, start: string, options: WalkOptions = {}): Generator<WalkEntry> {
  const levels: IgnoreLevel[] = [];
  const rootExclude = readRules(join(workspace, ".git", "info", "exclude"));
  if (rootExclude.length > 0) levels.push({ base: "", rules: rootExclude });
  // The .gitignore files of the start's ancestors apply to what is below it. A start folder that is itself
  // ignored is still walked (it was asked for by name, as ripgrep searches an ignored path given to it).
  const parts = start === "" ? [] : start.split("/");
  for (let depth = 0; depth <= parts.length; depth += 1) {
    const dir = parts.slice(0, depth).join("/");
    const rules = readRules(join(workspace, dir, ".gitignore"));
    if (rules.length > 0) levels.push({ base: dir, rules });
  }
  yield* walkDir(workspace, start, 1, levels, options);
}

function* walkDir(
  workspace: string,
  dir: string,
  depth: number,
  levels: IgnoreLevel[],
  options: WalkOptions,
): Generator<WalkEntry> {
  let entries: Dirent[];
  try {
    entries = readdirSync(join(workspace, dir), { withFileTypes: true });
  } catch {
    return;
  }
  // A folder sorts as `name/`, so the walk yields full paths in plain string order (`a.txt` before `a/x`).
  const key = (entry: Dirent) => (entry.isDirectory() ? `${entry.name}/` : entry.name);
  entries.sort((a, b) => {
    const left = key(a);
    const right = key(b);
    return left < right ? -1 : left > right ? 1 : 0;
  });
  for (const entry of entries) {
    const name = entry.name;
    if (name === ".git") continue;
    const path = dir === "" ? name : `${dir}/${name}`;
    const kind = entry.isDirectory()
      ? "directory"
      : entry.isFile()
      ? "file"
      : entry.isSymbolicLink()
      ? "symlink"
      : "other";
    if (isIgnored(levels, path, kind === "directory")) continue;
    const walked: WalkEntry = { path, kind, depth };
    if (options.admit !== undefined && !options.admit(walked)) continue;
    yield walked;
    if (kind !== "directory") continue;
    if (options.maxDepth !== undefined && depth >= options.maxDepth) continue;
    if (options.enter !== undefined && !options.enter(path)) continue;
    const rules = readRules(join(workspace, path, ".gitignore"));
    const next = rules.length > 0 ? [...levels, { base: path, rules }] : levels;
    yield* walkDir(workspace, path, depth + 1, next, options);
  }
}

/** The deepest .gitignore with an opinion decides; within one file the last matching rule does. */
function isIgnored(levels: IgnoreLevel[], path: string, isDirectory: boolean): boolean {
  for (let index = levels.length - 1; index >= 0; index -= 1) {
    const level = levels[index]!;
    const relative = level.base === "" ? path : path.slice(level.base.length + 1);
    const verdict = matchRules(level.rules, relative, isDirectory);
    if (verdict !== undefined) return verdict;
  }
  return false;
}

/** Larger ignore files are not read (no real one comes near this). */
const MAX_IGNORE_FILE_BYTES = 1024 * 1024;

/**
 * The rules of an ignore file; none when it is missing, not a regular file (a symlink is not followed, a FIFO
 * would block the walk), or too large.
 */
function readRules(file: string): IgnoreRule[] {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return [];
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile() || info.size > MAX_IGNORE_FILE_BYTES) return [];
    const buffer = Buffer.alloc(info.size);
    let filled = 0;
    while (filled < buffer.length) {
      const read = readSync(fd, buffer, filled, buffer.length - filled, filled);
      if (read === 0) break;
      filled += read;
    }
    return parseGitignore(buffer.toString("utf8", 0, filled));
  } catch {
    return [];
  } finally {
    closeSync(fd);
  }
}

/** Lets other work run (and a cancellation be seen) during a long synchronous walk. */
export function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
