// Secret-like files inside the writable folders (lib/policy's list: `.env`, keys, …), found by a
// bounded walk before each command so that a confined process can neither read nor replace them. The walk is
// shallow on purpose: it runs before every command. It looks at the folder itself and two levels below it
// (`./.env`, `./pkg/.env`, `./apps/web/.env`), at most SCAN_ENTRY_LIMIT entries, does not enter `node_modules`,
// `.git` or any folder that is itself secret-like (that one is hidden whole), and follows no symbolic link. A secret
// deeper down is not hidden; docs/security.md says so. `.git/config` stays readable (read-only): git cannot work
// without it, and without a network a token in a remote's URL has nowhere to go. A walk whose folders have not changed
// since the last one is not repeated (below: how a change is seen). The same walk finds the `.git`, `.hg`, `.jj` and
// `.scv` of nested repositories and packages, which the layout keeps read-only.
import { type Dirent, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { isSecretLikePath } from "../policy/index.ts";
import { PROTECTED_NAMES } from "./policy.ts";

/** Folders below a writable root that are looked into: the root is level 0. */
export const SCAN_DEPTH = 2;
/** Directory entries looked at per writable root, at most. */
export const SCAN_ENTRY_LIMIT = 4096;
const NOT_ENTERED = new Set(["node_modules", ".git"]);
const PROTECTED = new Set(PROTECTED_NAMES);

export type ScanResult = {
  /** Absolute paths of secret-like entries (files and folders), as found (not resolved). */
  found: string[];
  /**
   * Absolute paths of the protected entries (`.git`, `.hg`, `.jj`, `.scv`) below the root (a nested repository, a
   * submodule's `.git` file, a package's own scv folder), as found: they stay read-only as the root's own do. The
   * root's own are not listed.
   */
  protectedNested: string[];
  /** True when the entry limit cut the walk short. */
  cut: boolean;
  /** True when no folder the walk reads changed since the last walk of this root, whose result this is. */
  reused: boolean;
};

/**
 * A folder the walk read, as it was just before: a folder's change time moves whenever an entry in it is added,
 * removed or renamed (and whenever anything sets its times, so `touch -d` cannot put it back), and a folder put in
 * another's place has another inode.
 */
type Stamp = { path: string; dev: bigint; ino: bigint; mtimeNs: bigint; ctimeNs: bigint };

/**
 * A folder changed this close to the walk is not trusted to show a later change: a file system's clock ticks
 * coarsely (and some keep whole seconds), so a change in the same tick as the walk could leave its times as they
 * were. Git's "racily clean" rule, with a margin for file systems with 1- or 2-second times.
 */
const RACY_MARGIN_NS = 3_000_000_000n;

/** The last walk of each root, kept only when every folder it read was older than the margin. */
const walks = new Map<string, { found: string[]; protectedNested: string[]; cut: boolean; stamps: Stamp[] }>();

/** The time now on the clock file systems stamp with, in nanoseconds (tests pass a clock of their own). */
export type WallClock = () => bigint;
const wallClockNs: WallClock = () => BigInt(Date.now()) * 1_000_000n;

/**
 * The secret-like entries of `root`. The walk reads the names of at most a few hundred folders and tests each name, a
 * few milliseconds per command in a real repository; when none of the folders it read changed since the last walk
 * (each checked with one stat), the names are the same and so is the answer, which is reused.
 */
export function scanSecrets(root: string, now: WallClock = wallClockNs): ScanResult {
  const last = walks.get(root);
  if (last !== undefined && last.stamps.every(unchanged))
    return { found: [...last.found], protectedNested: [...last.protectedNested], cut: last.cut, reused: true };
  walks.delete(root);
  const started = now();
  const found: string[] = [];
  const protectedNested: string[] = [];
  const stamps: Stamp[] = [];
  let cacheable = true;
  let budget = SCAN_ENTRY_LIMIT;
  let cut = false;
  const walk = (dir: string, relative: string, depth: number): void => {
    const stamp = stampOf(dir);
    if (stamp === undefined || stamp.ctimeNs > started - RACY_MARGIN_NS || stamp.mtimeNs > started - RACY_MARGIN_NS) {
      cacheable = false;
    }
    if (stamp !== undefined) stamps.push(stamp);
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (budget-- <= 0) {
        cut = true;
        return;
      }
      const path = join(dir, entry.name);
      const rel = relative === "" ? entry.name : `${relative}/${entry.name}`;
      if (isSecretLikePath(rel)) {
        found.push(path);
        continue;
      }
      if (depth > 0 && PROTECTED.has(entry.name)) {
        protectedNested.push(path);
        continue;
      }
      if (entry.isDirectory() && depth < SCAN_DEPTH && !NOT_ENTERED.has(entry.name)) walk(path, rel, depth + 1);
    }
  };
  walk(root, "", 0);
  if (cacheable) walks.set(root, { found: [...found], protectedNested: [...protectedNested], cut, stamps });
  return { found, protectedNested, cut, reused: false };
}

function stampOf(path: string): Stamp | undefined {
  try {
    const stats = statSync(path, { bigint: true });
    return { path, dev: stats.dev, ino: stats.ino, mtimeNs: stats.mtimeNs, ctimeNs: stats.ctimeNs };
  } catch {
    return undefined;
  }
}

function unchanged(stamp: Stamp): boolean {
  const now = stampOf(stamp.path);
  return now !== undefined && now.dev === stamp.dev && now.ino === stamp.ino && now.mtimeNs === stamp.mtimeNs &&
    now.ctimeNs === stamp.ctimeNs;
}
