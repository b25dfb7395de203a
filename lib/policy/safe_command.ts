// Which `bash` commands are known to be read-only, so `on-risk` runs them without asking (issue 15 §3, issue 26).
// An allow-list: each program on it has its real option table (safe_commands/), its words are split into options
// and operands the way the program's own parser would, and only options known to be harmless pass; every option
// argument and operand is judged by its kind (paths must stay inside the workspace and not look like secrets).
// Anything unknown, ambiguous or not understood by the shell-words parser asks.

import { createJudgeContext, judgeProgram, LEFT_OFF, READ_ONLY_PROGRAMS } from "./safe_commands/index.ts";
import { parseCommandLine } from "./shell_words.ts";

export type SafetyVerdict = { safe: true } | { safe: false; reason: string };

/**
 * The verdict for one `bash` command line in `workspace`; no path may reach into `protectedRoots` (scv's instance
 * home and configuration files, canonical paths).
 */
export function readOnlyVerdict(
  command: string,
  workspace: string,
  protectedRoots: readonly string[] = [],
): SafetyVerdict {
  const parsed = parseCommandLine(command);
  if (!parsed.ok) return { safe: false, reason: `uses ${parsed.reason}` };
  const context = createJudgeContext(workspace, protectedRoots);
  for (const stage of parsed.pipeline) {
    const [program, ...args] = stage.words.map((word) => word.text);
    const rule = Object.hasOwn(READ_ONLY_PROGRAMS, program!) ? READ_ONLY_PROGRAMS[program!] : undefined;
    if (rule === undefined) {
      const why = Object.hasOwn(LEFT_OFF, program!) ? LEFT_OFF[program!] : "is not on the read-only list";
      return { safe: false, reason: `runs ${program}, which ${why}` };
    }
    const reason = judgeProgram(program!, rule, args, context);
    if (reason !== undefined) return { safe: false, reason };
  }
  return { safe: true };
}

/** The program and, for tools with subcommands, the subcommand: what chat's "always" remembers for `bash`. */
const SUBCOMMAND_PROGRAMS = new Set([
  "git",
  "npm",
  "npx",
  "pnpm",
  "yarn",
  "bun",
  "deno",
  "cargo",
  "go",
  "docker",
  "kubectl",
  "make",
  "pip",
  "pip3",
  "poetry",
  "uv",
  "dotnet",
  "mvn",
  "gradle",
  "bundle",
  "rake",
  "composer",
  "terraform",
  "helm",
  "gh",
  "node",
]);

/**
 * The leading words of a simple command (`npm test`, `git commit`, `ls`), or undefined when the line is not one
 * simple command the parser understands (then only the exact line can be remembered).
 */
export function leadingWords(command: string): string[] | undefined {
  const parsed = parseCommandLine(command);
  if (!parsed.ok || parsed.pipeline.length !== 1) return undefined;
  const words = parsed.pipeline[0]!.words.map((word) => word.text);
  const program = words[0]!;
  if (program.includes("/") || program.includes("=")) return undefined;
  const second = words[1];
  if (SUBCOMMAND_PROGRAMS.has(program) && second !== undefined && !second.startsWith("-") && isPlainWord(second)) {
    return [program, second];
  }
  return [program];
}

function isPlainWord(word: string): boolean {
  for (const char of word) {
    const ok = (char >= "a" && char <= "z") || (char >= "A" && char <= "Z") || (char >= "0" && char <= "9") ||
      "-_:.".includes(char);
    if (!ok) return false;
  }
  return word.length > 0;
}

/** True when `command` is one simple command whose words start with `prefix`. */
export function startsWithWords(command: string, prefix: readonly string[]): boolean {
  const parsed = parseCommandLine(command);
  if (!parsed.ok || parsed.pipeline.length !== 1) return false;
  const words = parsed.pipeline[0]!.words.map((word) => word.text);
  return prefix.every((word, index) => words[index] === word);
}
