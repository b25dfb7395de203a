// A small, strict parser for the part of Bash syntax a read-only command can use: words (with '…', "…" and \
// quoting), pipelines and the few redirections that do not touch files. Anything it does not fully understand —
// expansions, substitutions, globs, comments, control operators, other redirections — is reported as unsupported,
// so a caller that only trusts what parsed can never be fooled by syntax it did not see.

/** One word after quote removal; `quoted` when any part of it was quoted (so it is never a glob or `~`). */
export type ShellWord = { text: string; quoted: boolean };

/** A simple command: its words and whether it merged stderr into stdout or discarded a stream (harmless). */
export type SimpleCommand = { words: ShellWord[] };

export type ParsedCommandLine = { ok: true; pipeline: SimpleCommand[] } | { ok: false; reason: string };

const SPACE = new Set([" ", "\t"]);
/** Characters that end an unquoted word and start an operator. */
const OPERATOR_START = new Set(["|", "&", ";", "<", ">", "(", ")", "\n", "\r"]);
/** Unquoted characters whose meaning (expansion, globbing, history, grouping) this parser does not model. */
const UNSUPPORTED_UNQUOTED = new Map([
  ["$", "a `$` expansion"],
  ["`", "a backtick substitution"],
  ["*", "a glob"],
  ["?", "a glob"],
  ["[", "a glob"],
  ["{", "a brace expansion"],
  ["}", "a brace expansion"],
  ["!", "history expansion or negation"],
]);
/** Redirections that only join or discard streams: they can neither read nor write a file of the workspace. */
const HARMLESS_REDIRECTIONS = new Set(["2>&1", ">/dev/null", "2>/dev/null", "&>/dev/null"]);

/**
 * Parses `line` into a pipeline of simple commands, or says why it will not. Only `|` joins commands; `;`, `&&`,
 * `||`, `&`, subshells, assignments, expansions and file redirections are all refused.
 */
export function parseCommandLine(line: string): ParsedCommandLine {
  const pipeline: SimpleCommand[] = [];
  let words: ShellWord[] = [];
  let index = 0;
  const fail = (reason: string): ParsedCommandLine => ({ ok: false, reason });
  while (index < line.length) {
    const char = line[index]!;
    if (SPACE.has(char)) {
      index += 1;
      continue;
    }
    const redirection = readRedirection(line, index);
    if (redirection !== undefined) {
      if (!HARMLESS_REDIRECTIONS.has(redirection.text)) return fail("a redirection");
      index = redirection.end;
      continue;
    }
    if (char === "|") {
      if (line[index + 1] === "|") return fail("`||`");
      if (line[index + 1] === "&") return fail("`|&`");
      if (words.length === 0) return fail("an empty pipeline stage");
      pipeline.push({ words });
      words = [];
      index += 1;
      continue;
    }
    if (OPERATOR_START.has(char)) return fail(char === "\n" || char === "\r" ? "several lines" : `\`${char}\``);
    if (char === "#") return fail("a comment");
    const word = readWord(line, index);
    if (!word.ok) return fail(word.reason);
    if (words.length === 0 && isAssignment(line.slice(index, word.end))) return fail("a variable assignment");
    words.push(word.word);
    index = word.end;
  }
  if (words.length === 0) return fail(pipeline.length === 0 ? "an empty command" : "an empty pipeline stage");
  pipeline.push({ words });
  return { ok: true, pipeline };
}

type WordResult = { ok: true; word: ShellWord; end: number } | { ok: false; reason: string };

function readWord(line: string, start: number): WordResult {
  let text = "";
  let quoted = false;
  let index = start;
  while (index < line.length) {
    const char = line[index]!;
    if (SPACE.has(char) || OPERATOR_START.has(char)) break;
    if (char === "\\") {
      const next = line[index + 1];
      if (next === undefined) return { ok: false, reason: "a trailing backslash" };
      if (next === "\n") return { ok: false, reason: "a line continuation" };
      text += next;
      quoted = true;
      index += 2;
      continue;
    }
    if (char === "'") {
      const close = line.indexOf("'", index + 1);
      if (close < 0) return { ok: false, reason: "an unterminated single quote" };
      text += line.slice(index + 1, close);
      quoted = true;
      index = close + 1;
      continue;
    }
    if (char === '"') {
      const inner = readDoubleQuoted(line, index + 1);
      if (!inner.ok) return inner;
      text += inner.word.text;
      quoted = true;
      index = inner.end;
      continue;
    }
    if (char === "~" && index === start) return { ok: false, reason: "a `~` expansion" };
    const unsupported = UNSUPPORTED_UNQUOTED.get(char);
    if (unsupported !== undefined) return { ok: false, reason: unsupported };
    text += char;
    index += 1;
  }
  return { ok: true, word: { text, quoted }, end: index };
}

// Inside "…" only \" \\ \$ \` and \newline are escapes; `$` and backticks still expand, so they are refused.
function readDoubleQuoted(line: string, start: number): WordResult {
  let text = "";
  let index = start;
  while (index < line.length) {
    const char = line[index]!;
    if (char === '"') return { ok: true, word: { text, quoted: true }, end: index + 1 };
    if (char === "$") return { ok: false, reason: "a `$` expansion" };
    if (char === "`") return { ok: false, reason: "a backtick substitution" };
    if (char === "!") return { ok: false, reason: "history expansion" };
    if (char === "\\") {
      const next = line[index + 1];
      if (next === '"' || next === "\\" || next === "$" || next === "`") {
        text += next;
        index += 2;
        continue;
      }
      if (next === "\n") return { ok: false, reason: "a line continuation" };
    }
    text += char;
    index += 1;
  }
  return { ok: false, reason: "an unterminated double quote" };
}

/** A redirection operator at `start` (with an optional fd number and its target word), or undefined. */
function readRedirection(line: string, start: number): { text: string; end: number } | undefined {
  let index = start;
  while (index < line.length && line[index]! >= "0" && line[index]! <= "9") index += 1;
  const hasFd = index > start;
  const char = line[index];
  const ampersand = !hasFd && char === "&" && line[index + 1] === ">";
  if (!ampersand && char !== ">" && char !== "<") return undefined;
  // Any redirection at all: read the operator and an unquoted target so the caller can judge the whole thing.
  let end = ampersand ? index + 2 : index + 1;
  while (end < line.length && (line[end] === ">" || line[end] === "<" || line[end] === "&" || line[end] === "|"))
    end += 1;
  while (end < line.length && SPACE.has(line[end]!)) end += 1;
  let target = end;
  while (target < line.length && !SPACE.has(line[target]!) && !OPERATOR_START.has(line[target]!)) target += 1;
  const operator = [...line.slice(start, end)].filter((part) => !SPACE.has(part)).join("");
  return { text: operator + line.slice(end, target), end: target };
}

/** `NAME=…` as the first word of a command (a temporary environment variable). */
function isAssignment(raw: string): boolean {
  const equals = raw.indexOf("=");
  if (equals <= 0) return false;
  const name = raw.slice(0, equals);
  for (let index = 0; index < name.length; index += 1) {
    const char = name[index]!;
    const letter = (char >= "a" && char <= "z") || (char >= "A" && char <= "Z") || char === "_";
    const digit = char >= "0" && char <= "9";
    if (!letter && !(digit && index > 0)) return false;
  }
  return true;
}
