// The snapshot store in-process (lib/snapshots), attacked the way a hostile workspace or agent would: names that
// look like pathspecs or options, attributes and filters in the workspace, hooks and configuration planted in the
// store itself, a folder swapped for a link out of the workspace before a restore; and the restore plan's rules.
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { gitRunner } from "../../lib/snapshots/git.ts";
import { openSnapshots, planRestore, snapshotStoreDir, type TurnChanges } from "../../lib/snapshots/index.ts";
import { useTempFolders } from "../support/temp_folders.ts";
import { treeOf } from "../support/workspace_tree.ts";

const folders = useTempFolders("scv-snapshots-", ["workspace", "home", "outside"]);

const open = (options: { maxFileBytes?: number; maxFiles?: number; sessionId?: string; timeoutMs?: number } = {}) =>
  openSnapshots({
    home: folders.home,
    workspace: folders.workspace,
    sessionId: options.sessionId ?? "11111111-1111-4111-8111-111111111111",
    maxFileBytes: options.maxFileBytes ?? 1_000_000,
    maxFiles: options.maxFiles ?? 1000,
    timeoutMs: options.timeoutMs ?? 300_000,
    env: process.env,
  });

const at = (...parts: string[]) => join(folders.workspace, ...parts);

describe("the git store", () => {
  it("restores names that look like pathspecs, options and globs, and bytes that attributes would convert", async () => {
    const names = ["*", ":(exclude)keep", "-rf", "[ab]", "a\nb", "sp ace", "ünï"];
    for (const name of names) writeFileSync(at(name), `before ${name}\r\n`);
    writeFileSync(at("keep"), "keep\n");
    writeFileSync(at(".gitattributes"), "* text eol=lf filter=evil ident\n");
    const store = await open();
    const before = await store.beforeTurn("t1");
    const tree = treeOf(folders.workspace);
    for (const name of names) writeFileSync(at(name), `after ${name}\n`);
    writeFileSync(at("$Id$"), "new\n");
    const after = await store.afterTurn("t1");
    const report = await store.restore([{ before, after }], false);
    expect(report.restored.sort()).toEqual([...names, "$Id$"].sort());
    expect(treeOf(folders.workspace)).toEqual(tree);
  });

  it("runs nothing planted in the store: hooks, fsmonitor, filters, an alternate hooks path", async () => {
    const store = await open();
    const gitDir = join(snapshotStoreDir(folders.home, folders.workspace), "git");
    const mark = join(folders.outside, "ran");
    const script = `#!/bin/sh\ntouch ${mark}\ncat\n`;
    mkdirSync(join(gitDir, "hooks"), { recursive: true });
    for (const hook of ["post-checkout", "post-index-change", "reference-transaction", "pre-commit"]) {
      writeFileSync(join(gitDir, "hooks", hook), script, { mode: 0o755 });
    }
    writeFileSync(join(folders.outside, "fsmonitor"), script, { mode: 0o755 });
    writeFileSync(
      join(gitDir, "config"),
      `${readFileSync(join(gitDir, "config"), "utf8")}[core]\n\tfsmonitor = ${
        join(folders.outside, "fsmonitor")
      }\n\thooksPath = ${join(gitDir, "hooks")}\n[filter "evil"]\n\tclean = ${
        join(folders.outside, "fsmonitor")
      }\n\tsmudge = ${join(folders.outside, "fsmonitor")}\n\trequired = true\n`,
    );
    writeFileSync(at(".gitattributes"), "* filter=evil\n");
    writeFileSync(at("file.txt"), "before\n");
    const before = await store.beforeTurn("t1");
    writeFileSync(at("file.txt"), "after\n");
    const after = await store.afterTurn("t1");
    const report = await store.restore([{ before, after }], false);
    expect(report.restored).toEqual(["file.txt"]);
    expect(readFileSync(at("file.txt"), "utf8")).toBe("before\n");
    expect(existsSync(mark)).toBe(false);
  });

  it("never writes or deletes through a folder swapped for a link out of the workspace", async () => {
    mkdirSync(at("dir"));
    writeFileSync(at("dir", "old.txt"), "old\n");
    const store = await open();
    const before = await store.beforeTurn("t1");
    rmSync(at("dir", "old.txt"));
    writeFileSync(at("dir", "new.txt"), "new\n");
    const after = await store.afterTurn("t1");
    // Then `dir` becomes a link to a folder outside, which holds files of the same names.
    renameSync(at("dir"), at("moved"));
    writeFileSync(join(folders.outside, "new.txt"), "outside new\n");
    writeFileSync(join(folders.outside, "old.txt"), "outside old\n");
    symlinkSync(folders.outside, at("dir"));
    for (const force of [false, true]) {
      const report = await store.restore([{ before, after }], force);
      expect(readFileSync(join(folders.outside, "new.txt"), "utf8")).toBe("outside new\n");
      expect(readFileSync(join(folders.outside, "old.txt"), "utf8")).toBe("outside old\n");
      // dir/new.txt is gone as far as the workspace goes; dir/old.txt cannot come back without replacing the link.
      expect(report.restored).toEqual([]);
      expect(report.failed).toEqual([{ path: "dir/old.txt", reason: expect.stringContaining("is a symbolic link") }]);
    }
    expect(treeOf(folders.workspace)["dir"]).toEqual({ mode: "link", content: folders.outside });
  });

  it("keeps the instance home out when it lies inside the workspace, and never enters the user's .git", async () => {
    folders.home = join(folders.workspace, ".scv-home");
    mkdirSync(folders.home);
    execFileSync("git", ["init", "-q"], { cwd: folders.workspace, env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1" } });
    writeFileSync(at("file.txt"), "x\n");
    const store = await open();
    const before = await store.beforeTurn("t1");
    writeFileSync(at("file.txt"), "y\n");
    writeFileSync(join(folders.home, "secret.toml"), "api_key = 'sk-test'\n");
    const after = await store.afterTurn("t1");
    const report = await store.restore([{ before, after }], false);
    expect(report.restored).toEqual(["file.txt"]);
    expect(existsSync(join(folders.home, "secret.toml"))).toBe(true);
    const gitDir = join(snapshotStoreDir(folders.home, folders.workspace), "git");
    const listed = execFileSync("git", ["--git-dir", gitDir, "ls-tree", "-r", "--name-only", before], {
      encoding: "utf8",
      env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1" },
    });
    expect(listed.split("\n").filter(Boolean)).toEqual(["file.txt"]);
  });

  it("reuses the last snapshot when nothing changed, and a new session starts from the shared index", async () => {
    writeFileSync(at("a.txt"), "a\n");
    const store = await open();
    const first = await store.beforeTurn("t1");
    expect(await store.afterTurn("t1")).toBe(first);
    const other = await open({ sessionId: "22222222-2222-4222-8222-222222222222" });
    const fromOther = await other.beforeTurn("t2");
    writeFileSync(at("b.txt"), "b\n");
    const changed = await other.afterTurn("t2");
    expect(changed).not.toBe(fromOther);
    expect((await other.restore([{ before: fromOther, after: changed }], false)).restored).toEqual(["b.txt"]);
  });

  it("refuses to snapshot more files than the limit", async () => {
    for (let index = 0; index < 12; index += 1) writeFileSync(at(`f${index}`), "x");
    const store = await open({ maxFiles: 10 });
    await expect(store.beforeTurn("t1")).rejects.toThrow(/more than snapshots.max_files \(10\)/);
  });

  it("stops a git that a hostile .gitignore keeps busy, and leaves no git running", async () => {
    // git's own wildcard matching backtracks on this pattern against a deep path for minutes.
    const deep = at(...Array.from({ length: 40 }, () => "d"));
    mkdirSync(deep, { recursive: true });
    writeFileSync(join(deep, "y"), "y");
    writeFileSync(at(".gitignore"), "**/**/**/**/**/**/**/**/x\n");
    const store = await open({ timeoutMs: 500 });
    await expect(store.beforeTurn("t1")).rejects.toThrow(
      /^git ls-files took over 0\.5 s \(snapshots\.timeout_seconds\) and was stopped; a \.gitignore pattern/,
    );
    // The killed git is gone (Linux: no live git process works in the workspace).
    expect(liveGitsIn(folders.workspace)).toEqual([]);
  });

  it("stops a chain of git commands as a whole, the git it is running included", async () => {
    const git = gitRunner({
      gitDir: join(folders.root, "chain.git"),
      workTree: folders.workspace,
      indexFile: join(folders.root, "index"),
    }, {
      ...process.env,
    }, 500);
    await git.run(["init", "--quiet"]);
    // hash-object opens the FIFO and waits for a writer that never comes.
    execFileSync("mkfifo", [at("fifo")]);
    await expect(git.chain([{ args: ["hash-object", "--stdin-paths"], input: "fifo\n" }, { args: ["write-tree"] }]))
      .rejects.toThrow(
        /^git hash-object \+ write-tree took over 0\.5 s \(snapshots\.timeout_seconds\) and was stopped/,
      );
    expect(liveGitsIn(folders.workspace)).toEqual([]);
  });
});

/** Live (not zombie) git processes whose working folder is `dir` (Linux; elsewhere none are found). */
function liveGitsIn(dir: string): string[] {
  if (process.platform !== "linux") return [];
  return readdirSync("/proc").filter((pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
      return stat.includes("(git)") && !stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z") &&
        readlinkSync(`/proc/${pid}/cwd`) === dir;
    } catch {
      return false;
    }
  });
}

describe("planRestore", () => {
  const turn = (entries: Record<string, [string | null, string | null]>): TurnChanges =>
    new Map(Object.entries(entries).map(([path, [before, after]]) => [path, { before, after }]));

  it("restores to before the first turn that changed a file", () => {
    const plan = planRestore(
      [turn({ f: ["v0", "v1"] }), turn({ f: ["v1", "v2"], g: [null, "g1"] })],
      (path) => ({ f: "v2", g: "g1" })[path] ?? null,
      false,
    );
    expect(plan).toEqual({
      steps: [
        { path: "f", target: "v0", turn: 0, forced: false },
        { path: "g", target: null, turn: 1, forced: false },
      ],
      conflicts: [],
    });
  });

  it("calls a file changed since, or between the turns, a conflict and leaves it unless forced", () => {
    const turns = [turn({ f: ["v0", "v1"], h: ["h0", "h1"] }), turn({ f: ["user", "v2"] })];
    const now = (path: string) => ({ f: "v2", h: "h-user" })[path] ?? null;
    expect(planRestore(turns, now, false)).toEqual({ steps: [], conflicts: ["f", "h"] });
    expect(planRestore(turns, now, true).steps.map((step) => [step.path, step.target, step.forced])).toEqual([
      ["f", "v0", true],
      ["h", "h0", true],
    ]);
  });

  it("does nothing for a file already back as it was", () => {
    expect(planRestore([turn({ f: ["v0", "v1"] })], () => "v0", false)).toEqual({ steps: [], conflicts: [] });
  });
});
