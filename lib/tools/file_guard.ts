// THE check every file tool makes before it touches a file (issue 12), beside workspace_path.ts (confinement)
// and secret_paths.ts (the secret-path table):
//
// - refused outright, with a clear error: the instance home and everything below it, and every configuration
//   file scv reads (by real path, and by identity so a hard link to one is refused too);
// - secret-like, so the call asks first: a path matching SECRET_PATH_RULES (as given or as resolved), and any
//   regular file with more than one hard link (it may be the same file as a secret elsewhere);
// - decided on what is actually opened: the descriptor's real path (/proc/self/fd on Linux, else a realpath'd
//   lstat that must be the same file as fstat says), so a symlink flipped after the decision changes nothing.
//
// Tools use it like this: `prepare` calls probeForRead (or guardWriteTarget) to pick the risk; `run` opens with
// openGuardedForRead and passes the prepared verdict to checkUnchanged, so what was approved is what is read.

import { constants, existsSync, lstatSync, realpathSync, type Stats } from "node:fs";
import { type FileHandle, lstat, open, readlink, realpath } from "node:fs/promises";
import { join, relative } from "node:path";
import type { ResolvedConfig } from "../config/index.ts";
import { isSecretLikePath } from "../policy/index.ts";
import {
  canonicalWorkspace,
  confinementError,
  pathComponents,
  resolveExisting,
  WorkspacePathError,
} from "../policy/index.ts";
import { isInside } from "../util/path.ts";

const HAS_PROC_FD = process.platform === "linux" && existsSync("/proc/self/fd");
const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** What a file tool may do with one file. `identity` is `dev:ino` of the file that was judged. */
export type FileVerdict = { secret: boolean; identity?: string; real?: string };

/** The refusal for scv's own files: `<action> <path>: refused: …` (not a confinement error). */
export class ProtectedPathError extends WorkspacePathError {
  override name = "ProtectedPathError";
}

export function protectedPathError(action: string, path: string): ProtectedPathError {
  return new ProtectedPathError(
    `${action} ${path}: refused: scv's instance home and configuration files are off limits to tools`,
  );
}

/**
 * True when `real` (an absolute real path) is the instance home, inside it, or a configuration file scv reads;
 * `stats` (of the file itself, not following a final link) also catches a hard link to a configuration file.
 */
export function isProtectedPath(config: ResolvedConfig, real: string, stats?: Pick<Stats, "dev" | "ino">): boolean {
  const { home, config_files } = config.secrets;
  if (home !== "" && isInside(home, real)) return true;
  for (const file of config_files) {
    if (file.path === real) return true;
    if (stats !== undefined && file.dev === stats.dev && file.ino === stats.ino) return true;
  }
  return false;
}

/**
 * The verdict on one opened (or lstat'd) file: throws ProtectedPathError for scv's own files; secret when the
 * given path or the real one (relative to the workspace) is secret-like, or a regular file has several links.
 */
export function judgeFile(
  config: ResolvedConfig,
  workspace: string,
  path: string,
  real: string,
  stats: Pick<Stats, "dev" | "ino" | "nlink" | "isFile">,
  action: string,
): FileVerdict {
  if (isProtectedPath(config, real, stats)) throw protectedPathError(action, path);
  const secret = isSecretLikePath(path) ||
    isSecretLikePath(relative(canonicalWorkspace(workspace), real)) ||
    (stats.isFile() && stats.nlink > 1);
  return { secret, identity: `${stats.dev}:${stats.ino}`, real };
}

/**
 * For `prepare` (synchronous, cheap): judges the file `path` resolves to now (realpath, then lstat of the
 * symlink-free result). Only a first opinion that picks the risk: `run` judges the descriptor it opens and
 * checkUnchanged refuses a secret that is not this very file. A missing file is judged by where it would be.
 */
export function probeForRead(config: ResolvedConfig, workspace: string, path: string, action: string): FileVerdict {
  const root = canonicalWorkspace(workspace);
  let real: string;
  let stats: Stats;
  try {
    real = realpathSync(join(root, ...pathComponents(path)));
    stats = lstatSync(real);
  } catch {
    if (isProtectedPath(config, probeWriteTarget(root, path))) throw protectedPathError(action, path);
    return { secret: isSecretLikePath(path) };
  }
  if (!isInside(root, real)) return { secret: true };
  return judgeFile(config, root, path, real, stats, action);
}

