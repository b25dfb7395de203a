// Judging one program's words against its rule: every option must be on its table and harmless, every option
// argument is judged by its kind, and the operands by the program's own rule (paths unless it says otherwise).
// A judgement is the reason to ask, or undefined when the words are read-only.

import { statSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";
import { isSecretLikePath } from "../secret_paths.ts";
import { canonicalWorkspace, isInside, probePath } from "../workspace_path.ts";
import { optionName, type OptionTable, SEARCH_HINT, type ValueKind } from "./option_table.ts";
import { parseArguments, type ParsedOption } from "./parse_options.ts";

/** The reason a command is not read-only, or undefined when it is. */
export type Judgement = string | undefined;

export type JudgeContext = {
  /** undefined when `word`, read as a path, stays inside the workspace and does not look like a secret. */
  checkPath(word: string): Judgement;
  /** What `word` names as a path from the workspace, symbolic links followed. */
  kindOf(word: string): "missing" | "file" | "directory" | "other";
};

export type TableRule = {
  kind: "table";
  table: OptionTable;
  /** Why particular values of an option ask (a phrase after "which"), keyed by its first long name (or `-x`). */
  values?: Readonly<Record<string, (value: string) => Judgement>>;
  /** Judges the operands; without it every operand is a path. */
  operands?(operands: readonly string[], options: readonly ParsedOption[], context: JudgeContext): Judgement;
};

/** For programs whose syntax is not getopt's (find's expressions, git's subcommands, the echo builtin). */
export type CustomRule = { kind: "custom"; judge(args: readonly string[], context: JudgeContext): Judgement };

export type ProgramRule = TableRule | CustomRule;

export function judgeProgram(
  program: string,
  rule: ProgramRule,
  args: readonly string[],
  context: JudgeContext,
): Judgement {
  return rule.kind === "custom" ? rule.judge(args, context) : judgeWithTable(program, rule, args, context);
}

export function judgeWithTable(
  program: string,
  rule: TableRule,
  args: readonly string[],
  context: JudgeContext,
): Judgement {
  const outcome = parseArguments(program, rule.table, args);
  if (!outcome.ok) return outcome.reason;
  const { options, operands, lateOptionWords } = outcome.parsed;
  for (const option of options) {
    if (option.spec.asks !== undefined) return `uses ${program} ${option.spelled}, which ${option.spec.asks}`;
    if (option.value === undefined) continue;
    const shown = `${program} ${option.spelled} ${option.value}`;
    const valueReason = rule.values?.[optionName(option.spec)]?.(option.value);
    if (valueReason !== undefined) return `uses ${shown}, which ${valueReason}`;
    const verdict = judgeValue(option.spec.value, option.value, context);
    if (verdict !== undefined) return `uses ${shown}: ${verdict}`;
  }
  for (const word of lateOptionWords) {
    const verdict = context.checkPath(word);
    if (verdict !== undefined) return verdict;
  }
  return rule.operands === undefined ? judgePaths(operands, context) : rule.operands(operands, options, context);
}

export function judgePaths(words: readonly string[], context: JudgeContext): Judgement {
  for (const word of words) {
    const verdict = context.checkPath(word);
    if (verdict !== undefined) return verdict;
  }
  return undefined;
}

export function judgeValue(kind: ValueKind, value: string, context: JudgeContext): Judgement {
  switch (kind) {
    case "path":
      return context.checkPath(value);
    case "number":
      return isNumberLike(value) ? undefined : `${value} is not a number`;
    case "revision":
      return judgeRevision(value);
    default:
      return undefined;
  }
}

/** Counts and sizes as the listed programs take them: `5`, `-5`, `+5`, `1.5`, `10K`, `2MiB`. */
export function isNumberLike(value: string): boolean {
  return /^[+-]?[0-9][0-9.]*[A-Za-z]{0,3}$/.test(value);
}

/**
 * `HEAD:.env`, `:.env`, `:0:.env` and ranges holding them name a file's staged or committed content, so any git
 * operand with a `:` asks (pathspec magic such as `:(exclude)` too: rare, and not worth telling apart).
 */
export function judgeRevision(word: string): Judgement {
  if (!word.includes(":")) return undefined;
  return `names ${word}, a git object by path (\`:\`), which prints staged or committed files such as secrets; ` +
    `${SEARCH_HINT}`;
}

/**
 * `protectedRoots`: folders and files no read-only command may name (scv's instance home and configuration files),
 * canonical paths.
 */
export function createJudgeContext(given: string, protectedRoots: readonly string[] = []): JudgeContext {
  const workspace = canonicalWorkspace(given);
  return {
    checkPath: (word) => checkPath(word, workspace, protectedRoots),
    kindOf(word) {
      try {
        const stats = statSync(isAbsolute(word) ? word : resolve(workspace, word));
        return stats.isFile() ? "file" : stats.isDirectory() ? "directory" : "other";
      } catch {
        return "missing";
      }
    },
  };
}

function checkPath(word: string, workspace: string, protectedRoots: readonly string[]): Judgement {
  if (word === "" || word === "-") return undefined;
  if (word.includes("\0")) return "has a NUL byte";
  const absolute = isAbsolute(word) ? resolve(word) : resolve(workspace, word);
  if (!isInside(workspace, absolute)) return `reaches ${word}, outside the workspace`;
  const inside = relative(workspace, absolute);
  const probe = probePath(workspace, inside === "" ? "." : inside);
  if (probe.escaped) return `reaches ${word}, which resolves outside the workspace`;
  if (isSecretLikePath(inside) || isSecretLikePath(probe.resolvedRelative))
    return `reads ${word}, which looks like a secret`;
  const real = resolve(workspace, probe.resolvedRelative);
  if (protectedRoots.some((root) => isInside(root, real) || isInside(root, absolute)))
    return `reaches ${word}, which is scv's own (the instance home or a configuration file)`;
  return hardLinked(absolute)
    ? `reads ${word}, a file with several hard links (it may be a secret by another name)`
    : undefined;
}

/** The `read` tool's rule (lib/tools/file_guard.ts): a regular file with more than one name may be any of them. */
function hardLinked(path: string): boolean {
  try {
    const stats = statSync(path);
    return stats.isFile() && stats.nlink > 1;
  } catch {
    return false;
  }
}

/** For programs that take no operands (uname, whoami, pwd). */
export function noOperands(program: string) {
  return (operands: readonly string[]): Judgement =>
    operands.length === 0 ? undefined : `gives ${program} an operand it does not take`;
}
