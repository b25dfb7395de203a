// The `grep` tool: a JavaScript regular expression over the workspace's text files, honouring .gitignore, skipping
// .git/, binary files and every file `read` would refuse or ask about (file_guard.ts, judged on the opened
// descriptor); `path:LINE:text`, sorted by path then line, at most `max_results`. The main thread walks, judges and
// reads; the regular expression runs in a worker thread (regex_worker.ts) with a deadline, so that a pattern that
// backtracks without end fails the call instead of freezing the server.

import { closeSync } from "node:fs";
import { lstat } from "node:fs/promises";
import { join } from "node:path";
import { checkUnchanged, type FileVerdict, openForSearch, protectedPathError } from "../file_guard.ts";
import { cancelledOutcome, failure } from "../outcome.ts";
import type { ObjectSchema } from "../schema.ts";
import { validateArguments } from "../schema.ts";
import type { Tool, ToolContext, ToolOutcome } from "../types.ts";
import { canonicalWorkspace, WorkspacePathError } from "../../policy/index.ts";
import {
  admitsEntry,
  checkSearchPath,
  cutLine,
  givenPath,
  leftOutNotice,
  mayShow,
  resolveStart,
  searchAccess,
} from "./common.ts";
import { Batch } from "./file_batch.ts";
import { compileGlob, type GlobMatcher } from "./glob_pattern.ts";
import { type FileMatches, type MatchResult, RegexMatcher } from "./regex_worker.ts";
import { walk, type WalkEntry, yieldToLoop } from "./walk.ts";

type GrepArgs = { pattern: string; path?: string; glob?: string; ignore_case?: boolean; max_results?: number };

