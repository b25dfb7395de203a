// The `grep` tool: a JavaScript regular expression over the workspace's text files, honouring .gitignore, skipping
// .git/, binary files and secret-like paths; `path:LINE:text`, sorted by path then line, at most `max_results`.

import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { join } from "node:path";
import { cancelledOutcome, failure } from "../outcome.ts";
import type { ObjectSchema } from "../schema.ts";
import { validateArguments } from "../schema.ts";
import { isSecretLikePath } from "../../policy/index.ts";
import type { Tool, ToolContext, ToolOutcome } from "../types.ts";
import { canonicalWorkspace, WorkspacePathError } from "../../policy/index.ts";
import { checkSearchPath, cutLine, givenPath, resolveStart } from "./common.ts";
import { compileGlob, type GlobMatcher } from "./glob_pattern.ts";
import { walk, yieldToLoop } from "./walk.ts";

type GrepArgs = { pattern: string; path?: string; glob?: string; ignore_case?: boolean; max_results?: number };

export const GREP_DEFAULT_RESULTS = 200;
const MAX_RESULTS = 2000;
const MAX_LINE_CHARS = 400;
/** Files larger than this are not searched (reported in a notice). */
const MAX_FILE_BYTES = 16 * 1024 * 1024;
const BINARY_PROBE_BYTES = 8192;
const YIELD_EVERY_MS = 20;

export function createGrepTool(): Tool {
  const parameters: ObjectSchema = {
    type: "object",
    properties: {
      pattern: {
        type: "string",
        description: "A JavaScript regular expression, matched line by line (e.g. `function\\s+load`, `TODO|FIXME`)",
      },
      path: {
        type: "string",
        description: "A folder or file to search, relative to the workspace (default: the whole workspace)",
      },
      glob: {
        type: "string",
        description: "Only files matching this glob, e.g. `*.ts` (matched against the file name) or `src/**/*.test.ts`",
      },
      ignore_case: { type: "boolean", description: "Match case-insensitively (default false)" },
      max_results: {
        type: "integer",
        minimum: 1,
        maximum: MAX_RESULTS,
        description: `At most this many matching lines (default ${GREP_DEFAULT_RESULTS})`,
      },
    },
    required: ["pattern"],
    additionalProperties: false,
  };
  return {
    name: "grep",
    description:
      "Search file contents for a regular expression; read-only, never asks. Prefer this over bash grep/rg. " +
      "Prints `path:LINE:text` sorted by path and line; honours .gitignore and skips .git/ and binary files.",
    parameters,
    prepare(args, context) {
      const checked = validateArguments<GrepArgs>(parameters, args);
      if (!checked.ok) return { error: checked.error };
      const value = checked.value;
      let regex: RegExp;
      try {
        regex = new RegExp(value.pattern, value.ignore_case === true ? "gim" : "gm");
      } catch (error) {
        return { error: `invalid regular expression: ${(error as Error).message}` };
      }
      let glob: GlobMatcher | undefined;
      if (value.glob !== undefined) {
        const compiled = compileGlob(value.glob);
        if ("error" in compiled) return { error: compiled.error };
        glob = compiled;
      }
      const path = givenPath(value.path);
      const check = checkSearchPath("grep", context.workspace, path);
      if ("error" in check) return check;
      return {
        risk: check.risk,
        access: check.access,
        summary: `Search ${path === "." ? "the workspace" : path} for /${value.pattern}/${
          value.ignore_case === true ? "i" : ""
        }${value.glob === undefined ? "" : ` in ${value.glob}`}`,
        run: (runContext) =>
          runGrep(
            {
              regex,
              glob,
              globHasSlash: value.glob?.includes("/") ?? false,
              path,
              max: value.max_results ?? GREP_DEFAULT_RESULTS,
              literal: value.ignore_case === true ? undefined : requiredLiteral(value.pattern),
              // A secret-like path asked for by name was approved (filesystem risk): its files are searched.
              searchSecrets: check.risk !== "read_only",
            },
            runContext,
          ),
      };
    },
  };
}

type GrepPlan = {
  regex: RegExp;
  glob: GlobMatcher | undefined;
  globHasSlash: boolean;
  path: string;
  max: number;
  /** Bytes every match must contain: files without them are skipped before decoding. */
  literal: Buffer | undefined;
  searchSecrets: boolean;
};

const SPECIAL = new Set(["\\", "^", "$", ".", "|", "?", "*", "+", "(", ")", "[", "]", "{", "}"]);

/**
 * The literal text at the start of `pattern` that every match contains (`needle_4` of `needle_4[0-9]+`), or
 * undefined when there is none worth checking. Conservative: any alternation anywhere gives none.
 */
export function requiredLiteral(pattern: string): Buffer | undefined {
  if (pattern.includes("|")) return undefined;
  let index = pattern.startsWith("^") ? 1 : 0;
  let literal = "";
  while (index < pattern.length && !SPECIAL.has(pattern[index]!)) {
    literal += pattern[index];
    index += 1;
  }
  // A quantifier that may repeat zero times makes the character before it optional.
  const next = pattern[index];
  if (next === "?" || next === "*" || next === "{") literal = [...literal].slice(0, -1).join("");
  return Buffer.byteLength(literal) >= 3 ? Buffer.from(literal, "utf8") : undefined;
}

