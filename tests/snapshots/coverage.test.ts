// What the git store's snapshots cover, checked by what a restore puts back: .gitignore at the root and in nested
// folders, the size cap at its exact boundary (and files that cross it during a turn), a file deleted and another
// added in one turn, symbolic links kept as links (never followed), and a first snapshot large enough to be written
// as one pack (git's bulk check-in) whose files all come back byte for byte, mode and links included.
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openSnapshots, snapshotStoreDir } from "../../lib/snapshots/index.ts";
import { useTempFolders } from "../support/temp_folders.ts";
import { treeOf } from "../support/workspace_tree.ts";

const folders = useTempFolders("scv-snapshot-coverage-", ["workspace", "home", "outside"]);

const open = (maxFileBytes = 1_000_000) =>
  openSnapshots({
    home: folders.home,
    workspace: folders.workspace,
    sessionId: "33333333-3333-4333-8333-333333333333",
    maxFileBytes,
    maxFiles: 10_000,
    timeoutMs: 300_000,
    env: process.env,
  });

const at = (...parts: string[]) => join(folders.workspace, ...parts);
const read = (...parts: string[]) => readFileSync(at(...parts), "utf8");

function write(path: string, content: string | Buffer): void {
  mkdirSync(join(at(path), ".."), { recursive: true });
  writeFileSync(at(path), content);
}

const storeGit = (...args: string[]) =>
  execFileSync("git", ["--git-dir", join(snapshotStoreDir(folders.home, folders.workspace), "git"), ...args], {
    encoding: "utf8",
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
  });

/** `git ls-tree -r` of a snapshot: path → mode. */
function modesOf(snapshot: string): Record<string, string> {
  const tree = snapshot.split(":")[0]!;
  const modes: Record<string, string> = {};
  for (const line of storeGit("ls-tree", "-r", "-z", tree).split("\0").filter(Boolean)) {
    const tab = line.indexOf("\t");
    modes[line.slice(tab + 1)] = line.split(" ")[0]!;
  }
  return modes;
}

