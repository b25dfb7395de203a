// The `apply_patch` tool (issue 15): a patch in the Codex CLI grammar, applied to every file it names or to none.

import type { ResolvedConfig } from "../../config/index.ts";
import { applyChanges, type FileChange, readWorkspaceFile } from "../file_change.ts";
import { cancelledOutcome, failure } from "../outcome.ts";
import type { ObjectSchema } from "../schema.ts";
import { validateArguments } from "../schema.ts";
import { unifiedDiff } from "../text_diff.ts";
import { decodeText, encodeText } from "../text_file.ts";
import type { Tool, ToolContext, ToolOutcome } from "../types.ts";
import { touchedPaths } from "../touched_paths.ts";
import { confinementError, probePath, toolPath, WorkspacePathError } from "../../policy/index.ts";
import { applyPatch, type FinalState } from "./apply.ts";
import { parsePatch, type PatchHunk } from "./parse.ts";

export type ApplyPatchSettings = { maxWriteBytes: number };

type Meta = { mode: number; bom: boolean };
type Computed =
  | { ok: true; files: Map<string, FinalState>; meta: Map<string, Meta>; summary: string[] }
  | { ok: false; error: string };

const DESCRIPTION = [
  "Create, change, move and delete files with one patch; all files change or none do. Prefer this for edits",
  "to existing files (several places or files at once). Format:",
  "*** Begin Patch",
  "*** Add File: path/new.txt",
  "+every line of the new file, each starting with +",
  "*** Delete File: path/old.txt",
  "*** Update File: path/file.py",
  "*** Move to: path/renamed.py   (optional)",
  "@@ def some_function():   (optional: a line above the change, to find the place)",
  " context line (starts with a space)",
  "-removed line",
  "+added line",
  "*** End of File   (optional: the chunk ends at the end of the file)",
  "*** End Patch",
  "Give about 3 lines of context above and below each change; paths are relative to the workspace (absolute ones",
  "must lie inside it).",
].join("\n");

export function createApplyPatchTool(settings: ApplyPatchSettings): Tool {
  const parameters: ObjectSchema = {
    type: "object",
    properties: { input: { type: "string", description: "The whole patch, from *** Begin Patch to *** End Patch" } },
    required: ["input"],
    additionalProperties: false,
  };
  return {
    name: "apply_patch",
    description: DESCRIPTION,
    parameters,
    prepare(args, context) {
      const checked = validateArguments<{ input: string }>(parameters, args);
      if (!checked.ok) return { error: checked.error };
      const parsed = parsePatch(checked.value.input);
      if (!parsed.ok) return { error: parsed.error };
      const relative = relativeHunks(parsed.hunks, context.workspace, parsed.cd);
      if ("error" in relative) return { error: relative.error };
      const hunks = relative.hunks;
      const writes: string[] = [];
      for (const path of hunkPaths(hunks)) {
        const probe = probePath(context.workspace, path);
        writes.push(...touchedPaths(path, probe.resolvedRelative));
        if (probe.escaped) {
          return {
            error:
              confinementError("apply_patch", path, new WorkspacePathError("resolves outside the workspace")).message,
          };
        }
      }
      return {
        risk: "filesystem",
        access: { effect: "edit", writes: [...new Set(writes)] },
        summary: `Apply a patch: ${hunks.map(describeHunk).join(", ")}`,
        preview: async (runContext) => {
          const computed = await compute(hunks, settings, runContext.workspace, runContext.config).catch(() =>
            undefined
          );
          return computed?.ok === true ? diffOf(computed.files) : undefined;
        },
        run: (runContext) => runApplyPatch(hunks, settings, runContext),
      };
    },
  };
}

/**
 * The hunks with every path workspace-relative (an absolute one inside the workspace is taken; a relative one is
 * taken in `cd`, the folder a `cd <folder> &&` wrapping named), or the refusal.
 */
