// The snapshot store when git is installed: a private git directory under the instance home, with the workspace as
// its work tree and an index of its own per session. A snapshot is a tree of the workspace as git sees it
// (.gitignore honoured, the user's .git never entered), made with plumbing only (no hooks run). `git ls-files` lists
// what changed since the index (stat data spares reading unchanged files); a few changes are then stored by this
// process in git's formats (index_writer.ts: one pack, the index), a large batch by `git update-index` and
// `git write-tree` chained in one sh, which pack a first snapshot's blobs. Files over
// the size cap stay out of the index; a snapshot that left some out is named `<tree>:<list id>`, the list kept in
// `<store>/skipped/<list id>.json`, and a restore never touches them. The store is never garbage-collected.
import { createHash } from "node:crypto";
import { copyFile, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { type BigIntStats, existsSync, lstatSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { isInside } from "../util/path.ts";
import {
  type GitChain,
  type GitRun,
  type GitRunner,
  gitRunner,
  type GitStep,
  nulFields,
  nulList,
  parseGitVersion,
} from "./git.ts";
import { type Addition, IndexWriter } from "./index_writer.ts";
import { type ContentId, type FileChange, planRestore, type TurnChanges } from "./plan.ts";
import { type RestoreReport, SnapshotLimitError, type SnapshotStore, type TurnSnapshots } from "./types.ts";
import { leadingPathProblem, removeWorkspaceFile, UnsafePathError } from "./workspace_files.ts";

/** Neither a workspace's attributes nor its filters may change bytes or run anything on the way in or out. */
const ATTRIBUTES = "* -text -eol -filter -ident -working-tree-encoding -diff -merge\n";
const GITLINK = "160000";
/**
 * A snapshot adding this many files or more writes their blobs into one pack (git's bulk check-in, where
 * `core.bigFileThreshold=1` sends every file over a byte) instead of a file per blob: a first snapshot of 10,000 files
 * then creates one file, not 10,000. Fewer stay loose objects, as fast at that size and leaving no pack behind (the
 * store is never repacked, and every pack is one more place each lookup searches).
 */
const BULK_FILES = 256;
/** update-index puts all its blobs into one pack only from git 2.38 (before, bulk check-in made a pack per file). */
const BULK_SINCE: readonly [number, number] = [2, 38];
/** `git repack --geometric` keeps objects no commit reaches from git 2.32. */
const GEOMETRIC_SINCE: readonly [number, number] = [2, 32];
const PACKS_BEFORE_REPACK = 32;
/** A batch of changes this large or larger is left to git rather than read on the event loop. */
const IN_PROCESS_BYTES = 8n << 20n;

export type GitStoreOptions = {
  /** The store's folder, `<home>/snapshots/<workspace id>`. */
  dir: string;
  workspace: string;
  /** The instance home: kept out of the snapshots when it lies inside the workspace. */
  home: string;
  sessionId: string;
  maxFileBytes: number;
  maxFiles: number;
  timeoutMs: number;
  env: Record<string, string | undefined>;
  now?: () => number;
};

type Snapshot = { id: string; tree: string; skipped: string[] };

export class GitSnapshotStore implements SnapshotStore {
  readonly coverage = "workspace" as const;
  readonly #git: GitRun;
  readonly #chain: GitChain;
  readonly #workspace: string;
  readonly #maxFileBytes: number;
  readonly #maxFiles: number;
  readonly #indexFile: string;
  readonly #sharedIndex: string;
  readonly #skippedDir: string;
  #last: Snapshot | undefined;
  #skippedOf = new Map<string, string[]>();
  #queue: Promise<unknown> = Promise.resolve();
  #gitVersion: Promise<[number, number]> | undefined;
  readonly #writer: IndexWriter | undefined;
  readonly #gitDir: string;

  private constructor(options: GitStoreOptions, git: GitRunner, indexFile: string, sharedIndex: string) {
    this.#git = git.run;
    this.#chain = git.chain;
    this.#workspace = options.workspace;
    this.#maxFileBytes = options.maxFileBytes;
    this.#maxFiles = options.maxFiles;
    this.#indexFile = indexFile;
    this.#sharedIndex = sharedIndex;
    this.#skippedDir = join(options.dir, "skipped");
    const gitDir = join(options.dir, "git");
    this.#gitDir = gitDir;
    // The writer speaks git's SHA-1 formats on POSIX stat data: elsewhere git does all the writing.
    this.#writer = process.platform === "win32" || usesSha256(gitDir) ? undefined : new IndexWriter({
      gitDir,
      indexFile,
      workspace: options.workspace,
      maxFileBytes: options.maxFileBytes,
      now: options.now ?? Date.now,
    });
  }

  /** Opens (creating when needed) the store; rejects with GitMissingError when git is not installed. */
  static async open(options: GitStoreOptions): Promise<GitSnapshotStore> {
    const gitDir = join(options.dir, "git");
    const indexes = join(options.dir, "indexes");
    await mkdir(indexes, { recursive: true, mode: 0o700 });
    const indexFile = join(indexes, options.sessionId);
    const sharedIndex = join(indexes, "latest");
    const git = gitRunner({ gitDir, workTree: options.workspace, indexFile }, options.env, options.timeoutMs);
    if (!existsSync(join(gitDir, "HEAD"))) {
      await mkdir(gitDir, { recursive: true, mode: 0o700 });
      await git.run(["init", "--quiet"]);
    }
    await writeFile(join(options.dir, "workspace"), `${options.workspace}\n`, { mode: 0o600 });
    await mkdir(join(gitDir, "info"), { recursive: true, mode: 0o700 });
    await writeFile(join(gitDir, "info", "attributes"), ATTRIBUTES, { mode: 0o600 });
    await writeFile(join(gitDir, "info", "exclude"), excludes(options.workspace, options.home, options.dir), {
      mode: 0o600,
    });
    // A new session starts from the last index of the workspace: its stat data spares hashing unchanged files.
    if (!existsSync(indexFile) && existsSync(sharedIndex)) await copyFile(sharedIndex, indexFile).catch(() => {});
    return new GitSnapshotStore(options, git, indexFile, sharedIndex);
  }

  beforeTurn(): Promise<string> {
    return this.#serial(async () => (await this.#take()).id);
  }

  afterTurn(): Promise<string> {
    return this.#serial(async () => (await this.#take()).id);
  }

  /** Every writer is covered by the snapshots themselves. */
  async fileWillChange(): Promise<void> {}

  restore(turns: readonly TurnSnapshots[], force: boolean): Promise<RestoreReport> {
    return this.#serial(() => this.#restore(turns, force));
  }

  // One git operation on the index at a time.
  #serial<T>(run: () => Promise<T>): Promise<T> {
    const next = this.#queue.then(run, run);
    this.#queue = next.catch(() => {});
    return next;
  }

  async #take(): Promise<Snapshot> {
    const listed = nulFields(
      await this.#git(["ls-files", "-z", "--modified", "--deleted", "--others", "--exclude-standard"]),
    );
    // Nothing differs from the index this store wrote its last tree from: that tree is the snapshot.
    if (listed.length === 0 && this.#last !== undefined && this.#last.skipped.length === 0) return this.#last;
    if (listed.length > this.#maxFiles) {
      throw new SnapshotLimitError(
        `the workspace has ${listed.length} new or changed files to snapshot, more than snapshots.max_files ` +
          `(${this.#maxFiles}); add what need not be undone to .gitignore, or raise the limit`,
      );
    }
    const drop: string[] = [];
    const skipped: string[] = [];
    const additions: Addition[] = [];
    const realDirectories = new Map<string, boolean>();
    // A nested repository (listed as `dir/`) is another project's: it is not snapshotted.
    const paths = [...new Set(listed)].filter((path) => !path.endsWith("/"));
    // One synchronous lstat each: a few microseconds, where a promise each waits its turn in libuv's thread pool
    // (measured: 100 changed files, 10–25 ms on a loaded machine).
    const infos = paths.map((path) => {
      // A path below a link is not the workspace's (lstat would follow the link): for git it is gone.
      if (!this.#realDirectory(dirname(path), realDirectories)) return undefined;
      return lstatOrNothing(join(this.#workspace, path));
    });
    paths.forEach((path, index) => {
      const info = infos[index];
      // git stores files and links; a FIFO, socket or device where a file was is, for it, a file gone.
      if (info === undefined || !(info.isFile() || info.isSymbolicLink())) drop.push(path);
      else if (info.isFile() && info.size > BigInt(this.#maxFileBytes)) {
        drop.push(path);
        skipped.push(path);
      } else additions.push({ path, stats: info });
    });
    const tree = this.#storeHere(additions, drop, skipped) ??
      await this.#storeWithGit(additions.map((addition) => addition.path), drop);
    skipped.sort();
    const last = this.#last;
    if (last !== undefined && last.tree === tree && sameList(last.skipped, skipped)) return last;
    const id = skipped.length === 0 ? tree : `${tree}:${await this.#saveSkipped(skipped)}`;
    this.#last = { id, tree, skipped };
    this.#skippedOf.set(id, skipped);
    // Only a later session's first snapshot gains from it: not waited for.
    void this.#shareIndex();
    return this.#last;
  }

  /**
   * Stores a few changes in this process (index_writer.ts); undefined when git should: a batch it packs, more bytes
   * than are worth reading on the event loop, an index or store this code does not write, or a file it cannot read
   * (git then fails with its own words).
   */
  #storeHere(additions: readonly Addition[], drop: readonly string[], skipped: string[]): string | undefined {
    if (this.#writer === undefined || additions.length >= BULK_FILES) return undefined;
    let bytes = 0n;
    for (const { stats } of additions) bytes += stats.size;
    if (bytes > IN_PROCESS_BYTES) return undefined;
    try {
      const stored = this.#writer.store(additions, drop);
      if (stored === undefined) return undefined;
      skipped.push(...stored.skipped);
      if (stored.packed) this.#rollUpPacks();
      return stored.tree;
    } catch (error) {
      // A file this process may not read: git says so in its own words. Anything else is a defect, not hidden.
      if (typeof (error as NodeJS.ErrnoException).code !== "string") throw error;
      this.#writer.forget();
      return undefined;
    }
  }

  async #storeWithGit(add: readonly string[], drop: readonly string[]): Promise<string> {
    // Removals first, so that a folder that became a file (or a link) and the reverse never collide in the index;
    // then the tree, in one chain (a snapshot with changes costs this process two forks, not up to four).
    const steps: GitStep[] = [];
    if (drop.length > 0)
      steps.push({ args: ["update-index", "-z", "--force-remove", "--stdin"], input: nulList(drop) });
    if (add.length > 0) {
      const bulk = add.length >= BULK_FILES && await this.#gitSince(BULK_SINCE);
      const settings = bulk ? ["-c", "core.bigFileThreshold=1"] : [];
      steps.push({ args: [...settings, "update-index", "-z", "--add", "--replace", "--stdin"], input: nulList(add) });
    }
    // update-index has just written every blob the index names: write-tree need not look each one up again.
    steps.push({ args: ["write-tree", "--missing-ok"] });
    return (await this.#chain(steps)).toString("utf8").trim();
  }

  /** True when the installed git is `since` or newer; git is asked once. */
  async #gitSince(since: readonly [number, number]): Promise<boolean> {
    this.#gitVersion ??= this.#git(["version"]).then(
      (output) => parseGitVersion(output.toString("utf8")),
      () => [0, 0],
    );
    const [major, minor] = await this.#gitVersion;
    return major > since[0] || (major === since[0] && minor >= since[1]);
  }

  /**
   * Every snapshot written here adds a pack, and every pack is one more place git looks an object up: past
   * PACKS_BEFORE_REPACK, git rolls the small ones into one (`--geometric` keeps every object, reachable or not: no
   * snapshot is ever a commit). Queued after the snapshot, not waited for.
   */
  #rollUpPacks(): void {
    let packs = 0;
    try {
      packs = readdirSync(join(this.#gitDir, "objects", "pack")).filter((name) => name.endsWith(".pack")).length;
    } catch {
      return;
    }
    if (packs < PACKS_BEFORE_REPACK) return;
    void this.#serial(async () => {
      if (await this.#gitSince(GEOMETRIC_SINCE)) await this.#git(["repack", "-d", "-q", "--geometric=2"]);
    }).catch(() => {
      // The packs stay as they are: every object is still there, only lookups are slower.
    });
  }

  /** Keeps a snapshot's list of files left out; resolves with the list's id. */
  async #saveSkipped(skipped: readonly string[]): Promise<string> {
    const json = JSON.stringify(skipped);
    const listId = createHash("sha256").update(json).digest("hex").slice(0, 32);
    const path = join(this.#skippedDir, `${listId}.json`);
    if (!existsSync(path)) {
      await mkdir(this.#skippedDir, { recursive: true, mode: 0o700 });
      const temporary = `${path}.${process.pid}.tmp`;
      await writeFile(temporary, json, { mode: 0o600 });
      await rename(temporary, path);
    }
    return listId;
  }

  /** True when every component of the relative folder `dir` is a real folder (no link), memoised in `known`. */
  #realDirectory(dir: string, known: Map<string, boolean>): boolean {
    if (dir === "." || dir === "") return true;
    let answer = known.get(dir);
    if (answer === undefined) {
      answer = this.#realDirectory(dirname(dir), known) &&
        lstatOrNothing(join(this.#workspace, dir))?.isDirectory() === true;
      known.set(dir, answer);
    }
    return answer;
  }

  async #shareIndex(): Promise<void> {
    const temporary = `${this.#sharedIndex}.${process.pid}.tmp`;
    try {
      await copyFile(this.#indexFile, temporary);
      await rename(temporary, this.#sharedIndex);
    } catch {
      // Only a later session's speed depends on it.
    }
  }

  async #restore(turns: readonly TurnSnapshots[], force: boolean): Promise<RestoreReport> {
    const current = await this.#take();
    const skipped = new Set(current.skipped);
    const changes: TurnChanges[] = [];
    for (const turn of turns) {
      const after = turn.after ?? current.id;
      for (const id of [turn.before, after]) for (const path of await this.#skipped(id)) skipped.add(path);
      changes.push(await this.#changes(treeOf(turn.before), treeOf(after), skipped));
    }
    const now = await this.#contents(current.tree);
    const plan = planRestore(changes, (path) => now.get(path) ?? null, force);
    const failed: RestoreReport["failed"] = [];
    const restored: string[] = [];
    const bySource = new Map<string, string[]>();
    for (const step of plan.steps) {
      if (step.target === null) {
        try {
          await removeWorkspaceFile(this.#workspace, step.path);
          restored.push(step.path);
        } catch (error) {
          failed.push({ path: step.path, reason: reason(error) });
        }
        continue;
      }
      // git would replace a link (or file) on the way with a folder: that is not the rewound turns' to undo.
      const problem = await leadingPathProblem(this.#workspace, step.path);
      if (problem !== undefined) {
        failed.push({ path: step.path, reason: problem });
        continue;
      }
      const source = treeOf(turns[step.turn]!.before);
      bySource.set(source, [...(bySource.get(source) ?? []), step.path]);
    }
    for (const [source, paths] of bySource) {
      try {
        await this.#git(["checkout", source, "--pathspec-from-file=-", "--pathspec-file-nul"], nulList(paths));
        restored.push(...paths);
      } catch (error) {
        for (const path of paths) failed.push({ path, reason: reason(error) });
      }
    }
    // The checkout changed the index: the next snapshot writes its tree again.
    this.#last = undefined;
    return {
      restored: restored.sort(),
      conflicts: plan.conflicts,
      skipped: [...skipped].sort(),
      failed,
    };
  }

  /** The files that differ between two snapshots, by content id (mode and blob). */
  async #changes(from: string, to: string, skipped: ReadonlySet<string>): Promise<TurnChanges> {
    const fields = nulFields(await this.#git(["diff-tree", "-r", "-z", "--no-renames", "--no-commit-id", from, to]));
    const changes = new Map<string, FileChange>();
    for (let index = 0; index + 1 < fields.length; index += 2) {
      const [oldMode, newMode, oldBlob, newBlob] = fields[index]!.slice(1).split(" ");
      const path = fields[index + 1]!;
      if (skipped.has(path) || oldMode === GITLINK || newMode === GITLINK) continue;
      changes.set(path, { before: contentId(oldMode!, oldBlob!), after: contentId(newMode!, newBlob!) });
    }
    return changes;
  }

  /** Every file of a snapshot's tree by content id. */
  async #contents(tree: string): Promise<Map<string, ContentId>> {
    const entries = nulFields(await this.#git(["ls-tree", "-r", "-z", "--full-tree", tree]));
    const contents = new Map<string, ContentId>();
    for (const entry of entries) {
      const tab = entry.indexOf("\t");
      const [mode, , blob] = entry.slice(0, tab).split(" ");
      contents.set(entry.slice(tab + 1), contentId(mode!, blob!));
    }
    return contents;
  }

  /** The files a snapshot left out (over the size cap), from the list its id names. */
  async #skipped(id: string): Promise<string[]> {
    const known = this.#skippedOf.get(id);
    if (known !== undefined) return known;
    let skipped: string[] = [];
    const listId = id.split(":")[1];
    if (listId !== undefined && /^[0-9a-f]+$/.test(listId)) {
      try {
        const parsed = JSON.parse(await readFile(join(this.#skippedDir, `${listId}.json`), "utf8")) as unknown;
        if (Array.isArray(parsed)) skipped = parsed.filter((path): path is string => typeof path === "string");
      } catch {
        // A list that is gone lists nothing.
      }
    }
    this.#skippedOf.set(id, skipped);
    return skipped;
  }
}

/** What `path` is (links not followed), or undefined when it cannot be seen (gone, or a parent is not a folder). */
function lstatOrNothing(path: string): BigIntStats | undefined {
  try {
    return lstatSync(path, { bigint: true });
  } catch {
    return undefined;
  }
}

/** True when the store's repository was made with SHA-256 object ids (`extensions.objectFormat`). */
function usesSha256(gitDir: string): boolean {
  try {
    return /^\s*objectformat\s*=\s*sha256\s*$/im.test(readFileSync(join(gitDir, "config"), "utf8"));
  } catch {
    return false;
  }
}

/** The tree of a snapshot id (`<tree>` or `<tree>:<list id>`). */
function treeOf(id: string): string {
  return id.split(":")[0]!;
}

function contentId(mode: string, blob: string): ContentId {
  return /^0+$/.test(mode) ? null : `${mode}:${blob}`;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((value, index) => value === b[index]);
}

function reason(error: unknown): string {
  if (error instanceof UnsafePathError) return error.message;
  return error instanceof Error ? error.message : String(error);
}

/** `info/exclude`: the instance home (and so this store) when it lies inside the workspace. */
function excludes(workspace: string, home: string, dir: string): string {
  const lines = ["# scv's snapshot store: what is never snapshotted besides .gitignore"];
  for (const path of [home, dir]) {
    if (isInside(workspace, path) && path !== workspace) lines.push(`/${escapeGlob(relative(workspace, path))}/`);
  }
  return `${lines.join("\n")}\n`;
}

function escapeGlob(path: string): string {
  return path.replace(/[\\*?[\]!# ]/g, (char) => `\\${char}`);
}
