// Workspace confinement for the file tools. A path is first checked by its shape (relative,
// no `..`); then every symlink on it is resolved and the result must stay inside the canonical
// workspace. Files are opened by their resolved path with O_NOFOLLOW, and on Linux the opened
// descriptor is checked again through /proc, so a swap between check and open is refused too.

import { constants, existsSync, lstatSync, readlinkSync, realpathSync } from "node:fs";
import { type FileHandle, lstat, mkdir, open, readlink, realpath, stat } from "node:fs/promises";
import { dirname, join, normalize, relative, resolve } from "node:path";
import { isInside } from "../util/path.ts";

export { isInside };

const SUFFIX = "; path must remain within workspace";
const ESCAPED = "resolves outside the workspace";
const HAS_PROC_FD = process.platform === "linux" && existsSync("/proc/self/fd");

/** A confinement or file-system failure, with the exact message for the tool output. */
export class WorkspacePathError extends Error {
  override name = "WorkspacePathError";
  /** The errno code when an OS call failed (`ENOENT`…), else undefined. */
  readonly code: string | undefined;
  constructor(message: string, code?: string) {
    super(message);
    this.code = code;
  }
}

const canonicalCache = new Map<string, string>();

/**
 * The workspace as a real path. The caller promises a canonical one; resolving it again (once)
 * keeps every containment check right even if a symlinked path slips through.
 */
export function canonicalWorkspace(workspace: string): string {
  let canonical = canonicalCache.get(workspace);
  if (canonical === undefined) {
    try {
      canonical = realpathSync(workspace);
    } catch {
      return workspace;
    }
    if (canonicalCache.size > 64) canonicalCache.clear();
    canonicalCache.set(workspace, canonical);
  }
  return canonical;
}

/** The shape rules of spec §9: the message for a bad path, or undefined. */
export function checkRelativePath(path: string): string | undefined {
  if (path.length === 0 || path.startsWith("/")) return "path must be non-empty and relative";
  if (path.split("/").includes("..")) return "parent traversal and absolute paths are not allowed";
  if (path.includes("\0")) return "invalid arguments: path must not contain NUL bytes";
  return undefined;
}

/**
 * A file tool's path as the workspace-relative path the shape rules take. Models often send an absolute path: one
 * inside the workspace becomes relative; one outside it, or with a `..` component, is refused. With `folder`, the
 * workspace itself is `.`.
 */
export function toolPath(
  workspace: string,
  path: string,
  options: { folder?: boolean } = {},
): { path: string } | { error: string } {
  if (!path.startsWith("/")) {
    const shape = checkRelativePath(path);
    return shape === undefined ? { path } : { error: shape };
  }
  if (path.split("/").includes("..")) return { error: "parent traversal is not allowed" };
  const canonical = canonicalWorkspace(workspace);
  const absolute = normalize(path).replace(/(.)\/+$/, "$1");
  // A folder may be the workspace itself.
  if (
    options.folder === true && (absolute === canonical || absolute === normalize(workspace).replace(/(.)\/+$/, "$1"))
  ) {
    return { path: "." };
  }
  // The workspace as the model was told it (a symlinked path) or as it really is.
  const root = [canonical, normalize(workspace).replace(/(.)\/+$/, "$1")].find((candidate) =>
    absolute !== candidate && isInside(candidate, absolute)
  );
  if (root === undefined) {
    return { error: `absolute path ${path} is outside the workspace ${canonical}; give a path relative to it` };
  }
  const inside = relative(root, absolute);
  const shape = checkRelativePath(inside);
  return shape === undefined ? { path: inside } : { error: shape };
}

/** The normal components of a checked relative path (`.` and empty ones dropped). */
export function pathComponents(path: string): string[] {
  return path.split("/").filter((component) => component !== "" && component !== ".");
}

/** `<action> <path>: <reason>; path must remain within workspace`. */
export function confinementError(action: string, path: string, error: unknown): WorkspacePathError {
  const code = errorCode(error);
  const reason = error instanceof WorkspacePathError ? error.message : describeFsError(error);
  return new WorkspacePathError(`${action} ${path}: ${reason}${SUFFIX}`, code);
}

/**
 * Best effort, synchronous and side-effect free, for `prepare`: resolves the deepest existing
 * ancestor of `path` (the whole path when it exists). Returns its workspace-relative form, or
 * `{ escaped: true }` when it lies outside the workspace.
 */
export function probePath(given: string, path: string): { escaped: boolean; resolvedRelative: string } {
  const workspace = canonicalWorkspace(given);
  const components = pathComponents(path);
  for (let depth = components.length; depth >= 0; depth -= 1) {
    const candidate = join(workspace, ...components.slice(0, depth));
    let real: string;
    try {
      real = realpathSync(candidate);
    } catch {
      // A dangling symlink exists but does not resolve: judge its target text.
      try {
        if (lstatSync(candidate).isSymbolicLink()) {
          const target = resolve(dirname(candidate), readlinkSync(candidate));
          if (!isInside(workspace, target)) return { escaped: true, resolvedRelative: "" };
        }
      } catch {
        // missing: try the parent
      }
      continue;
    }
    if (!isInside(workspace, real)) return { escaped: true, resolvedRelative: "" };
    return { escaped: false, resolvedRelative: relative(workspace, real) };
  }
  return { escaped: false, resolvedRelative: "" };
}

