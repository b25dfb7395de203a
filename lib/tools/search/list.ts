// The `list` tool: the entries under a folder (default the workspace, depth 2), folders ending in `/`, sorted,
// honouring .gitignore, bounded. An entry `read` would refuse or ask about (secret-like, hard-linked, linked out
// of the workspace, scv's own files and instance home) is not listed, and such a folder is not entered.

import { lstat } from "node:fs/promises";
import { cancelledOutcome, failure } from "../outcome.ts";
import type { ObjectSchema } from "../schema.ts";
import { validateArguments } from "../schema.ts";
import type { Tool, ToolContext, ToolOutcome } from "../types.ts";
import { judgeEntry } from "../file_guard.ts";
import { canonicalWorkspace, WorkspacePathError } from "../../policy/index.ts";
import { checkSearchPath, givenPath, leftOutNotice, mayShow, resolveStart, searchAccess } from "./common.ts";
import { walk, type WalkEntry, yieldToLoop } from "./walk.ts";

export const LIST_MAX_ENTRIES = 1000;
const MAX_DEPTH = 10;

export function createListTool(): Tool {
  const parameters: ObjectSchema = {
    type: "object",
    properties: {
      path: {
        type: "string",
        description: "The folder to list, relative to the workspace (default: the workspace root)",
      },
      depth: {
        type: "integer",
        minimum: 1,
        maximum: MAX_DEPTH,
        description: "How many levels of folders to show (default 2)",
      },
    },
    required: [],
    additionalProperties: false,
  };
  return {
    name: "list",
    description:
      "List the files and folders under a folder; read-only, never asks. Prefer this over bash ls/tree to see a " +
      `project's layout. Folders end in /; honours .gitignore; at most ${LIST_MAX_ENTRIES} entries; leaves out ` +
      "secret-like and hard-linked files.",
    parameters,
    prepare(args, context) {
      const checked = validateArguments<{ path?: string; depth?: number }>(parameters, args ?? {});
      if (!checked.ok) return { error: checked.error };
      const given = givenPath(context.workspace, checked.value.path);
      if ("error" in given) return given;
      const { path } = given;
      const check = checkSearchPath("list", context.workspace, context.config, path);
      if ("error" in check) return check;
      const depth = checked.value.depth ?? 2;
      // A secret-like folder asked for by name was approved (filesystem risk): its entries are listed.
      const secretsApproved = check.risk !== "read_only";
      return {
        risk: check.risk,
        access: searchAccess(path),
        summary: `List ${path === "." ? "the workspace" : path} (depth ${depth})`,
        run: (runContext) => runList(path, depth, secretsApproved, runContext),
      };
    },
  };
}

async function runList(
  path: string,
  depth: number,
  secretsApproved: boolean,
  context: ToolContext,
): Promise<ToolOutcome> {
  let start: string;
  try {
    start = await resolveStart("list", context.workspace, path);
  } catch (error) {
    return failure(error instanceof WorkspacePathError ? error.message : String(error));
  }
  const workspace = canonicalWorkspace(context.workspace);
  const info = await lstat(workspace + (start === "" ? "" : `/${start}`)).catch(() => undefined);
  if (!info?.isDirectory()) return failure(`list ${path}: not a directory`);
  const rows: string[] = [];
  let total = 0;
  let leftOut = 0;
  let last = Date.now();
  const admitByGuard = (entry: WalkEntry) => {
    const shown = mayShow(judgeEntry(context.config, workspace, entry.path, entry.kind), secretsApproved);
    if (!shown) leftOut += 1;
    return shown;
  };
  // Paths a deny rule forbids list to read are left out too.
  const admit = (entry: WalkEntry) => admitByGuard(entry) && !(context.hides?.("list", entry.path) ?? false);
  for (const entry of walk(workspace, start, { maxDepth: depth, admit })) {
    total += 1;
    if (rows.length < LIST_MAX_ENTRIES) rows.push(entry.kind === "directory" ? `${entry.path}/` : entry.path);
    if (Date.now() - last > 20) {
      await yieldToLoop();
      if (context.signal.aborted) return cancelledOutcome("list cancelled");
      last = Date.now();
    }
  }
  const notice = total > rows.length
    ? [`… ${total - rows.length} more entries not shown (at most ${LIST_MAX_ENTRIES}); list a subfolder or lower depth`]
    : [];
  const empty = leftOut === 0 ? `${path === "." ? "The workspace" : path} is empty.` : "No entries shown.";
  const body = rows.length === 0 ? [empty] : rows;
  return {
    success: true,
    output: [...body, ...notice, ...leftOutNotice(leftOut, "entry", "not listed")].join("\n"),
    truncated: total > rows.length,
  };
}
