// The `write` tool: atomically create or replace a UTF-8 file inside the workspace (spec §9).
// Content goes to a temporary file beside the target, is fsynced, then hard-linked into place
// (create: never overwrites) or renamed over the target (replace). The temp file never remains.

import { createHash } from "node:crypto";
import { constants } from "node:fs";
import { link, lstat, open, rename, unlink, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { readWorkspaceFile } from "./file_change.ts";
import { cancelledOutcome, failure } from "./outcome.ts";
import { unifiedDiff } from "./text_diff.ts";
import { decodeText } from "./text_file.ts";
import type { ObjectSchema } from "./schema.ts";
import { validateArguments } from "./schema.ts";
import type { Tool, ToolContext, ToolOutcome } from "./types.ts";
import {
  checkRelativePath,
  confinementError,
  errorCode,
  openConfinedForRead,
  probePath,
  resolveParent,
  verifyDescriptor,
  WorkspacePathError,
} from "./workspace_path.ts";

type WriteArgs = { path: string; content: string; mode: "create" | "replace"; expected_sha256?: string };

export type WriteSettings = { maxWriteBytes: number };

let temporaryCounter = 0;

export function createWriteTool(settings: WriteSettings): Tool {
  const parameters: ObjectSchema = {
    type: "object",
    properties: {
      path: { type: "string", description: "File path relative to the workspace root; missing parent directories are created" },
      content: { type: "string", description: `The complete new file content (at most ${settings.maxWriteBytes} bytes of UTF-8)` },
      mode: { type: "string", enum: ["create", "replace"], description: "create a new file (fails if it exists) or replace an existing one" },
      expected_sha256: { type: "string", description: "Optional hex SHA-256 the current file must have, guarding against lost updates" },
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
      const { path, content, mode } = checked.value;
      const shape = checkRelativePath(path);
      if (shape !== undefined) return { error: shape };
      if (probePath(context.workspace, path).escaped) {
        return { error: confinementError("write", path, new WorkspacePathError("resolves outside the workspace")).message };
      }
      const bytes = Buffer.byteLength(content, "utf8");
      return {
        risk: "filesystem",
        summary: `${mode === "create" ? "Create" : "Replace"} ${path} (${bytes} bytes)`,
        preview: (previewContext) => previewWrite(previewContext.workspace, checked.value, settings),
        run: (runContext) => runWrite(checked.value, settings, runContext),
      };
    },
  };
}

/** The diff the write would make: against the current file for replace, from nothing for create. */
async function previewWrite(workspace: string, args: WriteArgs, settings: WriteSettings): Promise<string | undefined> {
  if (args.mode === "create") return unifiedDiff(args.path, undefined, args.content);
  const existing = await readWorkspaceFile(workspace, args.path, "write", settings.maxWriteBytes).catch(() => undefined);
  if (existing === undefined) return undefined;
  const text = decodeText(existing.bytes);
  return text === undefined ? `Binary or non-UTF-8 file ${args.path} would be replaced\n` : unifiedDiff(args.path, text.content, args.content);
}

async function runWrite(args: WriteArgs, settings: WriteSettings, context: ToolContext): Promise<ToolOutcome> {
  if (context.signal.aborted) return cancelledOutcome("write cancelled");
  const data = Buffer.from(args.content, "utf8");
  if (data.length > settings.maxWriteBytes) return failure(`write exceeds ${settings.maxWriteBytes} byte limit`, "limit");
  try {
    return await writeConfined(args, data, context);
  } catch (error) {
    if (error instanceof WorkspacePathError) return failure(error.message);
    return failure(`write ${args.path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

async function writeConfined(args: WriteArgs, data: Buffer, context: ToolContext): Promise<ToolOutcome> {
  const { workspace, signal } = context;
  const create = args.mode === "create";
  const parent = await resolveParent(workspace, args.path, "write", create);
  if (parent.missing) return failure(`${args.path} does not exist`);
  const target = join(parent.dir, parent.name);
  const existing = await lstatOrUndefined(target, args.path);
  if (create && existing !== undefined) return failure(`${args.path} already exists`);
  if (!create && existing === undefined) return failure(`${args.path} does not exist`);
  if (args.expected_sha256 !== undefined) {
    const actual = await hashFile(workspace, args.path);
    if (actual !== args.expected_sha256.toLowerCase()) {
      return failure(`${args.path} changed: expected sha256 ${args.expected_sha256}, found ${actual}`);
    }
  }
  const temporary = join(parent.dir, `.scv-write-${process.pid}-${temporaryCounter++}.tmp`);
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
  await syncDirectory(parent.dir);
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

async function hashFile(workspace: string, path: string): Promise<string> {
  const handle = await openConfinedForRead(workspace, path, "hash");
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

/** Makes the new directory entry durable; failures only cost durability, never correctness. */
async function syncDirectory(dir: string): Promise<void> {
  try {
    const handle = await open(dir, constants.O_RDONLY | constants.O_DIRECTORY);
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // some file systems refuse fsync on directories
  }
}