/** The real path of an existing `path`, which must be inside the workspace. */
export async function resolveExisting(given: string, path: string, action: string): Promise<string> {
  const workspace = canonicalWorkspace(given);
  let real: string;
  try {
    real = await realpath(join(workspace, ...pathComponents(path)));
  } catch (error) {
    throw confinementError(action, path, error);
  }
  if (!isInside(workspace, real)) throw confinementError(action, path, new WorkspacePathError(ESCAPED));
  return real;
}

/**
 * Opens an existing file inside the workspace for reading, without following a final symlink
 * after resolution and without blocking on FIFOs. The caller closes the handle.
 */
export async function openConfinedForRead(workspace: string, path: string, action: string): Promise<FileHandle> {
  const real = await resolveExisting(workspace, path, action);
  let handle: FileHandle;
  try {
    handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    throw confinementError(action, path, error);
  }
  try {
    await verifyDescriptor(workspace, handle, action, path);
  } catch (error) {
    await handle.close();
    throw error;
  }
  return handle;
}

/** On Linux, the path the kernel reports for an open descriptor must still be inside. */
export async function verifyDescriptor(given: string, handle: FileHandle, action: string, path: string): Promise<void> {
  if (!HAS_PROC_FD) return;
  const workspace = canonicalWorkspace(given);
  let opened: string;
  try {
    opened = await readlink(`/proc/self/fd/${handle.fd}`);
  } catch {
    return;
  }
  if (!isInside(workspace, opened)) throw confinementError(action, path, new WorkspacePathError(ESCAPED));
}

/**
 * The real directory that will hold `path`'s final component, walking each parent component:
 * symlinks are followed only to targets inside the workspace; missing directories are created
 * when `create` is true, else reported as `{ missing: true }`.
 */
export async function resolveParent(
  given: string,
  path: string,
  action: string,
  create: boolean,
): Promise<{ dir: string; name: string; missing: boolean }> {
  const workspace = canonicalWorkspace(given);
  const components = pathComponents(path);
  const name = components.pop();
  if (name === undefined)
    throw confinementError(action, path, Object.assign(new Error("is a directory"), { code: "EISDIR" }));
  let dir = workspace;
  for (const component of components) {
    const next = join(dir, component);
    let info = await lstatOrUndefined(next, action, path);
    if (info === undefined) {
      if (!create) return { dir: next, name, missing: true };
      try {
        await mkdir(next);
      } catch (error) {
        if (errorCode(error) !== "EEXIST") throw confinementError(action, path, error);
      }
      info = await lstatOrUndefined(next, action, path);
      if (info === undefined)
        throw confinementError(action, path, Object.assign(new Error("missing"), { code: "ENOENT" }));
    }
    if (info.isSymbolicLink()) {
      let real: string;
      try {
        real = await realpath(next);
      } catch (error) {
        throw confinementError(action, path, error);
      }
      if (!isInside(workspace, real)) throw confinementError(action, path, new WorkspacePathError(ESCAPED));
      let target;
      try {
        target = await stat(real);
      } catch (error) {
        throw confinementError(action, path, error);
      }
      if (!target.isDirectory())
        throw confinementError(action, path, Object.assign(new Error("not a directory"), { code: "ENOTDIR" }));
      dir = real;
    } else if (info.isDirectory()) {
      dir = next;
    } else {
      throw confinementError(action, path, Object.assign(new Error("not a directory"), { code: "ENOTDIR" }));
    }
  }
  return { dir, name, missing: false };
}

async function lstatOrUndefined(target: string, action: string, path: string) {
  try {
    return await lstat(target);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return undefined;
    throw confinementError(action, path, error);
  }
}

export function errorCode(error: unknown): string | undefined {
  if (typeof error === "object" && error !== null && "code" in error && typeof error.code === "string")
    return error.code;
  return undefined;
}

const REASONS: Record<string, string> = {
  ENOENT: "no such file or directory",
  ENOTDIR: "not a directory",
  EISDIR: "is a directory",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  ELOOP: "too many levels of symbolic links",
  EEXIST: "file exists",
  ENAMETOOLONG: "file name too long",
  ENOSPC: "no space left on device",
  EROFS: "read-only file system",
  EXDEV: "cross-device link",
  EMLINK: "too many links",
  EBUSY: "resource busy",
  EIO: "input/output error",
  EDQUOT: "disk quota exceeded",
  EFBIG: "file too large",
};

/** A short, path-free reason for a file-system error (Node's messages embed absolute paths). */
export function describeFsError(error: unknown): string {
  const code = errorCode(error);
  if (code !== undefined && Object.hasOwn(REASONS, code)) return REASONS[code]!;
  if (code !== undefined) return code;
  return error instanceof Error ? error.message : String(error);
}
