// A .gitignore matcher with git's rules: blank lines and `#` comments skipped, `\` escapes, trailing spaces
// dropped unless escaped, `!` re-includes, a trailing `/` matches directories only, a `/` at the start or in the
// middle anchors the pattern to the .gitignore's folder (else it matches a name at any depth), `*` and `?` and
// `[...]` never cross `/`, and `**` does: `**/x`, `x/**`, `a/**/b`. The last matching pattern wins.

export type IgnoreRule = { regex: RegExp; negated: boolean; directoryOnly: boolean };

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
  if (line === "" || line.startsWith("#")) return undefined;
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
  const source = anchored ? `^${body}$` : `^(?:.*/)?${body}$`;
  return { regex: new RegExp(source, "s"), negated, directoryOnly };
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

/** The regular expression source of a gitignore glob, or undefined for an invalid one (git ignores those). */
function translate(pattern: string): string | undefined {
  let out = "";
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
            out += ".*";
            index += 2;
          } else {
            // `**/`: zero or more folders.
            out += "(?:.*/)?";
            index += 3;
          }
          continue;
        }
      }
      out += "[^/]*";
      while (pattern[index] === "*") index += 1;
      continue;
    }
    if (char === "?") {
      out += "[^/]";
      index += 1;
      continue;
    }
    if (char === "[") {
      const cls = translateClass(pattern, index);
      if (cls === undefined) {
        out += "\\[";
        index += 1;
        continue;
      }
      out += cls.source;
      index = cls.end;
      continue;
    }
    if (char === "\\") {
      const next = pattern[index + 1];
      if (next === undefined) return undefined;
      out += escapeRegex(next);
      index += 2;
      continue;
    }
    out += escapeRegex(char);
    index += 1;
  }
  return out;
}

function translateClass(pattern: string, start: number): { source: string; end: number } | undefined {
  let index = start + 1;
  let negate = false;
  if (pattern[index] === "!" || pattern[index] === "^") {
    negate = true;
    index += 1;
  }
  let body = "";
  let first = true;
  while (index < pattern.length) {
    const char = pattern[index]!;
    if (char === "]" && !first) {
      if (body === "") return undefined;
      return { source: `(?!/)[${negate ? "^" : ""}${body}]`, end: index + 1 };
    }
    first = false;
    if (char === "\\" && index + 1 < pattern.length) {
      body += escapeClassChar(pattern[index + 1]!);
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
    body += char === "-" ? "-" : escapeClassChar(char);
    index += 1;
  }
  return undefined;
}

const POSIX_CLASSES: Record<string, string> = {
  alnum: "a-zA-Z0-9",
  alpha: "a-zA-Z",
  digit: "0-9",
  lower: "a-z",
  upper: "A-Z",
  space: " \\t\\n\\r\\f\\v",
  xdigit: "0-9a-fA-F",
  punct: "!-\\/:-@\\[-`{-~",
  blank: " \\t",
};

function escapeRegex(char: string): string {
  return "\\^$.|?*+()[]{}/".includes(char) ? `\\${char}` : char;
}

function escapeClassChar(char: string): string {
  return "\\]^[".includes(char) ? `\\${char}` : char;
}

/**
 * The verdict of one rule list for `path` (relative to the list's folder, `/`-separated): true = ignored,
 * false = re-included, undefined = no rule matched.
 */
export function matchRules(rules: readonly IgnoreRule[], path: string, isDirectory: boolean): boolean | undefined {
  for (let index = rules.length - 1; index >= 0; index -= 1) {
    const rule = rules[index]!;
    if (rule.directoryOnly && !isDirectory) continue;
    if (rule.regex.test(path)) return !rule.negated;
  }
  return undefined;
}
