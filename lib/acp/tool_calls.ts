// How scv's tool calls look to an ACP client: the `kind` an editor picks an icon by, a one-line title, the files a
// call touches (`locations`) and, for file changes, a `diff` of the file before and after. Tools are mapped by name,
// so tools that other branches add (edit, apply_patch, grep, …) fit as soon as they exist.
import { readFile, realpath, stat } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import type { ToolCallContent, ToolCallLocation, ToolKind } from "@agentclientprotocol/sdk";
import { summarizeArguments } from "../render/index.ts";
import { isInside } from "../util/path.ts";

const KINDS: Record<string, ToolKind> = {
  read: "read",
  read_skill: "read",
  ls: "read",
  write: "edit",
  edit: "edit",
  multi_edit: "edit",
  apply_patch: "edit",
  bash: "execute",
  exec: "execute",
  grep: "search",
  glob: "search",
  find: "search",
  web_search: "search",
  web_fetch: "fetch",
};

/** The ACP kind of a tool by its name (nested calls of an exec cell are named like any other call). */
export function toolKind(name: string): ToolKind {
  return KINDS[name] ?? "other";
}

/** `bash: ls -la`, `read: src/a.ts`: the tool and the short summary chat shows, cut to one readable line. */
export function toolTitle(name: string, args: unknown): string {
  const summary = summarizeArguments(name, args);
  const line = summary.length > 200 ? `${summary.slice(0, 199)}…` : summary;
  return line === "" ? name : `${name}: ${line}`;
}

function record(args: unknown): Record<string, unknown> {
  return args !== null && typeof args === "object" && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
}

function stringField(args: unknown, key: string): string | undefined {
  const value = record(args)[key];
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** The workspace file a call names (`path`, or `file_path` as edit tools often call it), as an absolute path. */
export function callPath(args: unknown, cwd: string): string | undefined {
  const path = stringField(args, "path") ?? stringField(args, "file_path");
  return path === undefined ? undefined : resolve(cwd, path);
}

export function toolLocations(args: unknown, cwd: string): ToolCallLocation[] {
  const path = callPath(args, cwd);
  return path === undefined ? [] : [{ path }];
}

/** Files larger than this are not read for a diff (the call still shows, without one). */
const MAX_DIFF_BYTES = 1024 * 1024;

/**
 * The current text of a workspace file for the "before" side of a diff: null when it does not exist; undefined
 * when it cannot be shown (outside the workspace through a symlink, too large, not a regular file, unreadable).
 * Only files inside the workspace are read, so a proposed call cannot make scv show the editor an outside file.
 */
async function currentText(path: string, cwd: string): Promise<string | null | undefined> {
  try {
    const root = await realpath(cwd);
    const real = await realpath(path);
    if (!isInside(root, real)) return undefined;
    const info = await stat(real);
    if (!info.isFile() || info.size > MAX_DIFF_BYTES) return undefined;
    return await readFile(real, "utf8");
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? null : undefined;
  }
}

/**
 * The diff a file-changing call will make, read when the call is proposed (before it can run): `write` replaces
 * the whole file; an `edit` with old_string/new_string shows the replaced passage. Undefined when the call changes
 * no file or its before/after cannot be known.
 */
export async function proposedDiff(name: string, args: unknown, cwd: string): Promise<ToolCallContent | undefined> {
  const path = callPath(args, cwd);
  if (path === undefined || !isAbsolute(path) || !isInside(resolve(cwd), path)) return undefined;
  if (name === "write") {
    const content = record(args).content;
    if (typeof content !== "string") return undefined;
    const before = await currentText(path, cwd);
    if (before === undefined) return undefined;
    return { type: "diff", path, oldText: before, newText: content };
  }
  if (name === "edit") {
    const oldText = record(args).old_string;
    const newText = record(args).new_string;
    if (typeof oldText !== "string" || typeof newText !== "string") return undefined;
    return { type: "diff", path, oldText, newText };
  }
  return undefined;
}
