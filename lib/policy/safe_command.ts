// Which `bash` commands are known to be read-only, so `on-risk` runs them without asking (issue 15 §3). The list is
// deliberately short and each program's dangerous options are refused; every other word is treated as a path that
// must stay inside the workspace and not look like a secret. Anything the shell-words parser does not understand
// is not safe.

import { isAbsolute, relative, resolve } from "node:path";
import { isSecretLikePath } from "./secret_paths.ts";
import { parseCommandLine, type ShellWord } from "./shell_words.ts";
import { canonicalWorkspace, isInside, probePath } from "./workspace_path.ts";

export type SafetyVerdict = { safe: true } | { safe: false; reason: string };

type ProgramRule = {
  /** Options refused outright (exact, or as a prefix when they end with `=` or a long option takes `=value`). */
  refuse?: readonly string[];
  /** Short-option letters refused even when bundled (`-rf`). */
  refuseLetters?: string;
  /** Options that must be present (sed needs -n). */
  require?: readonly string[];
  /** The most non-option words allowed (uniq's second file is its output). */
  maxOperands?: number;
  /** Operand words that are not paths (a sed script), checked by this instead. */
  scriptOperand?: (word: string) => boolean;
};

const PLAIN: ProgramRule = {};

const PROGRAMS: Record<string, ProgramRule> = {
  ls: PLAIN,
  cat: PLAIN,
  head: PLAIN,
  tail: PLAIN,
  wc: PLAIN,
  grep: PLAIN,
  rg: { refuse: ["--pre", "--pre-glob", "--search-zip", "-z"] },
  find: { refuse: ["-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"] },
  pwd: PLAIN,
  echo: PLAIN,
  which: PLAIN,
  file: { refuse: ["-C", "--compile"] },
  stat: PLAIN,
  tree: { refuse: ["-o", "-R"], refuseLetters: "oR" },
  du: PLAIN,
  df: PLAIN,
  uname: PLAIN,
  date: { refuse: ["-s", "--set"], refuseLetters: "s" },
  whoami: PLAIN,
  sort: { refuse: ["-o", "--output", "--compress-program"], refuseLetters: "o" },
  uniq: { maxOperands: 1 },
  cut: PLAIN,
  nl: PLAIN,
  sed: {
    require: ["-n"],
    refuse: ["-i", "--in-place", "-e", "--expression", "-f", "--file"],
    refuseLetters: "i",
    scriptOperand: isPrintOnlySedScript,
  },
};

const GIT_SUBCOMMANDS: Record<string, ProgramRule> = {
  status: PLAIN,
  log: { refuse: ["--output", "--ext-diff"] },
  diff: { refuse: ["--output", "--ext-diff"] },
  show: { refuse: ["--output", "--ext-diff"] },
  "rev-parse": PLAIN,
  "ls-files": PLAIN,
  blame: PLAIN,
  grep: { refuse: ["-O", "--open-files-in-pager", "--ext-grep"], refuseLetters: "O" },
  branch: {
    refuse: [
      "-d",
      "-D",
      "-m",
      "-M",
      "-c",
      "-C",
      "-f",
      "-u",
      "--delete",
      "--move",
      "--copy",
      "--force",
      "--set-upstream-to",
      "--unset-upstream",
      "--edit-description",
      "--track",
      "--no-track",
    ],
    refuseLetters: "dDmMcCfu",
    maxOperands: 0,
  },
};

/** The verdict for one `bash` command line in `workspace`. */
export function readOnlyVerdict(command: string, workspace: string): SafetyVerdict {
  const parsed = parseCommandLine(command);
  if (!parsed.ok) return { safe: false, reason: `uses ${parsed.reason}` };
  for (const stage of parsed.pipeline) {
    const verdict = commandVerdict(stage.words, workspace);
    if (!verdict.safe) return verdict;
  }
  return { safe: true };
}

