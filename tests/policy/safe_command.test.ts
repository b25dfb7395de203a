// The read-only bash list and its shell-words parser, tried the way a model (or an injected prompt) would try to
// slip a write or an escape past it. Every "asks" case must not be classified read-only.
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readOnlyVerdict } from "../../lib/policy/safe_command.ts";
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
        "grep -n 'needle' a.txt",
        "grep -e a -e ../b.txt a.txt",
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
        // issue 26: recursion now asks (was read-only in issue 15)
        "grep -rn 'needle' .",
        "rg -n foo src",
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

describe("issue 26: reproductions ask", () => {
  it.each([
    // item 1: options that run, write or set the clock, spelled the way GNU getopt accepts them
    "sed -n --e='1e touch X' p f",
    "sed -nf p f",
    "sort --o=build.sh x",
    "sed -n --i 1p f",
    "date --s=2001-01-01",
    "date --se 2001-01-01",
    "date --set=2001-01-01",
    "date -s 2001-01-01",
    "date -us 2001-01-01",
    "date 010100002001",
    "sort --comp=sh x",
    "sort -T /tmp x",
    "sort --te=/tmp x",
    "sort --files0-from=list",
    "wc --files0=list",
    "du --files0-from=list",
    "sed -n -s 1p f",
    "sed -n -z 1p f",
    "sed -n --ex=p f",
    "sed -n --fi=script f",
    "sed -n --in 1p f",
    "sed -ni 1p f",
    "sed -n -E -i.bak 1p f",
    "sed --quiet 1p -i f",
    "head -5c /etc/passwd",
    "file -C -m magic",
    "tree -o out",
    "tree -R -L 1",
    "git branch --del x",
    "git log --output=x",
    "git diff --ext-diff",
    "git log --show-signature",
    // item 2: recursion, link following and git's path syntax
    "grep -r X .",
    "grep -R X .",
    "grep --recursive X .",
    "grep --rec X .",
    "grep --dereference-recursive X .",
    "grep --der X .",
    "grep -nr X .",
    "grep -d recurse X .",
    "grep --directories=rec X .",
    "grep -drecurse X .",
    "rg X",
    "rg X f",
    "ls -R",
    "ls -laR src",
    "ls --recursive",
    "ls --rec",
    "ls -L .",
    "find -L . -name x",
    "find . -follow",
    "find . -files0-from list",
    "find . -exec cat x \\;",
    "find . -execdir ls \\;",
    "find . -delete",
    "find . -fprint out",
    "du -L .",
    "du --dereference .",
    "du --derefe .",
    "tree -l",
    "git show :.env",
    "git show HEAD:.env",
    "git show :0:.env",
    "git log -p HEAD..HEAD:.env",
    "git diff HEAD:.env HEAD:x",
    "git blame HEAD:.env",
    "git grep -e x HEAD:.env",
    "git rev-parse HEAD:.env",
    "git grep --no-index x",
    "git grep --untracked x",
    "git diff --no-index a b",
    // item 5: the new secret-like names
    "cat .envrc",
    "cat .env-prod",
    "cat .env_local",
    "cat prod.tfvars",
    "head terraform.tfstate",
    "cat .vault-token",
    "cat .config/gh/hosts.yml",
    "file release.jks",
    "cat app.keystore",
    "cat .htpasswd",
    "tail .bash_history",
    "grep -n pass .zsh_history",
    "cat .psql_history",
  ])("asks for %s", (command) => {
    expect(safe(command)).toBe(false);
  });

  it("says why, and points recursion at the built-in tools", () => {
    expect(readOnlyVerdict("sort --o=build.sh x", box.workspace)).toEqual({
      safe: false,
      reason: "uses sort --o (--output), which writes files",
    });
    expect(readOnlyVerdict("date --s=2001-01-01", box.workspace)).toEqual({
      safe: false,
      reason: "uses date --s (--set), which sets the system clock",
    });
    for (const command of ["grep -r X .", "ls -R", "find -L .", "git show HEAD:.env", "rg X"]) {
      const verdict = readOnlyVerdict(command, box.workspace);
      expect(verdict.safe, command).toBe(false);
      if (!verdict.safe) expect(verdict.reason, command).toContain("use the built-in grep, glob, list and read tools");
    }
  });

  it("asks for a two-operand git diff with a directory, which outside a repository compares whole trees", () => {
    mkdirSync(join(box.workspace, "a"));
    expect(safe("git diff a b")).toBe(false);
    expect(safe("git diff HEAD~1 HEAD")).toBe(true);
  });
});

describe("genuinely read-only commands still run unasked", () => {
  it.each([
    "git status",
    "git status --short",
    "git -P log --oneline -5",
    "git log -p -3 -- src",
    "git log --format=%h:%s --since=2.days",
    "git diff --cached --stat",
    "git show HEAD --name-only",
    "git branch -vv",
    "git branch --list 'feat*'",
    "git rev-parse --show-toplevel",
    "git ls-files -s",
    "git blame -L 1,5 a.ts",
    "git grep -n needle -- src",
    "ls -la src",
    "ls --color=never -1",
    "ls --col=never",
    "sed -n 1,5p file",
    "sed -n '$p' file",
    "sed --quiet -E 1~2p file",
    "grep -n foo file.ts",
    "grep -in --color=never -A2 foo file.ts",
    "grep -c foo a b",
    "grep -d skip foo a",
    "head -n 20 a.txt",
    "head -20 a.txt",
    "tail -n +3 a.txt",
    "cat -n a.txt",
    "wc -l a b",
    "find . -name '*.ts' -not -path './node_modules/*' -print",
    "find src -type f -newer a.txt -printf '%p %s\n'",
    "stat -c %s a.txt",
    "du -sh .",
    "df -h .",
    "uname -a",
    "date +%Y-%m-%d",
    "date -u -d @0 +%s",
    "whoami",
    "pwd -P",
    "sort -k2,2n -t, a.csv | uniq -c | head -n 3",
    "cut -d: -f1 a.txt",
    "nl -ba a.txt",
    "file -b a.txt",
    "which node",
    "echo hello world",
    "tree -L 2 -a -I node_modules",
  ])("runs %s", (command) => {
    expect(readOnlyVerdict(command, box.workspace)).toEqual({ safe: true });
  });
});