function relativeHunks(
  hunks: PatchHunk[],
  workspace: string,
  cd: string | undefined,
): { hunks: PatchHunk[] } | { error: string } {
  let folder = "";
  if (cd !== undefined) {
    const checked = toolPath(workspace, cd, { folder: true });
    if ("error" in checked) return { error: `apply_patch: cd ${cd}: ${checked.error}` };
    folder = checked.path === "." ? "" : checked.path;
  }
  // Joined as text: a `..` in a path stays, for toolPath to refuse, instead of being folded away.
  const inFolder = (path: string) => (folder === "" || path.startsWith("/") ? path : `${folder}/${path}`);
  const relative: PatchHunk[] = [];
  for (const hunk of hunks) {
    const path = toolPath(workspace, inFolder(hunk.path));
    if ("error" in path) return { error: `apply_patch ${hunk.path}: ${path.error}` };
    if (hunk.kind !== "update" || hunk.moveTo === undefined) {
      relative.push({ ...hunk, path: path.path });
      continue;
    }
    const moveTo = toolPath(workspace, inFolder(hunk.moveTo));
    if ("error" in moveTo) return { error: `apply_patch ${hunk.moveTo}: ${moveTo.error}` };
    relative.push({ ...hunk, path: path.path, moveTo: moveTo.path });
  }
  return { hunks: relative };
}

function hunkPaths(hunks: PatchHunk[]): string[] {
  return hunks.flatMap((
    hunk,
  ) => (hunk.kind === "update" && hunk.moveTo !== undefined ? [hunk.path, hunk.moveTo] : [hunk.path]));
}

function describeHunk(hunk: PatchHunk): string {
  switch (hunk.kind) {
    case "add":
      return `add ${hunk.path}`;
    case "delete":
      return `delete ${hunk.path}`;
    case "update":
      return hunk.moveTo !== undefined ? `update ${hunk.path} and move it to ${hunk.moveTo}` : `update ${hunk.path}`;
  }
}

async function compute(
  hunks: PatchHunk[],
  settings: ApplyPatchSettings,
  workspace: string,
  config?: ResolvedConfig,
): Promise<Computed> {
  const meta = new Map<string, Meta>();
  let readError: string | undefined;
  const result = await applyPatch(hunks, async (path) => {
    const existing = await readWorkspaceFile(workspace, path, "apply_patch", settings.maxWriteBytes, config).catch(
      (error: unknown) => {
        readError = error instanceof Error ? error.message : String(error);
        throw error;
      },
    );
    if (existing === undefined) return undefined;
    const text = decodeText(existing.bytes);
    if (text === undefined) {
      readError = `apply_patch ${path}: the file is not UTF-8 text`;
      throw new Error(readError);
    }
    meta.set(path, { mode: existing.mode, bom: text.bom });
    // CRLF files are patched in LF form and written back as CRLF.
    return { content: text.crlf ? text.content.replaceAll("\r\n", "\n") : text.content, crlf: text.crlf };
  }).catch((error: unknown) => ({
    ok: false as const,
    error: readError ?? (error instanceof Error ? error.message : String(error)),
  }));
  if (!result.ok) return { ok: false, error: result.error };
  return { ok: true, files: result.files, meta, summary: result.summary };
}

function diffOf(files: Map<string, FinalState>): string {
  return [...files.entries()].map(([path, state]) => unifiedDiff(path, state.before, state.after)).join("");
}

async function runApplyPatch(
  hunks: PatchHunk[],
  settings: ApplyPatchSettings,
  context: ToolContext,
): Promise<ToolOutcome> {
  if (context.signal.aborted) return cancelledOutcome("apply_patch cancelled");
  try {
    const computed = await compute(hunks, settings, context.workspace, context.config);
    if (!computed.ok) return failure(`apply_patch failed, no file was changed: ${computed.error}`);
    const changes: FileChange[] = [];
    for (const [path, state] of computed.files) {
      if (state.after === undefined) {
        if (state.before !== undefined) changes.push({ kind: "delete", path });
        continue;
      }
      if (state.after === state.before && state.movedFrom === undefined) continue;
      const meta = computed.meta.get(state.movedFrom ?? path) ?? computed.meta.get(path);
      const content = state.crlf ? state.after.replaceAll("\n", "\r\n") : state.after;
      const data = encodeText({ content, bom: meta?.bom ?? false });
      if (data.length > settings.maxWriteBytes)
        return failure(`apply_patch: ${path} would exceed the ${settings.maxWriteBytes} byte limit`, "limit");
      changes.push({ kind: "write", path, data, ...(meta === undefined ? {} : { mode: meta.mode }) });
    }
    if (context.signal.aborted) return cancelledOutcome("apply_patch cancelled");
    await applyChanges(context.workspace, changes, "apply_patch", context.config, context.fileWillChange);
    const listed = [...new Set(computed.summary)];
    const output = `Success. Updated the following files:\n${listed.join("\n")}\n\n${diffOf(computed.files)}`;
    return { success: true, output, truncated: false };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return failure(`apply_patch failed, no file was changed: ${message}`);
  }
}