function commandVerdict(words: ShellWord[], workspace: string): SafetyVerdict {
  const program = words[0]!.text;
  let rule = Object.hasOwn(PROGRAMS, program) ? PROGRAMS[program] : undefined;
  let rest = words.slice(1);
  if (program === "git") {
    const sub = rest[0]?.text;
    // Options before the subcommand (-C, -c, --git-dir, --exec-path) change what git runs or where.
    if (sub === undefined || !Object.hasOwn(GIT_SUBCOMMANDS, sub))
      return { safe: false, reason: `runs git ${sub ?? ""}`.trim() };
    rule = GIT_SUBCOMMANDS[sub]!;
    rest = rest.slice(1);
    // `git branch -l <pattern>` lists; without --list, an operand creates a branch.
    if (sub === "branch" && rest.some((word) => word.text === "--list" || word.text === "-l"))
      rule = { ...rule, maxOperands: Infinity };
  }
  if (rule === undefined) return { safe: false, reason: `runs ${program}, which is not on the read-only list` };
  const options: string[] = [];
  const operands: string[] = [];
  let afterDashes = false;
  for (const word of rest) {
    if (!afterDashes && word.text === "--") {
      afterDashes = true;
      continue;
    }
    if (!afterDashes && word.text.startsWith("-") && word.text !== "-") options.push(word.text);
    else operands.push(word.text);
  }
  for (const option of options) {
    const refused = refusedOption(option, rule);
    if (refused !== undefined) return { safe: false, reason: `uses ${program} ${refused}` };
    // `--file=PATH` style values are paths too, and so is whatever follows a short option's letter (`-f/etc/x`
    // gives grep the pattern file /etc/x): checking the tail of every bundle as a path is conservative.
    const equals = option.indexOf("=");
    const value = equals > 0
      ? option.slice(equals + 1)
      : !option.startsWith("--") && option.length > 2
      ? option.slice(2)
      : undefined;
    if (value !== undefined) {
      const verdict = checkPath(value, workspace);
      if (verdict !== undefined) return verdict;
    }
  }
  for (const required of rule.require ?? []) {
    if (
      !options.includes(required) && !options.some((option) => isBundle(option) && option.includes(required.slice(1)))
    ) {
      return { safe: false, reason: `runs ${program} without ${required}` };
    }
  }
  if (operands.length > (rule.maxOperands ?? Infinity))
    return { safe: false, reason: `gives ${program} too many operands` };
  let remaining = operands;
  if (rule.scriptOperand !== undefined) {
    const script = operands[0];
    if (script === undefined || !rule.scriptOperand(script))
      return { safe: false, reason: `runs a ${program} script that is not print-only` };
    remaining = operands.slice(1);
  }
  for (const operand of remaining) {
    const verdict = checkPath(operand, workspace);
    if (verdict !== undefined) return verdict;
  }
  return { safe: true };
}

function isBundle(option: string): boolean {
  return option.startsWith("-") && !option.startsWith("--") && option.length > 2;
}

function refusedOption(option: string, rule: ProgramRule): string | undefined {
  const name = option.includes("=") ? option.slice(0, option.indexOf("=")) : option;
  for (const refused of rule.refuse ?? []) {
    if (name === refused) return refused;
    // An abbreviated long option (`--outp`) is accepted by getopt_long: refuse every prefix of a refused one.
    if (refused.startsWith("--") && name.startsWith("--") && name.length > 3 && refused.startsWith(name))
      return refused;
    // A short option with its value attached (`-ofile`, `-Ovim`).
    if (refused.length === 2 && refused[0] === "-" && refused[1] !== "-" && name.startsWith(refused)) return refused;
  }
  if (isBundle(option) && rule.refuseLetters !== undefined) {
    for (const letter of option.slice(1)) if (rule.refuseLetters.includes(letter)) return `-${letter}`;
  }
  return undefined;
}

/** undefined when `word`, as a path, resolves inside the workspace and does not look like a secret. */
function checkPath(word: string, given: string): SafetyVerdict | undefined {
  if (word === "" || word === "-") return undefined;
  const workspace = canonicalWorkspace(given);
  if (word.includes("\0")) return { safe: false, reason: "has a NUL byte" };
  const absolute = isAbsolute(word) ? resolve(word) : resolve(workspace, word);
  if (!isInside(workspace, absolute)) return { safe: false, reason: `reaches ${word}, outside the workspace` };
  const inside = relative(workspace, absolute);
  const probe = probePath(workspace, inside === "" ? "." : inside);
  if (probe.escaped) return { safe: false, reason: `reaches ${word}, which resolves outside the workspace` };
  if (isSecretLikePath(inside) || isSecretLikePath(probe.resolvedRelative))
    return { safe: false, reason: `reads ${word}, which looks like a secret` };
  return undefined;
}

/** `sed -n` scripts that only print: line numbers, `$`, ranges, `p`, `=`, `;` and spaces (no w, e, r or s). */
function isPrintOnlySedScript(script: string): boolean {
  if (script.length === 0) return false;
  for (const char of script) {
    const digit = char >= "0" && char <= "9";
    if (!digit && !",$p=; ~+".includes(char)) return false;
  }
  return script.includes("p") || script.includes("=");
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
