// The .gitignore matcher and the walk, checked against git itself: the files the walk yields must be exactly the
// ones `git ls-files --others --exclude-standard` reports for the same tree (negation, anchoring, folder-only
// patterns, `**`, classes, escapes, nested files overriding their parents).
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { matchRules, parseGitignore } from "../../lib/tools/search/gitignore.ts";
import { walk } from "../../lib/tools/search/walk.ts";
import { makeSandbox, type Sandbox } from "./helpers.ts";

const HAS_GIT = spawnSync("git", ["--version"]).status === 0;

let box: Sandbox;
beforeEach(() => {
  box = makeSandbox();
});
afterEach(() => box.cleanup());

function put(path: string, content = "x\n") {
  const full = join(box.workspace, path);
  mkdirSync(dirname(full), { recursive: true });
  writeFileSync(full, content);
}

describe("gitignore rules", () => {
  it("matches names at any depth unless anchored, folders only with a trailing slash, last rule winning", () => {
    const rules = parseGitignore(
      "*.log\n!keep.log\n/root-only.txt\nbuild/\ndocs/**/draft.md\n\\#hash\nspace\\ \n# comment\n",
    );
    expect(matchRules(rules, "a/b/c.log", false)).toBe(true);
    expect(matchRules(rules, "a/keep.log", false)).toBe(false);
    expect(matchRules(rules, "root-only.txt", false)).toBe(true);
    expect(matchRules(rules, "sub/root-only.txt", false)).toBeUndefined();
    expect(matchRules(rules, "x/build", true)).toBe(true);
    expect(matchRules(rules, "x/build", false)).toBeUndefined();
    expect(matchRules(rules, "docs/draft.md", false)).toBe(true);
    expect(matchRules(rules, "docs/a/b/draft.md", false)).toBe(true);
    expect(matchRules(rules, "other/docs/draft.md", false)).toBeUndefined();
    expect(matchRules(rules, "#hash", false)).toBe(true);
    expect(matchRules(rules, "space ", false)).toBe(true);
  });
});

describe.skipIf(!HAS_GIT)("the walk agrees with git", () => {
  it("yields exactly the files git does not ignore", () => {
    put(".gitignore", "*.log\n!important.log\n/top.txt\nbuild/\nlib/**/gen-*.js\n[abc].tmp\n**/cache\n*.o\n!/keep.o\n");
    const files = [
      "a.log",
      "important.log",
      "sub/b.log",
      "sub/important.log",
      "top.txt",
      "sub/top.txt",
      "build/x.js",
      "sub/build/y.js",
      "lib/gen-a.js",
      "lib/deep/er/gen-b.js",
      "lib/ok.js",
      "a.tmp",
      "d.tmp",
      "ab.tmp",
      "x/cache/c.txt",
      "cache",
      "m.o",
      "keep.o",
      "sub/keep.o",
      "nested/.gitignore",
      "nested/n.txt",
      "nested/skip.md",
      "nested/deeper/skip.md",
      "nested/deeper/n.log",
      "nested/deeper/.gitignore",
      "nested/deeper/again.md",
      "weird name.txt",
      "dir.with.dots/file",
    ];
    for (const file of files) if (!file.endsWith(".gitignore")) put(file);
    put("nested/.gitignore", "*.md\n!again.md\n");
    put("nested/deeper/.gitignore", "!*.log\n");
    execFileSync("git", ["init", "-q"], { cwd: box.workspace });
    const expected = execFileSync("git", ["ls-files", "--others", "--exclude-standard", "-z"], {
      cwd: box.workspace,
      encoding: "utf8",
    })
      .split("\0")
      .filter((line) => line !== "")
      .sort();
    const actual = [...walk(box.workspace, "")].filter((entry) => entry.kind === "file").map((entry) => entry.path);
    expect(actual).toEqual(expected);
    // The walk's own order is plain string order.
    expect(actual).toEqual([...actual].sort());
    // An ignored folder asked for by name is walked, with the rules of the levels above still applied inside.
    const inBuild = [...walk(box.workspace, "build")].map((entry) => entry.path);
    expect(inBuild).toEqual(["build/x.js"]);
    const inNested = [...walk(box.workspace, "nested/deeper")].map((entry) => entry.path);
    expect(inNested).toEqual(["nested/deeper/.gitignore", "nested/deeper/again.md", "nested/deeper/n.log"]);
  });
});

describe("ignore files a workspace may hold against scv", () => {
  it("does not block on a .gitignore that is a FIFO, nor follow one that is a symlink", () => {
    put("a.txt");
    put("sub/b.txt");
    execFileSync("mkfifo", [join(box.workspace, ".gitignore")]);
    writeFileSync(join(box.outside, "rules"), "*.txt\n");
    symlinkSync(join(box.outside, "rules"), join(box.workspace, "sub", ".gitignore"));
    const paths = [...walk(box.workspace, "")].map((entry) => entry.path);
    expect(paths).toEqual([".gitignore", "a.txt", "sub", "sub/.gitignore", "sub/b.txt"]);
  });

  it("leaves out what the caller does not admit, and never enters such a folder", () => {
    put("keep/a.txt");
    put("secret/b.txt");
    const paths = [...walk(box.workspace, "", { admit: (entry) => !entry.path.startsWith("secret") })].map((entry) =>
      entry.path
    );
    expect(paths).toEqual(["keep", "keep/a.txt"]);
  });
});
