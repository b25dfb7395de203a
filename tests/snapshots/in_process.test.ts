// The snapshot store's own writing of git formats (lib/snapshots/index_writer.ts, git_index.ts, git_objects.ts),
// checked against git itself: every snapshot's tree is the tree `git add -A && git write-tree` makes of the same
// workspace, `git fsck --strict` accepts the store, and `git ls-files` finds nothing changed after a snapshot (the
// stat data is git's). A `git` on PATH that logs its subcommands shows which snapshots ran git beyond ls-files.
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  lstatSync,
  lutimesSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  type IndexEntry,
  parseIndex,
  patchIndex,
  serializeIndex,
  UnsupportedIndexError,
} from "../../lib/snapshots/git_index.ts";
import { openSnapshots, snapshotStoreDir } from "../../lib/snapshots/index.ts";
import { IndexWriter } from "../../lib/snapshots/index_writer.ts";
import { useTempFolders } from "../support/temp_folders.ts";

const folders = useTempFolders("scv-snapshot-in-process-", ["workspace", "home", "bin", "reference", "outside"]);
const SESSION = "44444444-4444-4444-8444-444444444444";
const at = (...parts: string[]) => join(folders.workspace, ...parts);
const storeDir = () => snapshotStoreDir(folders.home, folders.workspace);
const gitLog = () => join(folders.root, "git.log");

/**
 * Writes a file dated a minute back. A file changed in the last seconds goes into the index with size 0, so that git
 * compares its content on every look: only older files show whether the stat data is the one git writes.
 */
function write(path: string, content: string | Buffer, mode?: number): void {
  mkdirSync(join(at(path), ".."), { recursive: true });
  writeFileSync(at(path), content);
  if (mode !== undefined) chmodSync(at(path), mode);
  age(path);
}

function link(target: string, path: string): void {
  symlinkSync(target, at(path));
  age(path);
}

function age(path: string): void {
  const past = new Date(Date.now() - 60_000);
  lutimesSync(at(path), past, past);
}

/**
 * Opens the store with a `git` first on PATH that logs each subcommand, then runs the real one. `now` is the store's
 * clock: one ahead of the files' times keeps it from marking entries racily clean (size 0), so that its index can
 * be compared with git's field by field.
 */
function open(now: () => number = Date.now) {
  const realGit = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
  writeFileSync(
    join(folders.bin, "git"),
    [
      "#!/bin/sh",
      // The first argument that is neither `-c` nor the setting after one: the subcommand.
      `for a in "$@"; do`,
      `  case "$prev" in -c) ;; *) case "$a" in -c) ;; *) echo "$a" >> '${gitLog()}'; break;; esac;; esac`,
      `  prev="$a"`,
      "done",
      `exec '${realGit}' "$@"`,
      "",
    ].join("\n"),
    { mode: 0o755 },
  );
  return openSnapshots({
    home: folders.home,
    workspace: folders.workspace,
    sessionId: SESSION,
    maxFileBytes: 20 << 20,
    maxFiles: 10_000,
    timeoutMs: 300_000,
    env: { ...process.env, PATH: `${folders.bin}:${process.env.PATH}` },
    now,
  });
}

const later = () => Date.now() + 10_000;

/** The git subcommands run since the last call. */
function gitRan(): string[] {
  let lines: string[] = [];
  try {
    lines = readFileSync(gitLog(), "utf8").split("\n").filter(Boolean);
  } catch {
    // Nothing ran yet.
  }
  writeFileSync(gitLog(), "");
  return lines;
}

const storeEnv = () => ({
  ...process.env,
  GIT_DIR: join(storeDir(), "git"),
  GIT_WORK_TREE: folders.workspace,
  GIT_INDEX_FILE: join(storeDir(), "indexes", SESSION),
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
});

