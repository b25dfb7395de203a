// The glob and .gitignore translations to JavaScript RegExp that scv used before its own matcher (path_pattern.ts),
// kept only as the oracle of its semantics in tests/tools/search/path_pattern.test.ts. These backtrack: never
// run them on hostile input.

/** The old glob as a RegExp (throws SyntaxError where the old code did, e.g. a backwards range). */
export function legacyGlobRegex(pattern: string): RegExp | { error: string } {
  const source = translate(pattern, 0, false);
  if ("error" in source) return source;
  return new RegExp(`^${source.text}$`, "s");
}

type Translated = { text: string; end: number } | { error: string };

function translate(pattern: string, start: number, inBraces: boolean): Translated {
  let text = "";
  let index = start;
  while (index < pattern.length) {
    const char = pattern[index]!;
    if (inBraces && (char === "," || char === "}")) return { text, end: index };
    if (char === "*") {
      if (pattern[index + 1] === "*") {
        const atStart = index === 0 || pattern[index - 1] === "/";
        const next = pattern[index + 2];
        if (atStart && next === "/") {
          text += "(?:[^/]*(?:/[^/]*)*/)?";
          index += 3;
          continue;
        }
        if (atStart && next === undefined) {
          text += ".*";
          index += 2;
          continue;
        }
      }
      text += "[^/]*";
      while (pattern[index] === "*") index += 1;
      continue;
    }
    if (char === "?") {
      text += "[^/]";
      index += 1;
      continue;
    }
    if (char === "[") {
      const close = pattern.indexOf("]", index + 2);
      if (close < 0) return { error: `invalid glob ${JSON.stringify(pattern)}: unclosed [` };
      let body = pattern.slice(index + 1, close);
      const negate = body.startsWith("!") || body.startsWith("^");
      if (negate) body = body.slice(1);
      text += `(?!/)[${negate ? "^" : ""}${body.replace(/[\\\]^[]/g, (c) => `\\${c}`)}]`;
      index = close + 1;
      continue;
    }
    if (char === "{") {
      const options: string[] = [];
      let cursor = index + 1;
      for (;;) {
        const part = translate(pattern, cursor, true);
        if ("error" in part) return part;
        options.push(part.text);
        if (part.end >= pattern.length) return { error: `invalid glob ${JSON.stringify(pattern)}: unclosed {` };
        cursor = part.end + 1;
        if (pattern[part.end] === "}") break;
      }
      text += `(?:${options.join("|")})`;
      index = cursor;
      continue;
    }
    if (char === "\\" && index + 1 < pattern.length) {
      text += escape(pattern[index + 1]!);
      index += 2;
      continue;
    }
    text += escape(char);
    index += 1;
  }
  if (inBraces) return { text, end: index };
  return { text, end: index };
}

function escape(char: string): string {
  return "\\^$.|?*+()[]{}/".includes(char) ? `\\${char}` : char;
}

/** The old gitignore rule as a RegExp, or undefined where the old code dropped the line. */
export function legacyIgnoreRule(
  line: string,
): { regex: RegExp; negated: boolean; directoryOnly: boolean } | undefined {
  return parseLine(line);
}

type IgnoreRule = { regex: RegExp; negated: boolean; directoryOnly: boolean };

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
  const body = translateIgnore(pattern);
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
function translateIgnore(pattern: string): string | undefined {
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