async function runGrep(plan: GrepPlan, context: ToolContext): Promise<ToolOutcome> {
  let start: string;
  try {
    start = await resolveStart("grep", context.workspace, plan.path);
  } catch (error) {
    return failure(error instanceof WorkspacePathError ? error.message : String(error));
  }
  const workspace = canonicalWorkspace(context.workspace);
  const lines: string[] = [];
  let total = 0;
  let secretSkipped = 0;
  let largeSkipped = 0;
  const searchFile = (path: string) => {
    if (!plan.searchSecrets && isSecretLikePath(path)) {
      secretSkipped += 1;
      return;
    }
    if (plan.glob !== undefined) {
      const name = plan.globHasSlash ? path : path.slice(path.lastIndexOf("/") + 1);
      if (!plan.glob.test(name)) return;
    }
    const text = readText(join(workspace, path), plan.literal);
    if (text === "large") largeSkipped += 1;
    if (typeof text !== "string") return;
    total += searchText(text, plan.regex, (number, line) => {
      if (lines.length < plan.max) lines.push(`${path}:${number}:${cutLine(line, MAX_LINE_CHARS)}`);
    });
  };
  const single = await isFile(workspace, start);
  if (single) {
    searchFile(start);
  } else {
    let last = Date.now();
    for (
      const entry of walk(workspace, start, {
        ...(context.hides ? { skip: (path: string) => context.hides!("grep", path) } : {}),
      })
    ) {
      if (entry.kind === "file") searchFile(entry.path);
      if (Date.now() - last > YIELD_EVERY_MS) {
        await yieldToLoop();
        if (context.signal.aborted) return cancelledOutcome("grep cancelled");
        last = Date.now();
      }
    }
  }
  const notices: string[] = [];
  if (total > lines.length)
    notices.push(
      `… ${total - lines.length} more matching lines not shown (at most ${plan.max}); narrow the pattern, path or glob`,
    );
  if (secretSkipped > 0)
    notices.push(
      `(${secretSkipped} secret-like file${
        secretSkipped === 1 ? "" : "s"
      } not searched; read asks before opening them)`,
    );
  if (largeSkipped > 0)
    notices.push(`(${largeSkipped} file${largeSkipped === 1 ? "" : "s"} over ${MAX_FILE_BYTES} bytes not searched)`);
  const body = lines.length === 0 ? "No matches." : lines.join("\n");
  return { success: true, output: [body, ...notices].join("\n"), truncated: total > lines.length };
}

async function isFile(workspace: string, start: string): Promise<boolean> {
  if (start === "") return false;
  try {
    const fd = openSync(join(workspace, start), constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      return fstatSync(fd).isFile();
    } finally {
      closeSync(fd);
    }
  } catch {
    return false;
  }
}

const probe = Buffer.alloc(BINARY_PROBE_BYTES);

/**
 * The file's text; undefined for binary or unreadable files and for files without `literal`, "large" when over
 * the size limit.
 */
function readText(file: string, literal: Buffer | undefined): string | undefined | "large" {
  let fd: number;
  try {
    // O_NOFOLLOW: the walk saw a regular file; a symlink swapped in since is not followed out of the workspace.
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) return undefined;
    if (info.size > MAX_FILE_BYTES) return "large";
    if (info.size === 0) return undefined;
    const first = readSync(fd, probe, 0, Math.min(BINARY_PROBE_BYTES, info.size), 0);
    if (probe.subarray(0, first).includes(0)) return undefined;
    if (first >= info.size) {
      if (literal !== undefined && probe.subarray(0, first).indexOf(literal) < 0) return undefined;
      return probe.toString("utf8", 0, first);
    }
    const buffer = Buffer.allocUnsafe(info.size);
    probe.copy(buffer, 0, 0, first);
    let filled = first;
    while (filled < info.size) {
      const read = readSync(fd, buffer, filled, info.size - filled, filled);
      if (read === 0) break;
      filled += read;
    }
    if (literal !== undefined && buffer.subarray(0, filled).indexOf(literal) < 0) return undefined;
    return buffer.toString("utf8", 0, filled);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * Calls `found` for each line of `text` that `regex` (flags g and m) matches, in order; returns how many.
 * The regex runs over the whole text at once; a match is then checked against its own line, so a pattern that
 * spans line breaks (`a\sb`) only counts where it matches within one line.
 */
export function searchText(text: string, regex: RegExp, found: (line: number, text: string) => void): number {
  let count = 0;
  let lineNumber = 1;
  let counted = 0;
  regex.lastIndex = 0;
  for (;;) {
    const match = regex.exec(text);
    if (match === null) break;
    const at = match.index;
    const lineStart = text.lastIndexOf("\n", at - 1) + 1;
    let lineEnd = text.indexOf("\n", at);
    if (lineEnd < 0) lineEnd = text.length;
    // A match that starts on a line break belongs to the next line (or none).
    if (at === lineEnd && match[0].length > 0) {
      regex.lastIndex = lineEnd + 1;
      continue;
    }
    for (
      let index = text.indexOf("\n", counted);
      index >= 0 && index < lineStart;
      index = text.indexOf("\n", index + 1)
    ) {
      lineNumber += 1;
      counted = index + 1;
    }
    let line = text.slice(lineStart, lineEnd);
    if (line.endsWith("\r")) line = line.slice(0, -1);
    const crosses = at + match[0].length > lineEnd;
    let matches = !crosses;
    if (crosses) {
      const again = new RegExp(regex.source, regex.flags.replace("g", ""));
      matches = again.test(line);
    }
    if (matches) {
      count += 1;
      found(lineNumber, line);
    }
    if (lineEnd >= text.length) break;
    regex.lastIndex = lineEnd + 1;
  }
  return count;
}
