// The `glob` tool: workspace files whose path matches a glob, sorted, honouring .gitignore, at most 1,000; a file
// `read` would refuse or ask about (secret-like, hard-linked, linked out of the workspace, scv's own) is not
// listed, and scv's instance home and secret-like folders are not entered.

import { lstat } from "node:fs/promises";
import { join } from "node:path";
import { cancelledOutcome, failure } from "../outcome.ts";
import type { ObjectSchema } from "../schema.ts";
import { validateArguments } from "../schema.ts";
import type { Tool, ToolContext, ToolOutcome } from "../types.ts";
import { judgeEntry } from "../file_guard.ts";
import { canonicalWorkspace, WorkspacePathError } from "../../policy/index.ts";
import {
  admitsEntry,
  checkSearchPath,
  givenPath,
  leftOutNotice,
  mayShow,
  resolveStart,
  searchAccess,
} from "./common.ts";
import { compileGlob, type GlobMatcher } from "./glob_pattern.ts";
import { walk, type WalkEntry, yieldToLoop } from "./walk.ts";

export const GLOB_MAX_RESULTS = 1000;
const YIELD_EVERY_MS = 20;

export function createGlobTool(): Tool {
  const parameters: ObjectSchema = {
    type: "object",
    properties: {
      pattern: {
        type: "string",
        description:
          "A glob relative to `path`: `*` and `?` stay in one folder, `**` crosses folders, `{a,b}` and `[abc]` work (e.g. `**/*.ts`, `src/*/index.{js,ts}`)",
      },
      path: { type: "string", description: "The folder the pattern is relative to (default: the workspace root)" },
    },
    required: ["pattern"],
    additionalProperties: false,
  };
  return {
    name: "glob",
    description: "Find files by name pattern; read-only, never asks. Prefer this over bash find/ls to locate files. " +
      `Prints workspace-relative paths, one per line, sorted; honours .gitignore; at most ${GLOB_MAX_RESULTS}; ` +
      "leaves out secret-like and hard-linked files.",
    parameters,
    prepare(args, context) {
      const checked = validateArguments<{ pattern: string; path?: string }>(parameters, args);
      if (!checked.ok) return { error: checked.error };
      const pattern = checked.value.pattern.startsWith("./") ? checked.value.pattern.slice(2) : checked.value.pattern;
      if (pattern === "" || pattern.startsWith("/") || pattern.split("/").includes("..")) {
        return { error: "pattern must be non-empty and relative, without `..`" };
      }
      const matcher = compileGlob(pattern);
      if ("error" in matcher) return { error: matcher.error };
      const given = givenPath(context.workspace, checked.value.path);
      if ("error" in given) return given;
      const { path } = given;
      const check = checkSearchPath("glob", context.workspace, context.config, path);
      if ("error" in check) return check;
      // A secret-like folder asked for by name was approved (filesystem risk): its files are listed.
      const secretsApproved = check.risk !== "read_only";
      return {
        risk: check.risk,
        access: searchAccess(path),
        summary: `Find files matching ${pattern}${path === "." ? "" : ` in ${path}`}`,
        run: (runContext) => runGlob(matcher, path, secretsApproved, runContext),
      };
    },
  };
}

async function runGlob(
  matcher: GlobMatcher,
  path: string,
  secretsApproved: boolean,
  context: ToolContext,
): Promise<ToolOutcome> {
  let base: string;
  try {
    base = await resolveStart("glob", context.workspace, path);
  } catch (error) {
    return failure(error instanceof WorkspacePathError ? error.message : String(error));
  }
  const workspace = canonicalWorkspace(context.workspace);
  // Start below the pattern's literal folders (`src/lib/**` walks only src/lib), when they exist.
  let start = base;
  if (matcher.literalPrefix !== "") {
    const candidate = base === "" ? matcher.literalPrefix : `${base}/${matcher.literalPrefix}`;
    const info = await lstat(join(workspace, candidate)).catch(() => undefined);
    if (!info?.isDirectory()) return { success: true, output: "No files matched.", truncated: false };
    start = candidate;
  }
  const found: string[] = [];
  let total = 0;
  let leftOut = 0;
  let last = Date.now();
  const offset = base === "" ? 0 : base.length + 1;
  const admitted = admitsEntry(context.config, workspace, secretsApproved);
  // Paths a deny rule forbids glob to read are left out too.
  const admit = (entry: WalkEntry) => admitted(entry) && !(context.hides?.("glob", entry.path) ?? false);
  for (const entry of walk(workspace, start, { admit })) {
    if (entry.kind !== "directory" && matcher.test(entry.path.slice(offset))) {
      if (mayShow(judgeEntry(context.config, workspace, entry.path, entry.kind), secretsApproved)) {
        total += 1;
        if (found.length < GLOB_MAX_RESULTS) found.push(entry.path);
      } else {
        leftOut += 1;
      }
    }
    if (Date.now() - last > YIELD_EVERY_MS) {
      await yieldToLoop();
      if (context.signal.aborted) return cancelledOutcome("glob cancelled");
      last = Date.now();
    }
  }
  const notice = total > found.length
    ? [`… ${total - found.length} more files not shown (at most ${GLOB_MAX_RESULTS}); narrow the pattern`]
    : [];
  const body = found.length === 0 ? ["No files matched."] : found;
  return {
    success: true,
    output: [...body, ...notice, ...leftOutNotice(leftOut, "file", "not listed")].join("\n"),
    truncated: total > found.length,
  };
}
