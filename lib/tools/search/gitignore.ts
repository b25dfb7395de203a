// A .gitignore matcher with git's rules: blank lines and `#` comments skipped, `\` escapes, trailing spaces
// dropped unless escaped, `!` re-includes, a trailing `/` matches directories only, a `/` at the start or in the
// middle anchors the pattern to the .gitignore's folder (else it matches a name at any depth), `*` and `?` and
// `[...]` never cross `/`, and `**` does: `**/x`, `x/**`, `a/**/b`. The last matching pattern wins.

import { classRanges, PathMatcher, type PatternNode } from "./path_pattern.ts";

export type IgnoreRule = { matcher: PathMatcher; negated: boolean; directoryOnly: boolean };

/** Longer patterns are skipped: matching costs grow with a pattern's size, and a .gitignore may be hostile. */
export const MAX_IGNORE_PATTERN_CHARS = 4096;

/** The rules of one .gitignore file (paths are then matched relative to its folder). */
export function parseGitignore(text: string): IgnoreRule[] {
  const rules: IgnoreRule[] = [];
  for (const raw of text.split("\n")) {
    const rule = parseLine(raw.endsWith("\r") ? raw.slice(0, -1) : raw);
    if (rule !== undefined) rules.push(rule);
  }
  return rules;
}

function parseLine(line: string): IgnoreRule | undefined {
  if (line === "" || line.startsWith("#") || line.length > MAX_IGNORE_PATTERN_CHARS) return undefined;
  let pattern = trimTrailingSpaces(line);
  let negated = false;
  if (pattern.startsWith("!")) {
    negated = true;
    pattern = pattern.slice(1);
  } else if (pattern.startsWith("\\!") || pattern.startsWith("\\#")) {
    pattern = pattern.slice(1);
  }
  let directoryOnly = false;
  if (pattern.endsWith("/") && !pattern.endsWith("\\/")) {
    directoryOnly = true;
    pattern = pattern.slice(0, -1);
  }
  if (pattern === "") return undefined;
  const anchored = pattern.slice(0, -1).includes("/") || pattern.startsWith("/");
  if (pattern.startsWith("/")) pattern = pattern.slice(1);
  const body = translate(pattern);
  if (body === undefined) return undefined;
  const nodes: PatternNode[] = anchored ? body : [{ kind: "folders" }, ...body];
  return { matcher: new PathMatcher(nodes), negated, directoryOnly };
}

// Trailing spaces are dropped unless the last one is escaped with a backslash.
function trimTrailingSpaces(line: string): string {
  let end = line.length;
  while (end > 0 && line[end - 1] === " ") {
    if (end >= 2 && line[end - 2] === "\\") break;
    end -= 1;
  }
  return line.slice(0, end);
}

const literal = (text: string, index: number): PatternNode => ({ kind: "literal", code: text.charCodeAt(index) });

/** The nodes of a gitignore glob, or undefined for an invalid one (git ignores those). */
function translate(pattern: string): PatternNode[] | undefined {
  const nodes: PatternNode[] = [];
  let index = 0;
  while (index < pattern.length) {
    const char = pattern[index]!;
    if (char === "*") {
      if (pattern[index + 1] === "*") {
        const atStart = index === 0 || pattern[index - 1] === "/";
        const atEnd = index + 2 === pattern.length || pattern[index + 2] === "/";
        if (atStart && atEnd) {
          if (index + 2 === pattern.length) {
            // `x/**`: everything inside; `**` alone: everything.
            nodes.push({ kind: "any" });
            index += 2;
          } else {
            // `**/`: zero or more folders.
            nodes.push({ kind: "folders" });
            index += 3;
          }
          continue;
        }
      }
      nodes.push({ kind: "star" });
      while (pattern[index] === "*") index += 1;
      continue;
    }
    if (char === "?") {
      nodes.push({ kind: "one" });
      index += 1;
      continue;
    }
    if (char === "[") {
      const cls = translateClass(pattern, index);
      if (cls === "invalid") return undefined;
      if (cls === undefined) {
        nodes.push(literal(pattern, index));
        index += 1;
        continue;
      }
      nodes.push(cls.node);
      index = cls.end;
      continue;
    }
    if (char === "\\") {
      if (index + 1 >= pattern.length) return undefined;
      nodes.push(literal(pattern, index + 1));
      index += 2;
      continue;
    }
    nodes.push(literal(pattern, index));
    index += 1;
  }
  return nodes;
}

/**
 * The bracket expression at `start`: its node and end, undefined when it is not one (the `[` is then literal), or
 * "invalid" for a range that runs backwards.
 */
function translateClass(pattern: string, start: number): { node: PatternNode; end: number } | undefined | "invalid" {
  let index = start + 1;
  let negated = false;
  if (pattern[index] === "!" || pattern[index] === "^") {
    negated = true;
    index += 1;
  }
  // Every character stands for itself here; `-` between two of them makes a range (classRanges).
  let body = "";
  let first = true;
  while (index < pattern.length) {
    const char = pattern[index]!;
    if (char === "]" && !first) {
      if (body === "") return undefined;
      const ranges = classRanges(body);
      if (ranges === undefined) return "invalid";
      return { node: { kind: "class", ranges, negated }, end: index + 1 };
    }
    first = false;
    if (char === "\\" && index + 1 < pattern.length) {
      body += pattern[index + 1]!;
      index += 2;
      continue;
    }
    if (char === "[" && pattern[index + 1] === ":") {
      const close = pattern.indexOf(":]", index + 2);
      if (close < 0) return undefined;
      const name = pattern.slice(index + 2, close);
      const named = POSIX_CLASSES[name];
      if (named === undefined) return undefined;
      body += named;
      index = close + 2;
      continue;
    }
    body += char;
    index += 1;
  }
  return undefined;
}

/** The POSIX classes as class bodies (ranges written `x-y`). */
const POSIX_CLASSES: Record<string, string> = {
  alnum: "a-zA-Z0-9",
  alpha: "a-zA-Z",
  digit: "0-9",
  lower: "a-z",
  upper: "A-Z",
  space: " \t\n\r\f\v",
  xdigit: "0-9a-fA-F",
  punct: "!-/:-@[-`{-~",
  blank: " \t",
};

/**
 * The verdict of one rule list for `path` (relative to the list's folder, `/`-separated): true = ignored,
 * false = re-included, undefined = no rule matched.
 */
export function matchRules(rules: readonly IgnoreRule[], path: string, isDirectory: boolean): boolean | undefined {
  for (let index = rules.length - 1; index >= 0; index -= 1) {
    const rule = rules[index]!;
    if (rule.directoryOnly && !isDirectory) continue;
    if (rule.matcher.test(path)) return !rule.negated;
  }
  return undefined;
}
