// The `write` tool: atomically create or replace a UTF-8 file inside the workspace (spec §9).
// Content goes to a temporary file beside the target, is fsynced, then hard-linked into place
// (create: never overwrites) or renamed over the target (replace). The temp file never remains.

import { createHash } from "node:crypto";
import { constants, existsSync } from "node:fs";
import { type FileHandle, link, lstat, open, readlink, rename, unlink } from "node:fs/promises";
import { join } from "node:path";
import { syncDirectory } from "../util/sync_directory.ts";
import type { ResolvedConfig } from "../config/index.ts";
import { readWorkspaceFile } from "./file_change.ts";
import { guardWriteTarget, openGuardedForRead, probeWriteTarget } from "./file_guard.ts";
import { cancelledOutcome, failure } from "./outcome.ts";
import { unifiedDiff } from "./text_diff.ts";
import { decodeText } from "./text_file.ts";
import type { ObjectSchema } from "./schema.ts";
import { validateArguments } from "./schema.ts";
import type { Tool, ToolContext, ToolOutcome } from "./types.ts";
import { touchedPaths } from "./touched_paths.ts";
import {
  canonicalWorkspace,
  confinementError,
  errorCode,
  probePath,
  resolveParent,
  toolPath,
  verifyDescriptor,
  WorkspacePathError,
} from "../policy/index.ts";
import { isInside } from "../util/path.ts";

const HAS_PROC_FD = process.platform === "linux" && existsSync("/proc/self/fd");

type WriteArgs = { path: string; content: string; mode: "create" | "replace"; expected_sha256?: string };

export type WriteSettings = { maxWriteBytes: number };

let temporaryCounter = 0;

export function createWriteTool(settings: WriteSettings): Tool {
  const parameters: ObjectSchema = {
    type: "object",
    properties: {
      path: {
        type: "string",
        description: "File path relative to the workspace root; missing parent directories are created",
      },
      content: {
        type: "string",
        description: `The complete new file content (at most ${settings.maxWriteBytes} bytes of UTF-8)`,
      },
      mode: {
        type: "string",
        enum: ["create", "replace"],
        description: "create a new file (fails if it exists) or replace an existing one",
      },
      expected_sha256: {
        type: "string",
        description: "Optional hex SHA-256 the current file must have, guarding against lost updates",
      },
    },
    required: ["path", "content", "mode"],
    additionalProperties: false,
  };
  return {
    name: "write",
    description: "Atomically create or replace a UTF-8 file inside the workspace",
    parameters,
    prepare(args, context) {
      const checked = validateArguments<WriteArgs>(parameters, args);
      if (!checked.ok) return { error: checked.error };
      const given = toolPath(context.workspace, checked.value.path);
      if ("error" in given) return { error: given.error };
      const { path } = given;
      const value = { ...checked.value, path };
      const { content, mode } = value;
      const probe = probePath(context.workspace, path);
      if (probe.escaped) {
        return {
          error: confinementError("write", path, new WorkspacePathError("resolves outside the workspace")).message,
        };
      }
      const target = probeWriteTarget(context.workspace, path);
      try {
        guardWriteTarget(context.config, context.workspace, path, target, "write");
      } catch (error) {
        if (error instanceof WorkspacePathError) return { error: error.message };
        throw error;
      }
      const bytes = Buffer.byteLength(content, "utf8");
      return {
        risk: "filesystem",
        access: { effect: "edit", writes: touchedPaths(path, probe.resolvedRelative) },
        summary: `${mode === "create" ? "Create" : "Replace"} ${path} (${bytes} bytes)`,
        detail: content,
        preview: (previewContext) => previewWrite(previewContext, value, settings),
        run: (runContext) => runWrite(value, settings, runContext, target),
      };
    },
  };
}

/** The diff the write would make: against the current file for replace, from nothing for create. */
async function previewWrite(
  context: { workspace: string; config: ResolvedConfig },
  args: WriteArgs,
  settings: WriteSettings,
): Promise<string | undefined> {
  if (args.mode === "create") return unifiedDiff(args.path, undefined, args.content);
  const existing = await readWorkspaceFile(
    context.workspace,
    args.path,
    "write",
    settings.maxWriteBytes,
    context.config,
  ).catch(() => undefined);
  if (existing === undefined) return undefined;
  const text = decodeText(existing.bytes);
  return text === undefined
    ? `Binary or non-UTF-8 file ${args.path} would be replaced\n`
    : unifiedDiff(args.path, text.content, args.content);
}