export const GREP_DEFAULT_RESULTS = 200;
const MAX_RESULTS = 2000;
const MAX_LINE_CHARS = 400;
/** Files larger than this are not searched (reported in a notice). */
const MAX_FILE_BYTES = 16 * 1024 * 1024;
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
      "Prints `path:LINE:text` sorted by path and line; honours .gitignore and skips .git/, binary files and " +
      "secret-like or hard-linked files (read asks for those). A pattern that runs too long (nested quantifiers) fails.",
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
      const given = givenPath(context.workspace, value.path);
      if ("error" in given) return given;
      const { path } = given;
      const check = checkSearchPath("grep", context.workspace, context.config, path);
      if ("error" in check) return check;
      return {
        risk: check.risk,
        access: searchAccess(path),
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
              prepared: check.verdict,
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
  /** What prepare judged `path` to be (a file named there must still be that file). */
  prepared: FileVerdict;
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

/** The bytes of a batch sent to the worker at once (a larger file goes alone). */
const BATCH_BYTES = 4 * 1024 * 1024;
/** Batches handed to the worker and not yet answered: the next is read while the worker matches. */
const MAX_IN_FLIGHT = 2;

async function runGrep(plan: GrepPlan, context: ToolContext): Promise<ToolOutcome> {
  let start: string;
  try {
    start = await resolveStart("grep", context.workspace, plan.path);
  } catch (error) {
    return failure(error instanceof WorkspacePathError ? error.message : String(error));
  }
  const matcher = new RegexMatcher({
    source: plan.regex.source,
    flags: plan.regex.flags,
    maxLineChars: MAX_LINE_CHARS,
    deadlineMs: context.config.tools.search_timeout_seconds * 1000,
    signal: context.signal,
  });
  try {
    return await search(plan, start, context, matcher);
  } catch (error) {
    return failure(error instanceof WorkspacePathError ? error.message : `grep: ${String(error)}`);
  } finally {
    matcher.close();
  }
}

async function search(plan: GrepPlan, start: string, context: ToolContext, matcher: RegexMatcher) {
  const workspace = canonicalWorkspace(context.workspace);
  const lines: string[] = [];
  let total = 0;
  let leftOut = 0;
  let largeSkipped = 0;
  let batch = new Batch(BATCH_BYTES);
  const inFlight: Array<{ paths: string[]; result: Promise<MatchResult> }> = [];
  let stopped: MatchResult | undefined;

  const collectOldest = async () => {
    const { paths, result } = inFlight.shift()!;
    const answer = await result;
    if (answer.kind !== "matched") {
      stopped ??= answer;
      return;
    }
    answer.files.forEach((file: FileMatches, index) => {
      total += file.count;
      for (const [number, text] of file.lines)
        if (lines.length < plan.max) lines.push(`${paths[index]}:${number}:${text}`);
    });
  };
  const send = async () => {
    if (batch.paths.length === 0) return;
    const sent = batch;
    batch = new Batch(BATCH_BYTES);
    inFlight.push({ paths: sent.paths, result: matcher.match(sent.take(), Math.max(0, plan.max - lines.length)) });
    while (inFlight.length >= MAX_IN_FLIGHT && stopped === undefined) await collectOldest();
  };
  /** Judges, reads and queues one file of the walk (or the one file asked for). */
  const searchFile = async (path: string, single: boolean) => {
    if (plan.glob !== undefined) {
      const name = plan.globHasSlash ? path : path.slice(path.lastIndexOf("/") + 1);
      if (!plan.glob.test(name)) return;
    }
    const opened = openForSearch(context.config, workspace, path);
    if (opened === undefined) return;
    if (opened === "outside") {
      leftOut += 1;
      return;
    }
    try {
      if (single) {
        // The approval covered the file judged in prepare; a secret-like file must still be that very one.
        const identity = `${opened.stats.dev}:${opened.stats.ino}`;
        if (opened.standing === "protected") throw protectedPathError("grep", plan.path);
        checkUnchanged(plan.prepared, { secret: opened.standing === "secret", identity }, "grep", plan.path);
      }
      if (!mayShow(opened.standing, plan.searchSecrets)) {
        leftOut += 1;
        return;
      }
      const { stats } = opened;
      if (!stats.isFile() || stats.size === 0) return;
      if (stats.size > MAX_FILE_BYTES) {
        largeSkipped += 1;
        return;
      }
      if (!batch.fits(stats.size)) {
        await send();
        if (stats.size > BATCH_BYTES) batch = new Batch(stats.size);
      }
      batch.read(opened.fd, stats.size, path, plan.literal);
    } finally {
      closeSync(opened.fd);
    }
  };

  const single = await isFile(workspace, start);
  if (single) {
    await searchFile(start, true);
  } else {
    let last = Date.now();
    const admitted = admitsEntry(context.config, workspace, plan.searchSecrets);
    // Paths a deny rule forbids grep to read are left out too.
    const admit = (entry: WalkEntry) => admitted(entry) && !(context.hides?.("grep", entry.path) ?? false);
    for (const entry of walk(workspace, start, { admit })) {
      if (entry.kind === "file") await searchFile(entry.path, false);
      if (stopped !== undefined) break;
      if (Date.now() - last > YIELD_EVERY_MS) {
        await yieldToLoop();
        if (context.signal.aborted) return cancelledOutcome("grep cancelled");
        last = Date.now();
      }
    }
  }
  if (stopped === undefined) await send();
  while (inFlight.length > 0) await collectOldest();
  if (stopped !== undefined) return stoppedOutcome(stopped, plan, context);

  const notices: string[] = [];
  if (total > lines.length)
    notices.push(
      `… ${total - lines.length} more matching lines not shown (at most ${plan.max}); narrow the pattern, path or glob`,
    );
  notices.push(...leftOutNotice(leftOut, "file", "not searched"));
  if (largeSkipped > 0)
    notices.push(`(${largeSkipped} file${largeSkipped === 1 ? "" : "s"} over ${MAX_FILE_BYTES} bytes not searched)`);
  const body = lines.length === 0 ? "No matches." : lines.join("\n");
  return { success: true, output: [body, ...notices].join("\n"), truncated: total > lines.length };
}

function stoppedOutcome(stopped: MatchResult, plan: GrepPlan, context: ToolContext): ToolOutcome {
  if (stopped.kind === "cancelled") return cancelledOutcome("grep cancelled");
  if (stopped.kind === "deadline") {
    const seconds = context.config.tools.search_timeout_seconds;
    return failure(
      `grep stopped: /${cutLine(plan.regex.source, 200)}/ matched for over ${seconds} s without finishing ` +
        "(tools.search_timeout_seconds); " +
        "it probably backtracks without end (nested quantifiers such as (a+)+ or (a|a)*): simplify the pattern",
      "limit",
    );
  }
  return failure(`grep failed: ${stopped.kind === "failed" ? stopped.message : "unknown"}`);
}

async function isFile(workspace: string, start: string): Promise<boolean> {
  if (start === "") return false;
  try {
    return (await lstat(join(workspace, start))).isFile();
  } catch {
    return false;
  }
}