/** The tree git itself writes for the workspace, in a repository of its own, and its index as ls-files shows it. */
function reference(): { tree: string; index: string } {
  rmSync(folders.reference, { recursive: true, force: true });
  const env = {
    ...process.env,
    GIT_DIR: folders.reference,
    GIT_WORK_TREE: folders.workspace,
    GIT_INDEX_FILE: join(folders.root, "reference.index"),
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
  };
  rmSync(env.GIT_INDEX_FILE, { force: true });
  execFileSync("git", ["init", "-q"], { env });
  execFileSync("git", ["add", "-A"], { env, cwd: folders.workspace });
  const tree = execFileSync("git", ["write-tree"], { env, cwd: folders.workspace, encoding: "utf8" }).trim();
  return { tree, index: indexListing(env) };
}

/** Every entry of an index with its stat data (`ls-files --stage --debug`). */
function indexListing(env: Record<string, string | undefined>): string {
  return execFileSync("git", ["ls-files", "--stage", "--debug"], { env, cwd: folders.workspace, encoding: "utf8" });
}

/** Takes a snapshot and checks it against git: same tree and index, a store fsck accepts, nothing left to list. */
async function snapshotMatchesGit(store: Awaited<ReturnType<typeof open>>, turn: string): Promise<string[]> {
  gitRan();
  const id = await store.beforeTurn(turn);
  const ran = gitRan();
  const expected = reference();
  expect(id, turn).toBe(expected.tree);
  // The stat data git would have written: what lets the next ls-files skip reading unchanged files.
  expect(indexListing(storeEnv()), turn).toBe(expected.index);
  execFileSync("git", ["fsck", "--strict", "--no-dangling"], { env: storeEnv(), stdio: "pipe" });
  const left = execFileSync("git", ["ls-files", "-m", "-o", "-d", "--exclude-standard"], {
    env: storeEnv(),
    cwd: folders.workspace,
    encoding: "utf8",
  });
  expect(left, turn).toBe("");
  return ran;
}

