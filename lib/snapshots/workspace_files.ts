// Changing workspace files on a restore without ever following a symbolic link out of the workspace: every leading
// component of a path must be a real directory (or be missing, for a write, and is then created), and a file is
// replaced by a rename from a temporary file beside it.
import { lstat, mkdir, rename, rmdir, symlink, unlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";

export class UnsafePathError extends Error {
  override name = "UnsafePathError";
}

function components(path: string): string[] {
  return path.split("/").filter((part) => part !== "" && part !== ".");
}

async function lstatOrUndefined(path: string) {
  try {
    return await lstat(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw error;
  }
}

/** Checks (and with `create`, makes) the directories leading to `path`; throws UnsafePathError for a link or file. */
async function leadingDirectories(workspace: string, path: string, create: boolean): Promise<boolean> {
  const parts = components(path);
  if (parts.length === 0 || parts.includes("..")) throw new UnsafePathError("not a path inside the workspace");
  let current = workspace;
  for (const part of parts.slice(0, -1)) {
    current = join(current, part);
    const info = await lstatOrUndefined(current);
    if (info === undefined) {
      if (!create) return false;
      await mkdir(current, { mode: 0o777 });
      continue;
    }
    if (info.isSymbolicLink()) throw new UnsafePathError(`${current} is a symbolic link`);
    if (!info.isDirectory()) throw new UnsafePathError(`${current} is not a directory`);
  }
  return true;
}

/**
 * Why a file cannot be put at `path` without replacing something that is not a folder (a link, a file) on the way
 * there, or undefined when every leading component is a real folder or missing.
 */
export async function leadingPathProblem(workspace: string, path: string): Promise<string | undefined> {
  try {
    await leadingDirectories(workspace, path, false);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** Removes the file (or link) at `path`, then the folders it leaves empty, up to the workspace. */
export async function removeWorkspaceFile(workspace: string, path: string): Promise<void> {
  if (!await leadingDirectories(workspace, path, false)) return;
  const target = join(workspace, path);
  const info = await lstatOrUndefined(target);
  if (info === undefined) return;
  if (info.isDirectory()) throw new UnsafePathError(`${target} is a directory`);
  await unlink(target);
  let dir = dirname(target);
  while (dir !== workspace && dir.startsWith(workspace)) {
    try {
      await rmdir(dir);
    } catch {
      break;
    }
    dir = dirname(dir);
  }
}

let counter = 0;

/** Puts `bytes` at `path` with `mode` (0o120000 bits: a symbolic link to the text of `bytes`). */
export async function writeWorkspaceFile(workspace: string, path: string, bytes: Buffer, mode: number): Promise<void> {
  await leadingDirectories(workspace, path, true);
  const target = join(workspace, path);
  const existing = await lstatOrUndefined(target);
  if (existing?.isDirectory()) throw new UnsafePathError(`${target} is a directory`);
  const temporary = join(dirname(target), `.scv-restore-${process.pid}-${counter++}.tmp`);
  try {
    if ((mode & 0o170000) === 0o120000) await symlink(bytes.toString("utf8"), temporary);
    else await writeFile(temporary, bytes, { mode: mode & 0o777, flag: "wx" });
    await rename(temporary, target);
  } catch (error) {
    await unlink(temporary).catch(() => {});
    throw error;
  }
}