async function runWrite(
  args: WriteArgs,
  settings: WriteSettings,
  context: ToolContext,
  approvedTarget: string,
): Promise<ToolOutcome> {
  if (context.signal.aborted) return cancelledOutcome("write cancelled");
  const data = Buffer.from(args.content, "utf8");
  if (data.length > settings.maxWriteBytes)
    return failure(`write exceeds ${settings.maxWriteBytes} byte limit`, "limit");
  try {
    return await writeConfined(args, data, context, approvedTarget);
  } catch (error) {
    if (error instanceof WorkspacePathError) return failure(error.message);
    return failure(`write ${args.path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

async function writeConfined(
  args: WriteArgs,
  data: Buffer,
  context: ToolContext,
  approvedTarget: string,
): Promise<ToolOutcome> {
  const { workspace, signal } = context;
  const create = args.mode === "create";
  const parent = await resolveParent(workspace, args.path, "write", create);
  if (parent.missing) return failure(`${args.path} does not exist`);
  const pinned = await pinDirectory(parent.dir, args.path);
  try {
    return await writeInPinned(args, data, context, approvedTarget, pinned, parent.name, signal);
  } finally {
    await pinned.handle?.close();
  }
}

type PinnedDirectory = { base: string; real: string; handle?: FileHandle };

/**
 * Pins the target's directory: on Linux every later step goes through `/proc/self/fd/<n>/`, so a directory
 * swapped for a symlink after the checks cannot redirect the write. Elsewhere the checked real path is used.
 */
async function pinDirectory(dir: string, path: string): Promise<PinnedDirectory> {
  if (!HAS_PROC_FD) return { base: dir, real: dir };
  let handle: FileHandle;
  try {
    handle = await open(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  } catch (error) {
    throw confinementError("write", path, error);
  }
  try {
    const real = await readlink(`/proc/self/fd/${handle.fd}`);
    return { base: `/proc/self/fd/${handle.fd}`, real, handle };
  } catch (error) {
    await handle.close();
    throw confinementError("write", path, error);
  }
}

async function writeInPinned(
  args: WriteArgs,
  data: Buffer,
  context: ToolContext,
  approvedTarget: string,
  pinned: PinnedDirectory,
  name: string,
  signal: AbortSignal,
): Promise<ToolOutcome> {
  const { workspace, config } = context;
  const create = args.mode === "create";
  const realTarget = join(pinned.real, name);
  if (!isInside(canonicalWorkspace(workspace), pinned.real)) {
    throw confinementError("write", args.path, new WorkspacePathError("resolves outside the workspace"));
  }
  guardWriteTarget(config, workspace, args.path, realTarget, "write");
  if (realTarget !== approvedTarget) {
    return failure(`write ${args.path}: refused: the path now leads elsewhere than when it was approved; try again`);
  }
  const target = join(pinned.base, name);
  const existing = await lstatOrUndefined(target, args.path);
  if (create && existing !== undefined) return failure(`${args.path} already exists`);
  if (!create && existing === undefined) return failure(`${args.path} does not exist`);
  if (args.expected_sha256 !== undefined) {
    // A symlink is hashed by what it points at (inside the workspace), as before; the entry itself is replaced.
    const actual = existing?.isSymbolicLink()
      ? await hashHandle((await openGuardedForRead(config, workspace, args.path, "hash")).handle)
      : await hashFile(target, args.path);
    if (actual !== args.expected_sha256.toLowerCase()) {
      return failure(`${args.path} changed: expected sha256 ${args.expected_sha256}, found ${actual}`);
    }
  }
  const temporary = join(pinned.base, `.scv-write-${process.pid}-${temporaryCounter++}.tmp`);
  let handle: FileHandle;
  try {
    const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
    handle = await open(temporary, flags, 0o666);
  } catch (error) {
    throw confinementError("write", args.path, error);
  }
  let placed = false;
  try {
    try {
      await verifyDescriptor(workspace, handle, "write", args.path);
      // A replaced file keeps its permission bits (an executable script stays executable).
      if (existing?.isFile()) await handle.chmod(existing.mode & 0o7777);
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (signal.aborted) return cancelledOutcome("write cancelled");
    await context.fileWillChange?.(realTarget);
    if (create) {
      try {
        await link(temporary, target);
      } catch (error) {
        if (errorCode(error) === "EEXIST") return failure(`${args.path} already exists`);
        throw confinementError("write", args.path, error);
      }
    } else {
      try {
        await rename(temporary, target);
        placed = true;
      } catch (error) {
        throw confinementError("write", args.path, error);
      }
    }
  } finally {
    if (!placed) await unlink(temporary).catch(() => undefined);
  }
  await syncDirectory(pinned.base);
  const sha256 = createHash("sha256").update(data).digest("hex");
  return { success: true, output: JSON.stringify({ path: args.path, bytes: data.length, sha256 }), truncated: false };
}

async function lstatOrUndefined(target: string, path: string) {
  try {
    return await lstat(target);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return undefined;
    throw confinementError("write", path, error);
  }
}

async function hashFile(target: string, path: string): Promise<string> {
  let handle: FileHandle;
  try {
    handle = await open(target, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    throw confinementError("hash", path, error);
  }
  return hashHandle(handle);
}

async function hashHandle(handle: FileHandle): Promise<string> {
  try {
    const hash = createHash("sha256");
    const chunk = Buffer.alloc(65536);
    for (;;) {
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      hash.update(chunk.subarray(0, bytesRead));
    }
    return hash.digest("hex");
  } finally {
    await handle.close();
  }
}
