// The file system a confined process sees, worked out from its policy on the host, the same for every back end:
// everything read-only; the writable folders (real paths that exist) writable, with `.git`, `.hg`, `.jj` and `.scv`
// inside them read-only (hooks, configuration and skills are code), at their top and in the folders the secret walk
// reads (nested repositories, submodules); a private temporary folder; the hidden paths and the secret-like files of
// the writable folders replaced by empty ones.
import { lstatSync, realpathSync, type Stats, statSync } from "node:fs";
import { isInside } from "../util/path.ts";
import { type ConfinePolicy, PROTECTED_NAMES } from "./policy.ts";
import { scanSecrets } from "./secret_scan.ts";

/** The private temporary folder: a fresh empty one, seen only by the process and its children. */
export const PRIVATE_TMP = "/tmp";

export type Layout = {
  /** Where the process starts. */
  cwd: string;
  /** Writable folders (real paths). */
  writable: string[];
  /** Paths inside writable folders that stay read-only (real paths). */
  readOnly: string[];
  /** Files that read as empty and cannot be written (real paths). */
  hiddenFiles: string[];
  /** Folders that appear empty and cannot be written (real paths). */
  hiddenDirs: string[];
  network: boolean;
  /** What the layout could not do as asked (a writable folder that does not exist, …), for the user. */
  notes: string[];
};

type Entry = { path: string; stats: Stats };

/** The real path and what it is, or undefined when it does not exist. */
function existing(path: string): Entry | undefined {
  try {
    lstatSync(path);
    const real = realpathSync(path);
    return { path: real, stats: statSync(real) };
  } catch {
    return undefined;
  }
}

export function planLayout(policy: ConfinePolicy): Layout {
  const notes: string[] = [];
  const cwd = existing(policy.workspace)?.path ?? policy.workspace;
  const writable: string[] = [];
  if (policy.mode === "workspace-write") {
    for (const root of [policy.workspace, ...policy.writableRoots]) {
      const found = existing(root);
      if (found === undefined || !found.stats.isDirectory()) {
        notes.push(`writable root ${root} is not a folder; it stays read-only`);
        continue;
      }
      if (!writable.includes(found.path)) writable.push(found.path);
    }
  }
  const readOnly: string[] = [];
  const hiddenFiles: string[] = [];
  const hiddenDirs: string[] = [];
  const inWritable = (path: string) => writable.some((root) => isInside(root, path));
  // A working folder under the private /tmp that is not writable would not exist inside: it is shown read-only.
  if (isInside(PRIVATE_TMP, cwd) && !inWritable(cwd)) readOnly.push(cwd);
  const hide = (path: string) => {
    const found = existing(path);
    if (found === undefined) return;
    const real = found.path;
    if (writable.some((root) => isInside(real, root))) {
      notes.push(`${path} holds a writable folder, so it is not hidden`);
      return;
    }
    // Under the private temporary folder and outside every writable one, it is not visible anyway.
    if (isInside(PRIVATE_TMP, real) && !inWritable(real)) return;
    const list = found.stats.isDirectory() ? hiddenDirs : hiddenFiles;
    if (!list.includes(real) && !hiddenDirs.some((dir) => isInside(dir, real))) list.push(real);
  };
  for (const path of policy.hidden) hide(path);
  const protect = (path: string) => {
    const found = existing(path);
    if (found !== undefined && inWritable(found.path) && !readOnly.includes(found.path)) readOnly.push(found.path);
  };
  for (const root of writable) for (const name of PROTECTED_NAMES) protect(`${root}/${name}`);
  for (const root of writable) {
    const scan = scanSecrets(root);
    for (const path of scan.found) hide(path);
    // A nested repository's hooks and configuration run as code too, when the user runs git in it.
    for (const path of scan.protectedNested) protect(path);
    if (scan.cut) notes.push(`${root} has too many entries near its top: secret-like files may be left visible`);
  }
  // A folder hidden whole needs none of its children hidden one by one; parents are mounted before children.
  const covered = (path: string) => hiddenDirs.some((dir) => dir !== path && isInside(dir, path));
  return {
    cwd,
    writable: sortByDepth(writable),
    readOnly: sortByDepth(readOnly.filter((path) => !covered(path))),
    hiddenFiles: sortByDepth(hiddenFiles.filter((path) => !covered(path))),
    hiddenDirs: sortByDepth(hiddenDirs.filter((path) => !covered(path))),
    network: policy.network,
    notes,
  };
}

function sortByDepth(paths: string[]): string[] {
  return [...paths].sort((a, b) => a.split("/").length - b.split("/").length || (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * Which files the layout's paths are now (device and inode of each, links not followed): a mount made on a path
 * stays on the file that was there, so a layout whose identity changed no longer holds for a sandbox set up before.
 */
export function layoutIdentity(layout: Layout): string {
  const paths = [layout.cwd, ...layout.writable, ...layout.readOnly, ...layout.hiddenFiles, ...layout.hiddenDirs];
  return paths.map((path) => {
    try {
      const stats = lstatSync(path, { bigint: true });
      return `${stats.dev}:${stats.ino} ${path}`;
    } catch {
      return `- ${path}`;
    }
  }).join("\n");
}
