// The `read` tool: a byte range of a UTF-8 file inside the workspace (spec §9).

import type { ObjectSchema } from "./schema.ts";
import { validateArguments } from "./schema.ts";
import { checkUnchanged, type FileVerdict, openGuardedForRead, probeForRead } from "./file_guard.ts";
import type { Tool, ToolContext, ToolOutcome } from "./types.ts";
import { touchedPaths } from "./touched_paths.ts";
import { confinementError, probePath, toolPath, WorkspacePathError } from "../policy/index.ts";
import { cancelledOutcome, failure } from "./outcome.ts";

type ReadArgs = { path: string; offset?: number; limit?: number };

export type ReadSettings = { maxReadBytes: number };

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

export function createReadTool(settings: ReadSettings): Tool {
  const parameters: ObjectSchema = {
    type: "object",
    properties: {
      path: {
        type: "string",
        description: "File path relative to the workspace root (an absolute path inside it works too)",
      },
      offset: { type: "integer", minimum: 0, description: "Byte offset to start reading at (default 0)" },
      limit: {
        type: "integer",
        minimum: 1,
        description: `Maximum number of bytes to read (default and maximum ${settings.maxReadBytes})`,
      },
    },
    required: ["path"],
    additionalProperties: false,
  };
  return {
    name: "read",
    description: "Read a bounded UTF-8 file inside the workspace",
    parameters,
    prepare(args, context) {
      const checked = validateArguments<ReadArgs>(parameters, args, { "limit.minimum": "read limit must be positive" });
      if (!checked.ok) return { error: checked.error };
      const given = toolPath(context.workspace, checked.value.path);
      if ("error" in given) return { error: given.error };
      const { path } = given;
      const probe = probePath(context.workspace, path);
      if (probe.escaped)
        return {
          error: confinementError("read", path, new WorkspacePathError("resolves outside the workspace")).message,
        };
      // A first opinion on the file the path resolves to now; run judges the descriptor it opens and refuses a
      // secret-like file that is not the one judged here (a symlink flipped in between).
      let verdict: FileVerdict;
      try {
        verdict = probeForRead(context.config, context.workspace, path, "read");
      } catch (error) {
        if (error instanceof WorkspacePathError) return { error: error.message };
        throw error;
      }
      return {
        risk: verdict.secret ? "filesystem" : "read_only",
        access: { effect: "read", reads: touchedPaths(path, probe.resolvedRelative) },
        summary: `Read ${path}`,
        run: (runContext) => runRead({ ...checked.value, path }, settings, runContext, verdict),
      };
    },
  };
}

async function runRead(
  args: ReadArgs,
  settings: ReadSettings,
  context: ToolContext,
  prepared: FileVerdict,
): Promise<ToolOutcome> {
  if (context.signal.aborted) return cancelledOutcome("read cancelled");
  const limit = Math.min(args.limit ?? settings.maxReadBytes, settings.maxReadBytes);
  let handle;
  let info;
  try {
    const opened = await openGuardedForRead(context.config, context.workspace, args.path, "read");
    handle = opened.handle;
    info = opened.stats;
    try {
      checkUnchanged(prepared, opened.verdict, "read", args.path);
    } catch (error) {
      await handle.close();
      throw error;
    }
  } catch (error) {
    return failure(error instanceof WorkspacePathError ? error.message : `read ${args.path}: ${String(error)}`);
  }
  let bytes: Buffer;
  let total: number;
  let start: number;
  try {
    if (!info.isFile()) {
      return failure(`read ${args.path}: ${info.isDirectory() ? "is a directory" : "not a regular file"}`);
    }
    total = info.size;
    start = Math.min(args.offset ?? 0, total);
    bytes = Buffer.alloc(Math.min(limit, total - start));
    let filled = 0;
    while (filled < bytes.length) {
      const { bytesRead } = await handle.read(bytes, filled, bytes.length - filled, start + filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    bytes = bytes.subarray(0, filled);
  } catch (error) {
    return failure(`read ${args.path}: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    await handle.close();
  }
  if (context.signal.aborted) return cancelledOutcome("read cancelled");
  let content: string;
  try {
    content = utf8.decode(bytes);
  } catch {
    return failure(`selected range of ${args.path} is not UTF-8`);
  }
  const end = start + bytes.length;
  const truncated = start > 0 || end < total;
  const output = JSON.stringify({ path: args.path, content, total_bytes: total, offset: start, truncated });
  return { success: true, output, truncated };
}
