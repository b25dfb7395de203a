// Glob patterns for the glob tool and grep's `glob` filter: `*` and `?` stay within one folder, `**` crosses
// folders, `[...]` is a character class, `{a,b}` picks one of its comma-separated parts.

export type GlobMatcher = {
  test(path: string): boolean; /** The folders before the first wildcard ("" for none). */
  literalPrefix: string;
};

export function compileGlob(pattern: string): GlobMatcher | { error: string } {
  const source = translate(pattern, 0, false);
  if ("error" in source) return source;
  const regex = new RegExp(`^${source.text}$`, "s");
  const segments = pattern.split("/");
  const literal: string[] = [];
  for (const segment of segments.slice(0, -1)) {
    if (/[*?[{\\]/.test(segment)) break;
    literal.push(segment);
  }
  return {
    test: (path) => regex.test(path),
    literalPrefix: literal.filter((part) => part !== "" && part !== ".").join("/"),
  };
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
