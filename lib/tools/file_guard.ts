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
// The search tools, which never ask, judge every file they meet the same way and leave out all but ordinary ones:
// grep on the descriptor it opens (openForSearch), glob and list on the entry they would name (judgeEntry).

import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  lstatSync,
  openSync,
  readlinkSync,
  realpathSync,
  type Stats,
} from "node:fs";
import { type FileHandle, lstat, open, readlink, realpath } from "node:fs/promises";
import { dirname, join, relative, resolve, sep } from "node:path";
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

/** The instance home and the configuration files scv reads: the paths no tool, read-only commands included, reaches. */
export function scvOwnPaths(config: ResolvedConfig): string[] {
  const { home, config_files } = config.secrets;
  return [...(home === "" ? [] : [home]), ...config_files.map((file) => file.path)];
}

/** How a file tool must treat one file: refuse it (scv's own), ask first (secret), or just use it. */
export type FileStanding = "protected" | "secret" | "ordinary";

/**
 * The standing of one opened (or lstat'd) file at `real`: protected for scv's own files; secret when the given
 * path or the real one (relative to the workspace) is secret-like, or a regular file has several links (it may
 * be the same file as a secret elsewhere, and which one cannot be told from here).
 */
export function fileStanding(
  config: ResolvedConfig,
  workspace: string,
  path: string,
  real: string,
  stats: Pick<Stats, "dev" | "ino" | "nlink" | "isFile">,
): FileStanding {
  if (isProtectedPath(config, real, stats)) return "protected";
  if (stats.isFile() && stats.nlink > 1) return "secret";
  if (isSecretLikePath(path)) return "secret";
  // The real path differs from the given one through a symlink (or another spelling): judge it as well.
  const root = canonicalWorkspace(workspace);
  if (real === `${root}${sep}${path}`) return "ordinary";
  return isSecretLikePath(relative(root, real)) ? "secret" : "ordinary";
}

/** The verdict on one opened (or lstat'd) file (fileStanding); throws ProtectedPathError for scv's own files. */
export function judgeFile(
  config: ResolvedConfig,
  workspace: string,
  path: string,
  real: string,
  stats: Pick<Stats, "dev" | "ino" | "nlink" | "isFile">,
  action: string,
): FileVerdict {
  const standing = fileStanding(config, workspace, path, real, stats);
  if (standing === "protected") throw protectedPathError(action, path);
  return { secret: standing === "secret", identity: `${stats.dev}:${stats.ino}`, real };
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

/** Why a search leaves an entry out: not a file it may read, or one `read` would refuse or ask about. */
export type SearchStanding = FileStanding | "outside";

/** An opened file grep may search, with the standing of what was opened. */
export type SearchFile = { fd: number; stats: Stats; standing: FileStanding };

/**
 * For grep, synchronous for speed: opens the walk's `path` (workspace-relative, no symlink expected on it)
 * without following a final symlink or blocking on a FIFO, and judges the descriptor by its real path, as
 * openGuardedForRead does. Returns "outside" for a file that is not in the workspace after all (a folder swapped
 * for a symlink meanwhile), undefined when it cannot be opened. The caller closes `fd`.
 */
export function openForSearch(config: ResolvedConfig, root: string, path: string): SearchFile | "outside" | undefined {
  const absolute = join(root, path);
  let fd: number;
  try {
    fd = openSync(absolute, READ_FLAGS);
  } catch {
    return undefined;
  }
  try {
    const stats = fstatSync(fd);
    const real = descriptorPathSync(fd, absolute, stats);
    if (real === undefined || !isInside(root, real)) {
      closeSync(fd);
      return real === undefined ? undefined : "outside";
    }
    return { fd, stats, standing: fileStanding(config, root, path, real, stats) };
  } catch {
    closeSync(fd);
    return undefined;
  }
}

/**
 * For glob and list, which print names: the standing of the walk's entry `path` (workspace-relative, its folders
 * real; `kind` as the walk saw it, if known). A symbolic link is judged by where it leads (a dangling one by where it
 * would), other entries by their own lstat. Nothing is opened, so this is decided on the path; what is printed is
 * only the entry's name.
 */
export function judgeEntry(
  config: ResolvedConfig,
  root: string,
  path: string,
  kind?: "file" | "directory" | "symlink" | "other",
): SearchStanding {
  const absolute = join(root, path);
  if (kind === "directory") {
    // A folder the walk found (not a link): neither a hard link nor a configuration file can it be.
    if (isProtectedPath(config, absolute)) return "protected";
    return isSecretLikePath(path) ? "secret" : "ordinary";
  }
  let stats: Stats;
  try {
    stats = lstatSync(absolute);
  } catch {
    return isSecretLikePath(path) ? "secret" : "ordinary";
  }
  if (!stats.isSymbolicLink()) return fileStanding(config, root, path, absolute, stats);
  let real: string;
  try {
    real = realpathSync(absolute);
  } catch {
    // Dangling: judged by the path it names.
    let target: string;
    try {
      target = resolve(dirname(absolute), readlinkSync(absolute));
    } catch {
      return "outside";
    }
    if (!isInside(root, target)) return "outside";
    if (isProtectedPath(config, target)) return "protected";
    return isSecretLikePath(path) || isSecretLikePath(relative(root, target)) ? "secret" : "ordinary";
  }
  if (!isInside(root, real)) return "outside";
  try {
    return fileStanding(config, root, path, real, lstatSync(real));
  } catch {
    return "outside";
  }
}

/** The real path of an open descriptor (synchronous descriptorPath). */
function descriptorPathSync(fd: number, absolute: string, stats: Stats): string | undefined {
  if (HAS_PROC_FD) {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      // fall through to the portable check
    }
  }
  try {
    const real = realpathSync(absolute);
    const info = lstatSync(real);
    return info.dev === stats.dev && info.ino === stats.ino ? real : undefined;
  } catch {
    return undefined;
  }
}