describe("snapshots written in this process", () => {
  it("write the trees and index git writes, in a store fsck accepts, with one git process", async () => {
    for (const name of ["a-b", "a.b", "a0", "a/b/x.txt", "ünï cödé", "line\nbreak", "sp ace/f", ".hidden/f"]) {
      write(name, `content of ${name}\n`);
    }
    write("run.sh", "#!/bin/sh\n", 0o755);
    write(".gitignore", "ignored/\n*.log\n");
    write("ignored/x", "no");
    write("debug.log", "no");
    link("a/b/x.txt", "link");
    const store = await open(later);
    // The first snapshot of a workspace this small is written here too, from an empty index.
    expect(await snapshotMatchesGit(store, "first")).toEqual(["ls-files"]);
    write("a/b/x.txt", "changed\n");
    expect(await snapshotMatchesGit(store, "modified")).toEqual(["ls-files"]);
    unlinkSync(at("a-b"));
    write("new/deep/file", "new\n");
    expect(await snapshotMatchesGit(store, "deleted and added")).toEqual(["ls-files"]);
    rmSync(at("a/b"), { recursive: true });
    write("a/b", "a file where a folder was\n");
    expect(await snapshotMatchesGit(store, "folder became a file")).toEqual(["ls-files"]);
    unlinkSync(at("a/b"));
    write("a/b/c/d", "a folder where a file was\n");
    expect(await snapshotMatchesGit(store, "file became a folder")).toEqual(["ls-files"]);
    chmodSync(at("run.sh"), 0o644);
    chmodSync(at("a0"), 0o755);
    unlinkSync(at("link"));
    link("elsewhere", "link");
    expect(await snapshotMatchesGit(store, "modes and a link")).toEqual(["ls-files"]);
    // Objects past the size stored uncompressed are deflated; both inflate to the same bytes.
    write("large.txt", "0123456789abcdef".repeat(4096));
    write("large.bin", Buffer.from(Array.from({ length: 70_000 }, (_, index) => (index * 7919) % 251)));
    expect(await snapshotMatchesGit(store, "large files")).toEqual(["ls-files"]);
    expect(await snapshotMatchesGit(store, "nothing changed")).toEqual(["ls-files"]);
    // What was written is one pack per snapshot with changes, no loose object.
    const objects = join(storeDir(), "git", "objects");
    expect(readdirSync(objects).filter((name) => /^[0-9a-f]{2}$/.test(name))).toEqual([]);
    expect(readdirSync(join(objects, "pack")).filter((name) => name.endsWith(".idx"))).toHaveLength(7);
  });

  it("leave large batches, large files and an index in another version to git, with the same trees", async () => {
    for (let index = 0; index < 300; index += 1) write(`bulk/${index}.txt`, `file ${index}\n`);
    const store = await open(later);
    expect(await snapshotMatchesGit(store, "bulk")).toEqual(["ls-files", "version", "update-index", "write-tree"]);
    write("huge.bin", Buffer.alloc(9 << 20, 1));
    expect(await snapshotMatchesGit(store, "huge")).toEqual(["ls-files", "update-index", "write-tree"]);
    execFileSync("git", ["update-index", "--index-version", "4"], { env: storeEnv(), cwd: folders.workspace });
    write("bulk/0.txt", "changed\n");
    expect(await snapshotMatchesGit(store, "index v4")).toEqual(["ls-files", "update-index", "write-tree"]);
    // git wrote version 4 again: still git's work, still the same tree.
    write("bulk/1.txt", "changed\n");
    expect(await snapshotMatchesGit(store, "still v4")).toEqual(["ls-files", "update-index", "write-tree"]);
    execFileSync("git", ["update-index", "--index-version", "2"], { env: storeEnv(), cwd: folders.workspace });
    write("bulk/2.txt", "changed\n");
    expect(await snapshotMatchesGit(store, "v2 again")).toEqual(["ls-files"]);
  });

  it("rolls many snapshots' packs into fewer, keeping every snapshot's objects", async () => {
    const store = await open();
    const snapshots: string[] = [];
    for (let turn = 0; turn < 34; turn += 1) {
      write(`turn${turn % 3}.txt`, `turn ${turn}\n`);
      snapshots.push(await store.beforeTurn(`t${turn}`));
    }
    // The roll-up is queued behind the snapshot that asked for it: one more snapshot waits for it.
    await store.beforeTurn("after");
    const packs = readdirSync(join(storeDir(), "git", "objects", "pack")).filter((name) => name.endsWith(".pack"));
    expect(packs.length).toBeLessThan(10);
    execFileSync("git", ["fsck", "--strict", "--no-dangling"], { env: storeEnv(), stdio: "pipe" });
    for (const [turn, tree] of snapshots.entries()) {
      const content = execFileSync("git", ["cat-file", "blob", `${tree}:turn${turn % 3}.txt`], { env: storeEnv() });
      expect(content.toString("utf8")).toBe(`turn ${turn}\n`);
    }
  });

  it("sees a file rewritten at the same size within a second, its modification time set back each time", async () => {
    const store = await open();
    for (let turn = 0; turn < 6; turn += 1) {
      // "turn 0" … "turn 5": one size; `write` dates each version a minute back, all within one second mostly.
      write("same-size.txt", `turn ${turn}\n`);
      const snapshot = await store.beforeTurn(`t${turn}`);
      const stored = execFileSync("git", ["cat-file", "blob", `${snapshot}:same-size.txt`], { env: storeEnv() });
      expect(stored.toString("utf8")).toBe(`turn ${turn}\n`);
    }
  });

  it("drops a file replaced by a FIFO, and never waits on one swapped in after the listing", async () => {
    write("pipe", "a file first\n");
    write("kept.txt", "kept\n");
    const store = await open();
    await store.beforeTurn("t1");
    unlinkSync(at("pipe"));
    execFileSync("mkfifo", [at("pipe")]);
    const snapshot = await store.beforeTurn("t2");
    expect(execFileSync("git", ["ls-tree", "--name-only", snapshot], { env: storeEnv(), encoding: "utf8" })).toBe(
      "kept.txt\n",
    );
    // Listed as a file, a FIFO by the time it is read: opened without waiting for a writer, and left out.
    write("late", "a file when listed\n");
    const listed = lstatSync(at("late"), { bigint: true });
    unlinkSync(at("late"));
    execFileSync("mkfifo", [at("late")]);
    const writer = new IndexWriter({
      gitDir: join(storeDir(), "git"),
      indexFile: join(storeDir(), "indexes", SESSION),
      workspace: folders.workspace,
      maxFileBytes: 1 << 20,
      now: Date.now,
    });
    expect(writer.store([{ path: "late", stats: listed }], [])?.dropped).toEqual(["late"]);
  });

  it("never follows a file swapped for a link after it was listed", async () => {
    writeFileSync(join(folders.outside, "secret"), "outside secret\n");
    write("file.txt", "inside\n");
    const store = await open();
    await store.beforeTurn("t1");
    const indexFile = join(storeDir(), "indexes", SESSION);
    const writer = new IndexWriter({
      gitDir: join(storeDir(), "git"),
      indexFile,
      workspace: folders.workspace,
      maxFileBytes: 1 << 20,
      now: Date.now,
    });
    const listed = lstatSync(at("file.txt"), { bigint: true });
    unlinkSync(at("file.txt"));
    symlinkSync(join(folders.outside, "secret"), at("file.txt"));
    const stored = writer.store([{ path: "file.txt", stats: listed }], []);
    expect(stored?.dropped).toEqual(["file.txt"]);
    const names = parseIndex(readFileSync(indexFile)).map((entry) => entry.name);
    expect(names).not.toContain("file.txt");
    const blobs = execFileSync("git", ["cat-file", "--batch-all-objects", "--batch"], { env: storeEnv() });
    expect(blobs.toString("latin1")).not.toContain("outside secret");
  });

  it("marks entries changed in the last seconds for a look at their content, and rejects what it cannot write", () => {
    const entry = (name: string, mtimeSec: number): IndexEntry => ({
      name,
      ctimeSec: mtimeSec,
      ctimeNsec: 5,
      mtimeSec,
      mtimeNsec: 7,
      dev: 1,
      ino: 2,
      mode: 0o100644,
      uid: 3,
      gid: 4,
      size: 12,
      oid: Buffer.alloc(20, 9),
    });
    const now = 2_000_000_000;
    const mtimeSetBack = { ...entry("e", now - 100), ctimeSec: now };
    const entries = [entry("a", now - 10), entry("b", now - 2), entry("c", now - 1), entry("d", now), mtimeSetBack];
    const parsed = parseIndex(serializeIndex(entries, now).data);
    expect(parsed.map((item) => [item.name, item.size])).toEqual([
      ["a", 12],
      ["b", 12],
      ["c", 0],
      ["d", 0],
      ["e", 0],
    ]);
    expect(parsed[0]).toEqual(entries[0]);
    const good = serializeIndex(entries, now).data;
    const version3 = Buffer.from(good);
    version3.writeUInt32BE(3, 4);
    expect(() => parseIndex(version3)).toThrow(UnsupportedIndexError);
    const corrupt = Buffer.from(good);
    corrupt[20] = corrupt[20]! ^ 1;
    expect(() => parseIndex(corrupt)).toThrow(/checksum/);
  });

  it("patches an index file to the same bytes as writing it whole, entries grown old included", () => {
    const entry = (name: string, mtimeSec: number, size: number): IndexEntry => ({
      name,
      ctimeSec: mtimeSec,
      ctimeNsec: 1,
      mtimeSec,
      mtimeNsec: 2,
      dev: 3,
      ino: size,
      mode: 0o100644,
      uid: 4,
      gid: 5,
      size,
      oid: Buffer.alloc(20, size),
    });
    const then = 2_000_000_000;
    const before = [
      entry("a/x", then - 50, 10),
      entry("a/y", then, 11),
      entry("b", then - 50, 12),
      entry("c", then, 13),
    ];
    const first = serializeIndex(before, then);
    expect(first.smudged).toEqual([1, 3]);
    // Ten seconds on: "b" changed (and is recent), "a/y" and "c" did not but are old enough now to keep their size.
    const now = then + 10;
    const after = [before[0]!, before[1]!, entry("b", now, 99), before[3]!];
    const patched = patchIndex(first, after, [2], now);
    const whole = serializeIndex(after, now);
    expect(patched.data.equals(whole.data)).toBe(true);
    expect(patched.smudged).toEqual([2]);
    expect(parseIndex(patched.data).map((item) => item.size)).toEqual([10, 11, 0, 13]);
  });
});
