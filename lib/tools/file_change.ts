// Reading and changing workspace files for edit and apply_patch: confined reads, and a set of changes (create,
// replace, delete) installed all together or not at all. Every new content goes to a temporary file beside its
// target and is fsynced first; each file to be replaced or deleted is hard-linked to a backup; then the renames and
// unlinks run, and any failure puts the backups back and removes what was created.

import { constants } from "node:fs";
import { type FileHandle, link, lstat, open, rename, unlink } from "node:fs/promises";
import { join } from "node:path";
import { syncDirectory } from "../util/sync_directory.ts";
import type { ResolvedConfig } from "../config/index.ts";
import { guardWriteTarget, openGuardedForRead } from "./file_guard.ts";
import {
  confinementError,
  errorCode,
  openConfinedForRead,
  resolveParent,
  verifyDescriptor,
  WorkspacePathError,
} from "../policy/index.ts";

export type ExistingFile = { bytes: Buffer; mode: number };

/**
 * The file's bytes and permission bits, or undefined when it does not exist; throws WorkspacePathError. With
 * `config`, scv's own protected files (file_guard.ts) are refused too.
 */
export async function readWorkspaceFile(
  workspace: string,
  path: string,
  action: string,
  maxBytes: number,
  config?: ResolvedConfig,
): Promise<ExistingFile | undefined> {
  let handle: FileHandle;
  try {
    handle = config === undefined
      ? await openConfinedForRead(workspace, path, action)
      : (await openGuardedForRead(config, workspace, path, action)).handle;
  } catch (error) {
    if (error instanceof WorkspacePathError && error.code === "ENOENT") return undefined;
    throw error;
  }
  try {
    const info = await handle.stat();
    if (info.isDirectory()) throw new WorkspacePathError(`${action} ${path}: is a directory`, "EISDIR");
    if (!info.isFile()) throw new WorkspacePathError(`${action} ${path}: not a regular file`);
    if (info.size > maxBytes)
      throw new WorkspacePathError(`${action} ${path}: the file is larger than ${maxBytes} bytes`, "EFBIG");
    return { bytes: await handle.readFile(), mode: info.mode & 0o7777 };
  } finally {
    await handle.close();
  }
}

export type FileChange =
  | { kind: "write"; path: string; data: Buffer; mode?: number }
  | { kind: "delete"; path: string };

type Planned = {
  change: FileChange;
  dir: string;
  name: string;
  target: string;
  existed: boolean;
  temporary?: string;
  backup?: string;
};

let counter = 0;
const temporaryName = (dir: string, what: string) => join(dir, `.scv-${what}-${process.pid}-${counter++}.tmp`);

/**
 * Installs every change, or none: on any failure the files are as they were and the error is rethrown. With
 * `config`, a target that is one of scv's own protected files is refused before anything is written.
 * `fileWillChange` hears each target's real path before anything is renamed or removed (the session's snapshots).
 */
export async function applyChanges(
  workspace: string,
  changes: FileChange[],
  action: string,
  config?: ResolvedConfig,
  fileWillChange?: (path: string) => Promise<void>,
): Promise<void> {
  const planned: Planned[] = [];
  try {
    for (const change of changes) {
      const parent = await resolveParent(workspace, change.path, action, change.kind === "write");
      if (parent.missing) throw new WorkspacePathError(`${action} ${change.path}: no such file or directory`, "ENOENT");
      const target = join(parent.dir, parent.name);
      if (config !== undefined) guardWriteTarget(config, workspace, change.path, target, action);
      const existing = await lstatOrUndefined(target, action, change.path);
      if (existing?.isDirectory()) throw new WorkspacePathError(`${action} ${change.path}: is a directory`, "EISDIR");
      if (change.kind === "delete" && existing === undefined) {
        throw new WorkspacePathError(`${action} ${change.path}: no such file or directory`, "ENOENT");
      }
      const item: Planned = { change, dir: parent.dir, name: parent.name, target, existed: existing !== undefined };
      planned.push(item);
      if (change.kind === "write") {
        item.temporary = temporaryName(parent.dir, "write");
        await writeTemporary(
          workspace,
          item.temporary,
          change.data,
          change.mode ?? (existing?.isFile() ? existing.mode & 0o7777 : undefined),
          action,
          change.path,
        );
      }
      if (existing !== undefined) {
        item.backup = temporaryName(parent.dir, "backup");
        try {
          await link(target, item.backup);
        } catch (error) {
          item.backup = undefined;
          throw confinementError(action, change.path, error);
        }
      }
    }
  } catch (error) {
    await cleanup(planned);
    throw error;
  }
  try {
    for (const item of planned) await fileWillChange?.(item.target);
  } catch (error) {
    await cleanup(planned);
    throw error;
  }
  const done: Planned[] = [];
  try {
    for (const item of planned) {
      try {
        if (item.change.kind === "write") await rename(item.temporary!, item.target);
        else await unlink(item.target);
      } catch (error) {
        throw confinementError(action, item.change.path, error);
      }
      done.push(item);
    }
  } catch (error) {
    // Undo in reverse order: put back what existed, remove what was created.
    for (const item of done.reverse()) {
      if (item.backup !== undefined) await rename(item.backup, item.target).catch(() => undefined);
      else await unlink(item.target).catch(() => undefined);
      item.backup = undefined;
    }
    await cleanup(planned);
    throw error;
  }
  await cleanup(planned);
  for (const dir of new Set(planned.map((item) => item.dir))) await syncDirectory(dir);
}

async function writeTemporary(
  workspace: string,
  temporary: string,
  data: Buffer,
  mode: number | undefined,
  action: string,
  path: string,
) {
  let handle: FileHandle;
  try {
    handle = await open(
      temporary,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      0o666,
    );
  } catch (error) {
    throw confinementError(action, path, error);
  }
  try {
    await verifyDescriptor(workspace, handle, action, path);
    if (mode !== undefined) await handle.chmod(mode);
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function cleanup(planned: Planned[]): Promise<void> {
  for (const item of planned) {
    if (item.temporary !== undefined) await unlink(item.temporary).catch(() => undefined);
    if (item.backup !== undefined) await unlink(item.backup).catch(() => undefined);
  }
}

async function lstatOrUndefined(target: string, action: string, path: string) {
  try {
    return await lstat(target);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return undefined;
    throw confinementError(action, path, error);
  }
}
