// The `edit` tool: replace an exact piece of an existing UTF-8 file (issue 15). Line endings (a CRLF file stays
// CRLF), a byte-order mark and the permission bits are kept; the new content is installed atomically.

import type { ResolvedConfig } from "../config/index.ts";
import { cancelledOutcome, failure } from "./outcome.ts";
import { applyChanges, readWorkspaceFile } from "./file_change.ts";
import type { ObjectSchema } from "./schema.ts";
import { validateArguments } from "./schema.ts";
import { unifiedDiff } from "./text_diff.ts";
import { decodeText, encodeText } from "./text_file.ts";
import type { Tool, ToolContext, ToolOutcome } from "./types.ts";
import { touchedPaths } from "./touched_paths.ts";
import { confinementError, probePath, toolPath, WorkspacePathError } from "../policy/index.ts";

type EditArgs = { path: string; old_string: string; new_string: string; replace_all?: boolean };

export type EditSettings = { maxWriteBytes: number };

type Planned = { ok: true; before: string; after: string; count: number; data: Buffer } | {
  ok: false;
  error: string;
  code?: "limit";
};

export function createEditTool(settings: EditSettings): Tool {
  const parameters: ObjectSchema = {
    type: "object",
    properties: {
      path: {
        type: "string",
        description: "Path of an existing file, relative to the workspace root (or absolute inside it)",
      },
      old_string: {
        type: "string",
        description:
          "The exact text to replace, including its indentation; give enough surrounding lines to make it unique",
      },
      new_string: { type: "string", description: "The text to put in its place (must differ from old_string)" },
      replace_all: { type: "boolean", description: "Replace every occurrence instead of exactly one (default false)" },
    },
    required: ["path", "old_string", "new_string"],
    additionalProperties: false,
  };
  return {
    name: "edit",
    description:
      "Change part of an existing file by exact text replacement: old_string must occur exactly once (or set " +
      "replace_all). Prefer this over write for changes to existing files; read the file first so old_string " +
      "matches exactly. Line endings and file permissions are kept. The output shows a unified diff.",
    parameters,
    prepare(args, context) {
      const checked = validateArguments<EditArgs>(parameters, args);
      if (!checked.ok) return { error: checked.error };
      const given = toolPath(context.workspace, checked.value.path);
      if ("error" in given) return { error: given.error };
      const value = { ...checked.value, path: given.path };
      if (value.old_string === "") return { error: "old_string must not be empty (use write to create a file)" };
      if (value.old_string === value.new_string)
        return { error: "old_string and new_string are the same; nothing would change" };
      const probe = probePath(context.workspace, value.path);
      if (probe.escaped) {
        return {
          error: confinementError("edit", value.path, new WorkspacePathError("resolves outside the workspace")).message,
        };
      }
      return {
        risk: "filesystem",
        access: { effect: "edit", writes: touchedPaths(value.path, probe.resolvedRelative) },
        summary: `Edit ${value.path}: replace ${
          value.replace_all === true ? "every occurrence" : "one occurrence"
        } of ${lineCount(value.old_string)} line(s) with ${lineCount(value.new_string)} line(s)`,
        preview: async (runContext) => {
          const planned = await plan(value, settings, runContext.workspace, runContext.config).catch(() => undefined);
          return planned?.ok === true ? unifiedDiff(value.path, planned.before, planned.after) : undefined;
        },
        run: (runContext) => runEdit(value, settings, runContext),
      };
    },
  };
}

function lineCount(text: string): number {
  return text.split("\n").length;
}

async function plan(
  args: EditArgs,
  settings: EditSettings,
  workspace: string,
  config?: ResolvedConfig,
): Promise<Planned> {
  const existing = await readWorkspaceFile(workspace, args.path, "edit", settings.maxWriteBytes, config);
  if (existing === undefined)
    return { ok: false, error: `edit ${args.path}: the file does not exist (use write to create it)` };
  const text = decodeText(existing.bytes);
  if (text === undefined) return { ok: false, error: `edit ${args.path}: the file is not UTF-8 text` };
  const { content, crlf } = text;
  // A CRLF file is matched and edited in LF form and written back as CRLF, so the model's "\n" strings fit.
  const normalize = (value: string) => (crlf ? value.replaceAll("\r\n", "\n") : value);
  const source = normalize(content);
  const oldString = normalize(args.old_string);
  const newString = normalize(args.new_string);
  const count = countOccurrences(source, oldString);
  if (count === 0)
    return {
      ok: false,
      error: `edit ${args.path}: old_string was not found in the file (it must match exactly, including whitespace)`,
    };
  if (count > 1 && args.replace_all !== true) {
    return {
      ok: false,
      error:
        `edit ${args.path}: old_string matches ${count} times; add surrounding context to make it unique, or set replace_all`,
    };
  }
  const replaced = args.replace_all === true
    ? source.split(oldString).join(newString)
    : replaceOnce(source, oldString, newString);
  const after = crlf ? replaced.replaceAll("\r\n", "\n").replaceAll("\n", "\r\n") : replaced;
  const data = encodeText({ ...text, content: after });
  if (data.length > settings.maxWriteBytes)
    return { ok: false, error: `edit result exceeds ${settings.maxWriteBytes} byte limit`, code: "limit" };
  return { ok: true, before: content, after, count, data };
}

function replaceOnce(source: string, search: string, replacement: string): string {
  const at = source.indexOf(search);
  return source.slice(0, at) + replacement + source.slice(at + search.length);
}

function countOccurrences(source: string, search: string): number {
  let count = 0;
  for (let at = source.indexOf(search); at >= 0; at = source.indexOf(search, at + search.length)) count += 1;
  return count;
}

async function runEdit(args: EditArgs, settings: EditSettings, context: ToolContext): Promise<ToolOutcome> {
  if (context.signal.aborted) return cancelledOutcome("edit cancelled");
  try {
    const planned = await plan(args, settings, context.workspace, context.config);
    if (!planned.ok) return failure(planned.error, planned.code ?? "failed");
    if (context.signal.aborted) return cancelledOutcome("edit cancelled");
    await applyChanges(
      context.workspace,
      [{ kind: "write", path: args.path, data: planned.data }],
      "edit",
      context.config,
      context.fileWillChange,
    );
    const diff = unifiedDiff(args.path, planned.before, planned.after);
    const what = planned.count === 1 ? "1 occurrence" : `${planned.count} occurrences`;
    return { success: true, output: `Edited ${args.path}: replaced ${what}\n\n${diff}`, truncated: false };
  } catch (error) {
    if (error instanceof WorkspacePathError) return failure(error.message);
    return failure(`edit ${args.path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
