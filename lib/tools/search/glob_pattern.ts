// Glob patterns for the glob tool and grep's `glob` filter: `*` and `?` stay within one folder, `**` crosses
// folders, `[...]` is a character class, `{a,b}` picks one of its comma-separated parts. Compiled to the
// non-backtracking matcher of path_pattern.ts, so a pattern costs at most linear time per path.

import { classRanges, PathMatcher, type PatternNode } from "./path_pattern.ts";

export type GlobMatcher = {
  test(path: string): boolean; /** The folders before the first wildcard ("" for none). */
  literalPrefix: string;
};

/** Longer patterns are refused: no real glob needs them, and a path's cost grows with the pattern's size. */
export const MAX_GLOB_CHARS = 1024;

export function compileGlob(pattern: string): GlobMatcher | { error: string } {
  if (pattern.length > MAX_GLOB_CHARS) {
    return { error: `invalid glob: longer than ${MAX_GLOB_CHARS} characters; use a shorter pattern` };
  }
  const parsed = parse(pattern, 0, false);
  if ("error" in parsed) return parsed;
  const matcher = new PathMatcher(parsed.nodes);
  const segments = pattern.split("/");
  const literal: string[] = [];
  for (const segment of segments.slice(0, -1)) {
    if (/[*?[{\\]/.test(segment)) break;
    literal.push(segment);
  }
  return {
    test: (path) => matcher.test(path),
    literalPrefix: literal.filter((part) => part !== "" && part !== ".").join("/"),
  };
}

type Parsed = { nodes: PatternNode[]; end: number } | { error: string };

function parse(pattern: string, start: number, inBraces: boolean): Parsed {
  const nodes: PatternNode[] = [];
  let index = start;
  while (index < pattern.length) {
    const char = pattern[index]!;
    if (inBraces && (char === "," || char === "}")) return { nodes, end: index };
    if (char === "*") {
      if (pattern[index + 1] === "*") {
        const atStart = index === 0 || pattern[index - 1] === "/";
        const next = pattern[index + 2];
        if (atStart && next === "/") {
          nodes.push({ kind: "folders" });
          index += 3;
          continue;
        }
        if (atStart && next === undefined) {
          nodes.push({ kind: "any" });
          index += 2;
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
      // The first character after `[` (or `[!`) is part of the set even when it is `]`.
      const close = pattern.indexOf("]", index + 2);
      if (close < 0) return { error: `invalid glob ${JSON.stringify(pattern)}: unclosed [` };
      let body = pattern.slice(index + 1, close);
      const negated = body.startsWith("!") || body.startsWith("^");
      if (negated) body = body.slice(1);
      const ranges = classRanges(body);
      if (ranges === undefined) {
        return { error: `invalid glob ${JSON.stringify(pattern)}: a range in [${body}] runs backwards` };
      }
      nodes.push({ kind: "class", ranges, negated });
      index = close + 1;
      continue;
    }
    if (char === "{") {
      const options: PatternNode[][] = [];
      let cursor = index + 1;
      for (;;) {
        const part = parse(pattern, cursor, true);
        if ("error" in part) return part;
        options.push(part.nodes);
        if (part.end >= pattern.length) return { error: `invalid glob ${JSON.stringify(pattern)}: unclosed {` };
        cursor = part.end + 1;
        if (pattern[part.end] === "}") break;
      }
      nodes.push({ kind: "choice", options });
      index = cursor;
      continue;
    }
    if (char === "\\" && index + 1 < pattern.length) {
      nodes.push({ kind: "literal", code: pattern.charCodeAt(index + 1) });
      index += 2;
      continue;
    }
    nodes.push({ kind: "literal", code: pattern.charCodeAt(index) });
    index += 1;
  }
  return { nodes, end: index };
}