describe("what a snapshot covers", () => {
  it("restores a file deleted and one added in the same turn, and leaves ignored files alone at every level", async () => {
    write(".gitignore", "*.log\n");
    write("sub/.gitignore", "*.tmp\n");
    write("x.log", "log before\n");
    write("sub/data.tmp", "ignored before\n");
    write("top.tmp", "not ignored at the root before\n");
    write("dir/deleted.txt", "deleted in the turn\n");
    write("dir/kept.txt", "kept\n");
    const store = await open();
    const before = await store.beforeTurn("t1");
    expect(Object.keys(modesOf(before)).sort()).toEqual(
      [".gitignore", "dir/deleted.txt", "dir/kept.txt", "sub/.gitignore", "top.tmp"],
    );

    rmSync(at("dir", "deleted.txt"));
    write("dir/added.txt", "added in the turn\n");
    write("x.log", "log after\n");
    write("sub/data.tmp", "ignored after\n");
    write("sub/new.tmp", "ignored and new\n");
    write("top.tmp", "not ignored at the root after\n");
    const after = await store.afterTurn("t1");
    const report = await store.restore([{ before, after }], false);

    expect(report).toEqual({
      restored: ["dir/added.txt", "dir/deleted.txt", "top.tmp"],
      conflicts: [],
      skipped: [],
      failed: [],
    });
    expect(read("dir", "deleted.txt")).toBe("deleted in the turn\n");
    expect(existsSync(at("dir", "added.txt"))).toBe(false);
    expect(read("dir", "kept.txt")).toBe("kept\n");
    expect(read("top.tmp")).toBe("not ignored at the root before\n");
    // Ignored files were never snapshotted, so the rewind leaves them as the turn left them.
    expect(read("x.log")).toBe("log after\n");
    expect(read("sub", "data.tmp")).toBe("ignored after\n");
    expect(read("sub", "new.tmp")).toBe("ignored and new\n");
  });

  it("leaves out files over the size cap, keeps one exactly at it, and never touches those that cross it", async () => {
    const cap = 100;
    write("at-cap.txt", "a".repeat(cap));
    write("over-cap.bin", "b".repeat(cap + 1));
    write("grows.txt", "small\n");
    write("shrinks.bin", "s".repeat(cap * 2));
    const store = await open(cap);
    const before = await store.beforeTurn("t1");
    expect(Object.keys(modesOf(before)).sort()).toEqual(["at-cap.txt", "grows.txt"]);

    write("at-cap.txt", "c".repeat(cap));
    write("over-cap.bin", "d".repeat(cap * 3));
    write("grows.txt", "g".repeat(cap + 1));
    write("shrinks.bin", "small now\n");
    write("new-big.bin", "n".repeat(cap + 1));
    const after = await store.afterTurn("t1");
    const report = await store.restore([{ before, after }], false);

    // A file over the cap before or after the turn has no content to go back to: the rewind never touches it.
    expect(report.restored).toEqual(["at-cap.txt"]);
    expect(report.skipped).toEqual(["grows.txt", "new-big.bin", "over-cap.bin", "shrinks.bin"]);
    expect(report.conflicts).toEqual([]);
    expect(read("at-cap.txt")).toBe("a".repeat(cap));
    expect(read("shrinks.bin")).toBe("small now\n");
    expect(read("over-cap.bin")).toBe("d".repeat(cap * 3));
    expect(read("grows.txt")).toBe("g".repeat(cap + 1));
    expect(read("new-big.bin")).toBe("n".repeat(cap + 1));
  });

  it("stores symbolic links as links, never what they point to", async () => {
    writeFileSync(join(folders.outside, "target.txt"), "outside\n");
    write("a.txt", "a\n");
    symlinkSync(join(folders.outside, "target.txt"), at("out-link"));
    symlinkSync("a.txt", at("rel-link"));
    symlinkSync(folders.outside, at("dir-link"));
    const store = await open();
    const before = await store.beforeTurn("t1");
    expect(modesOf(before)).toEqual({
      "a.txt": "100644",
      "dir-link": "120000",
      "out-link": "120000",
      "rel-link": "120000",
    });

    writeFileSync(join(folders.outside, "target.txt"), "outside, changed through the link\n");
    writeFileSync(join(folders.outside, "new.txt"), "new outside\n");
    rmSync(at("out-link"));
    symlinkSync("a.txt", at("out-link"));
    rmSync(at("rel-link"));
    const after = await store.afterTurn("t1");
    const report = await store.restore([{ before, after }], false);

    expect(report.restored).toEqual(["out-link", "rel-link"]);
    expect(readlinkSync(at("out-link"))).toBe(join(folders.outside, "target.txt"));
    expect(readlinkSync(at("rel-link"))).toBe("a.txt");
    expect(readlinkSync(at("dir-link"))).toBe(folders.outside);
    // What the links point to was never the workspace's: it stays as the turn left it.
    expect(readFileSync(join(folders.outside, "target.txt"), "utf8")).toBe("outside, changed through the link\n");
    expect(readdirSync(folders.outside).sort()).toEqual(["new.txt", "target.txt"]);
  });

  it("writes a large first snapshot as one pack and restores every file of it byte for byte", async () => {
    const files = 400;
    for (let index = 0; index < files; index += 1)
      write(`d${index % 4}/f${index}.txt`, `file ${index}\n`.repeat(index % 7));
    write("empty", "");
    write("one-byte", "x");
    write("binary.bin", Buffer.from([0, 255, 13, 10, 0, 1]));
    write("tool.sh", "#!/bin/sh\necho hi\n");
    chmodSync(at("tool.sh"), 0o755);
    symlinkSync("d0/f0.txt", at("link"));
    const tree = treeOf(folders.workspace);
    const store = await open();
    const before = await store.beforeTurn("t1");

    const objects = join(snapshotStoreDir(folders.home, folders.workspace), "git", "objects");
    const looseObjects = readdirSync(objects).filter((name) => /^[0-9a-f]{2}$/.test(name))
      .reduce((count, dir) => count + readdirSync(join(objects, dir)).length, 0);
    const version = /(\d+)\.(\d+)/.exec(execFileSync("git", ["version"], { encoding: "utf8" }))!;
    if (Number(version[1]) > 2 || Number(version[2]) >= 38) {
      expect(readdirSync(join(objects, "pack")).filter((name) => name.endsWith(".pack"))).toHaveLength(1);
      // Loose: the folders' trees and the few blobs too small for the pack (empty, one byte, the link).
      expect(looseObjects).toBeLessThan(20);
    }

    for (let index = 0; index < files; index += 3) write(`d${index % 4}/f${index}.txt`, `changed ${index}\n`);
    for (let index = 1; index < files; index += 5) rmSync(at(`d${index % 4}/f${index}.txt`));
    write("empty", "no longer empty\n");
    write("binary.bin", Buffer.from([1, 2, 3]));
    chmodSync(at("tool.sh"), 0o644);
    rmSync(at("link"));
    write("d9/new.txt", "new\n");
    const after = await store.afterTurn("t1");
    const report = await store.restore([{ before, after }], false);

    expect(report.conflicts).toEqual([]);
    expect(report.failed).toEqual([]);
    expect(treeOf(folders.workspace)).toEqual(tree);
  });
});
