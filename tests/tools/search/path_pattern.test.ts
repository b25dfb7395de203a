// The non-backtracking path matcher behind glob patterns and .gitignore rules: the same answers as the RegExp
// translations it replaced (legacy_patterns.ts) on random patterns and paths, and linear work on the patterns that
// made those backtrack for hours.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileGlob, MAX_GLOB_CHARS } from "../../../lib/tools/search/glob_pattern.ts";
import { matchRules, MAX_IGNORE_PATTERN_CHARS, parseGitignore } from "../../../lib/tools/search/gitignore.ts";
import { classRanges } from "../../../lib/tools/search/path_pattern.ts";
import { legacyGlobRegex, legacyIgnoreRule } from "./legacy_patterns.ts";

const GLOB_TOKENS = [
  "a",
  "b",
  ".",
  "-",
  "/",
  "*",
  "**",
  "**/",
  "?",
  "[ab]",
  "[!a]",
  "[^b]",
  "[a-b]",
  "[]a]",
  "[!]",
  "[/]",
  "[-a]",
  "[b-a]",
  "{a,b}",
  "{a,/b,}",
  "{**/a,b}",
  "{",
  "}",
  ",",
  "\\*",
  "\\",
  "é",
];
const PATH_CHARS = ["a", "b", ".", "-", "/", "*", "]", "é", "{", ","];

const pattern = (tokens: string[]) =>
  fc.array(fc.constantFrom(...tokens), { maxLength: 8 }).map((parts) => parts.join(""));
const path = fc.array(fc.constantFrom(...PATH_CHARS), { maxLength: 10 }).map((parts) => parts.join(""));

function legacyGlob(source: string): RegExp | "error" {
  try {
    const compiled = legacyGlobRegex(source);
    return compiled instanceof RegExp ? compiled : "error";
  } catch {
    return "error";
  }
}

describe("glob patterns", () => {
  it("match exactly what the old RegExp translation matched", () => {
    fc.assert(
      fc.property(pattern(GLOB_TOKENS), fc.array(path, { minLength: 1, maxLength: 8 }), (source, paths) => {
        const legacy = legacyGlob(source);
        const compiled = compileGlob(source);
        if (legacy === "error") {
          expect("error" in compiled).toBe(true);
          return;
        }
        if ("error" in compiled) throw new Error(`${source} is refused: ${compiled.error}`);
        for (const candidate of paths) {
          expect([source, candidate, compiled.test(candidate)]).toEqual([source, candidate, legacy.test(candidate)]);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it("keep their documented meaning", () => {
    const glob = (source: string) => {
      const compiled = compileGlob(source);
      if ("error" in compiled) throw new Error(compiled.error);
      return compiled;
    };
    expect(glob("**/*.ts").test("a/b/c.ts")).toBe(true);
    expect(glob("**/*.ts").test("c.ts")).toBe(true);
    expect(glob("*.ts").test("a/c.ts")).toBe(false);
    expect(glob("src/*/index.{js,ts}").test("src/x/index.ts")).toBe(true);
    expect(glob("src/*/index.{js,ts}").test("src/x/y/index.ts")).toBe(false);
    expect(glob("src/**").test("src/x/y/z")).toBe(true);
    expect(glob("[!a]?").test("b/")).toBe(false);
    expect(glob("src/lib/**/*.ts").literalPrefix).toBe("src/lib");
  });

  it("finish in linear time on patterns that made the RegExp backtrack", () => {
    // Each of these took the old translation hours or more (13 s for the second against 40 letters).
    expect(glob("**/**/**/**/**/**/**/**/x", Array.from({ length: 200 }, () => "d").join("/") + "/y")).toBe(false);
    expect(glob("*a*a*a*a*a*a*a*a*b", "a".repeat(4000))).toBe(false);
    expect(glob("{a,aa,aaa}{a,aa,aaa}{a,aa,aaa}{a,aa,aaa}{a,aa,aaa}b", "a".repeat(4000))).toBe(false);
    expect(glob("*a*a*a*a*a*a*a*a*b", "a".repeat(4000) + "b")).toBe(true);
  });

  it("refuses a backwards range and an over-long pattern with a message that says so", () => {
    expect(compileGlob("[z-a]")).toEqual({ error: expect.stringContaining("runs backwards") });
    expect(compileGlob("a".repeat(MAX_GLOB_CHARS + 1))).toEqual({
      error: expect.stringContaining(`longer than ${MAX_GLOB_CHARS} characters`),
    });
  });
});

function glob(source: string, candidate: string): boolean {
  const compiled = compileGlob(source);
  if ("error" in compiled) throw new Error(compiled.error);
  return compiled.test(candidate);
}

const IGNORE_TOKENS = [
  "a",
  "b",
  ".",
  "-",
  "/",
  "*",
  "**",
  "?",
  "[ab]",
  "[!a]",
  "[^b]",
  "[a-b]",
  "[]a]",
  "[[:alpha:]]",
  "[[:punct:]]",
  "[[:nope:]]",
  "[\\]]",
  "[b-a]",
  "[",
  "\\",
  "\\*",
  " ",
  "\\ ",
  "!",
  "#",
  "é",
];

describe("gitignore rules", () => {
  it("match exactly what the old RegExp translation matched", () => {
    fc.assert(
      fc.property(pattern(IGNORE_TOKENS), fc.array(path, { minLength: 1, maxLength: 8 }), (line, paths) => {
        let legacy: ReturnType<typeof legacyIgnoreRule> | "error";
        try {
          legacy = legacyIgnoreRule(line);
        } catch {
          legacy = "error";
        }
        const rules = parseGitignore(line);
        // A backwards range threw out of the old parser (dropping the whole file); now only its line is dropped.
        if (legacy === undefined || legacy === "error") {
          expect(rules).toEqual([]);
          return;
        }
        expect(rules).toHaveLength(1);
        for (const candidate of paths) {
          for (const isDirectory of [false, true]) {
            const old = legacy.directoryOnly && !isDirectory
              ? undefined
              : legacy.regex.test(candidate)
              ? !legacy.negated
              : undefined;
            expect([line, candidate, isDirectory, matchRules(rules, candidate, isDirectory)]).toEqual([
              line,
              candidate,
              isDirectory,
              old,
            ]);
          }
        }
      }),
      { numRuns: 3000 },
    );
  });

  it("finish in linear time on a hostile .gitignore, and skip over-long lines", () => {
    const rules = parseGitignore("*a*a*a*a*a*a*a*a*b\n**/**/**/**/**/**/**/**/x\n");
    expect(matchRules(rules, "a".repeat(4000), false)).toBeUndefined();
    expect(matchRules(rules, Array.from({ length: 500 }, () => "d").join("/"), false)).toBeUndefined();
    expect(matchRules(rules, "d/d/x", false)).toBe(true);
    expect(parseGitignore("a".repeat(MAX_IGNORE_PATTERN_CHARS + 1))).toEqual([]);
  });
});

describe("bracket bodies", () => {
  it("read ranges as JavaScript classes do", () => {
    expect(classRanges("a-c")).toEqual([0x61, 0x63]);
    expect(classRanges("-a")).toEqual([0x2d, 0x2d, 0x61, 0x61]);
    expect(classRanges("a-")).toEqual([0x61, 0x61, 0x2d, 0x2d]);
    expect(classRanges("a-b-c")).toEqual([0x61, 0x62, 0x2d, 0x2d, 0x63, 0x63]);
    expect(classRanges("c-a")).toBeUndefined();
  });
});
