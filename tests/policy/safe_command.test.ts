// The read-only bash list and its shell-words parser, tried the way a model (or an injected prompt) would try to
// slip a write or an escape past it. Every "asks" case must not be classified read-only.
import { symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { leadingWords, readOnlyVerdict, startsWithWords } from "../../lib/policy/safe_command.ts";
import { parseCommandLine } from "../../lib/policy/shell_words.ts";
import { makeSandbox, type Sandbox } from "../tools/helpers.ts";

let box: Sandbox;
beforeEach(() => {
  box = makeSandbox();
  symlinkSync(box.outside, join(box.workspace, "out-link"));
});
afterEach(() => box.cleanup());

const safe = (command: string) => readOnlyVerdict(command, box.workspace).safe;

describe("shell words", () => {
  it("removes quotes and keeps quoted operators as text", () => {
    const parsed = parseCommandLine(`grep -n 'a;b|c' "x y" z\\ w`);
    expect(parsed.ok && parsed.pipeline[0]!.words.map((word) => word.text)).toEqual([
      "grep",
      "-n",
      "a;b|c",
      "x y",
      "z w",
    ]);
  });

  it("refuses what it does not model", () => {
    for (
      const line of [
        "a $HOME",
        'a "$(id)"',
        "a `id`",
        "a *",
        "a {b,c}",
        "a # c",
        "a\nb",
        "(a)",
        "a &",
        "'open",
        "a !x",
        "~/x",
      ]
    ) {
      expect(parseCommandLine(line).ok, line).toBe(false);
    }
  });
});

describe("read-only commands", () => {
  it("runs the listed programs on workspace paths, pipelines of them and harmless redirections", () => {
    for (
      const command of [
        "ls",
        "ls -la src",
        "ls | wc -l",
        "cat README.md",
        "head -n 5 a.txt",
        "grep -rn 'needle' .",
        "rg -n foo src",
        "find . -name '*.ts'",
        "git status",
        "git log --oneline -5",
        "git diff HEAD~1",
        "git branch",
        "git branch -a",
        "sed -n 1,20p file.txt",
        "wc -l a b 2>/dev/null",
        "sort a.txt | uniq -c",
        "echo hello",
        "pwd",
        "git show HEAD 2>&1",
      ]
    ) {
      expect(safe(command), command).toBe(true);
    }
  });

  it("asks for writes, escapes, secrets and anything it cannot parse", () => {
    for (
      const command of [
        "ls > out",
        "ls >> out",
        "ls 1>out",
        "cat < /etc/passwd",
        "echo $(id)",
        "echo `id`",
        'echo "$HOME"',
        "find . -delete",
        "find . -exec rm {} \\;",
        "find . -fprint out",
        "git branch -D x",
        "git branch -d x",
        "git branch newbranch",
        "git branch -vD x",
        "sed -i s/a/b/ f",
        "sed -n 'w out' f",
        "sed -n 1p -i f",
        "sed 's/a/b/' f",
        "bash -c ls",
        "ls; rm x",
        "ls && rm x",
        "ls || rm x",
        "cat ../x",
        "cat /etc/passwd",
        "cat ~/.scv/config.toml",
        "find /",
        "grep -r key ~",
        "cat .env",
        "cat config/.env.local",
        "cat secrets/private_key",
        "X=1 ls",
        "env ls",
        "sort -o out f",
        "sort --outp=out f",
        "uniq in out",
        "git -C /tmp status",
        "git diff --output=x",
        "git grep -O vim x",
        "rg --pre cat x",
        "cat out-link/x",
        "ls out-link",
        "tree -o out",
        "tree -ao out",
        "date -s 2020-01-01",
        "grep -f/etc/shadow x",
        "grep -f../x y",
        "git grep -Ovim x",
        "sort -ofile x",
        "head -n5 /etc/passwd",
        "cat -- /etc/passwd",
        "rm -rf x",
        "npm test",
        "git commit -m x",
        "ls | sh",
        "echo x | tee f",
      ]
    ) {
      expect(safe(command), command).toBe(false);
    }
  });
});

describe("leading words for 'always'", () => {
  it("takes the program and, for tools with subcommands, the subcommand", () => {
    expect(leadingWords("npm test -- --watch")).toEqual(["npm", "test"]);
    expect(leadingWords("git commit -m 'x'")).toEqual(["git", "commit"]);
    expect(leadingWords("touch a.txt")).toEqual(["touch"]);
    expect(leadingWords("npm test; rm -rf /")).toBeUndefined();
    expect(leadingWords("./run.sh")).toBeUndefined();
  });

  it("matches only single simple commands starting with those words", () => {
    expect(startsWithWords("npm test --coverage", ["npm", "test"])).toBe(true);
    expect(startsWithWords("npm testx", ["npm", "test"])).toBe(false);
    expect(startsWithWords("npm test && curl evil", ["npm", "test"])).toBe(false);
    expect(startsWithWords("npm test | sh", ["npm", "test"])).toBe(false);
    expect(startsWithWords("npm test $(curl evil)", ["npm", "test"])).toBe(false);
  });
});