/** A file opened for reading, confined to the workspace, with the verdict on what was opened. */
export type GuardedFile = { handle: FileHandle; stats: Stats; verdict: FileVerdict };

/**
 * For `run`: resolves `path` inside the workspace, opens it without following a final symlink and without
 * blocking on a FIFO, and judges the opened descriptor by its real path. Throws WorkspacePathError (confinement,
 * OS errors) or ProtectedPathError. The caller closes the handle.
 */
export async function openGuardedForRead(
  config: ResolvedConfig,
  workspace: string,
  path: string,
  action: string,
): Promise<GuardedFile> {
  const root = canonicalWorkspace(workspace);
  const resolved = await resolveExisting(root, path, action);
  let handle: FileHandle;
  try {
    handle = await open(resolved, READ_FLAGS);
  } catch (error) {
    throw confinementError(action, path, error);
  }
  try {
    const stats = await handle.stat();
    const real = await descriptorPath(handle, resolved, stats);
    if (real === undefined) throw confinementError(action, path, new WorkspacePathError("changed while it was opened"));
    if (!isInside(root, real))
      throw confinementError(action, path, new WorkspacePathError("resolves outside the workspace"));
    return { handle, stats, verdict: judgeFile(config, root, path, real, stats, action) };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * The approval covered `prepared`; `opened` is what `run` holds. A secret-like file must be the very file that
 * was judged secret-like before asking; anything else means the path changed in between (a flipped symlink).
 */
export function checkUnchanged(prepared: FileVerdict, opened: FileVerdict, action: string, path: string): void {
  if (!opened.secret) return;
  if (prepared.secret && prepared.identity !== undefined && prepared.identity === opened.identity) return;
  throw new WorkspacePathError(
    `${action} ${path}: refused: the path now leads to a secret-like file that was not approved (it changed after the check); try again`,
  );
}

/**
 * For write-like tools: the real path the entry `<dir>/<name>` will have, judged like a read. `dir` must be a
 * real directory path (workspace_path.ts resolveParent, or a descriptor's path). Throws ProtectedPathError.
 */
export function guardWriteTarget(
  config: ResolvedConfig,
  workspace: string,
  path: string,
  realTarget: string,
  action: string,
): FileVerdict {
  let stats: Stats | undefined;
  try {
    stats = lstatSync(realTarget);
  } catch {
    stats = undefined;
  }
  if (isProtectedPath(config, realTarget, stats)) throw protectedPathError(action, path);
  return {
    secret: isSecretLikePath(path) || isSecretLikePath(relative(canonicalWorkspace(workspace), realTarget)),
    real: realTarget,
  };
}

/**
 * For `prepare` of write-like tools: where `path` would land (the deepest existing ancestor resolved, the rest
 * appended; a final symlink is not followed, since the entry itself is replaced).
 */
export function probeWriteTarget(workspace: string, path: string): string {
  const root = canonicalWorkspace(workspace);
  const components = pathComponents(path);
  const name = components.pop() ?? "";
  for (let depth = components.length; depth >= 0; depth -= 1) {
    try {
      const real = realpathSync(join(root, ...components.slice(0, depth)));
      return join(real, ...components.slice(depth), name);
    } catch {
      // missing: try the parent
    }
  }
  return join(root, ...components, name);
}

/** The real path of an open descriptor, or undefined when the path no longer names the opened file. */
async function descriptorPath(handle: FileHandle, resolved: string, stats: Stats): Promise<string | undefined> {
  if (HAS_PROC_FD) {
    try {
      return await readlink(`/proc/self/fd/${handle.fd}`);
    } catch {
      // fall through to the portable check
    }
  }
  try {
    const real = await realpath(resolved);
    const info = await lstat(real);
    return info.dev === stats.dev && info.ino === stats.ino ? real : undefined;
  } catch {
    return undefined;
  }
}
