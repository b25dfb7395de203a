// A snapshot's few changes stored in this process: the changed files' blobs, the trees above them and the index,
// all in git's formats, so that a snapshot with changes runs one git process (the `ls-files` that found them)
// instead of three (measured: 100 changed files of 10,000, update-index and write-tree were 75–85 ms of CPU out of
// 140; each starts, maps and parses the whole 1 MB index). Large batches still go to git, which packs them.
import {
  type BigIntStats,
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readFileSync,
  readlinkSync,
} from "node:fs";
import { join } from "node:path";
import { replaceFileSync } from "../util/replace_file.ts";
import {
  entryFromStats,
  type IndexEntry,
  type IndexFile,
  parseIndex,
  patchIndex,
  serializeIndex,
  UnsupportedIndexError,
} from "./git_index.ts";
import { buildTrees, foldersAbove, PackBuilder } from "./git_objects.ts";

/** A file to store, with what lstat said of it when it was listed. */
export type Addition = { path: string; stats: BigIntStats };

/** The snapshot's tree; what was left out after all; whether a pack was written. */
export type Stored = { tree: string; dropped: string[]; skipped: string[]; packed: boolean };

/** The index's entries in order, where each name is, and the file as this process last wrote it (none when read). */
type IndexState = { entries: IndexEntry[]; positions: Map<string, number>; file?: IndexFile };

const REGULAR = 0o100644;
const EXECUTABLE = 0o100755;
const SYMLINK = 0o120000;
// O_NOFOLLOW: a file swapped for a link after it was listed is not followed out of the workspace. O_NONBLOCK: a file
// swapped for a FIFO opens at once (and is then seen not to be a file) instead of waiting for a writer forever.
const READ_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
/** Errors that mean the path is gone or is no longer a file of the workspace: for the snapshot, it is deleted. */
const GONE = new Set(["ENOENT", "ENOTDIR", "ELOOP", "EISDIR"]);

export class IndexWriter {
  readonly #indexFile: string;
  readonly #workspace: string;
  readonly #maxFileBytes: number;
  readonly #objectsDir: string;
  /** The index as this process last wrote it, while the file is still that one. */
  #state: IndexState | undefined;
  #writtenStamp = "";
  /** Folder → tree id, for the entries above. */
  readonly #trees = new Map<string, Buffer>();

  readonly #now: () => number;

  constructor(
    options: { gitDir: string; indexFile: string; workspace: string; maxFileBytes: number; now: () => number },
  ) {
    this.#now = options.now;
    this.#indexFile = options.indexFile;
    this.#workspace = options.workspace;
    this.#maxFileBytes = options.maxFileBytes;
    this.#objectsDir = join(options.gitDir, "objects");
  }

  /** git changed the index (a checkout, a large batch): what this process knew of it is stale. */
  forget(): void {
    this.#state = undefined;
    this.#trees.clear();
  }

  /**
   * Applies the listed changes to the index and writes the snapshot's tree; undefined when the index is one this
   * code does not write (git then does the work). Files that are gone or over the size cap by the time they are
   * read are left out, as git leaves out what it cannot see.
   */
  store(additions: readonly Addition[], removals: readonly string[]): Stored | undefined {
    const current = this.#load();
    if (current === undefined) return undefined;
    const { entries, positions } = current;
    const changed = new Set<string>();
    const dropped: string[] = [];
    const skipped: string[] = [];
    const pack = new PackBuilder();
    // Changes by kind: an entry replaced in place keeps the order; a new or removed name changes it.
    const replaced = new Map<number, IndexEntry>();
    const added = new Map<string, IndexEntry>();
    const removed = new Set<string>();
    const remove = (name: string) => {
      const position = positions.get(name);
      if (position !== undefined) {
        removed.add(name);
        replaced.delete(position);
      }
      added.delete(name);
      foldersAbove(name, changed);
    };
    for (const path of removals) remove(nameOf(path));
    for (const { path, stats } of additions) {
      const name = nameOf(path);
      const entry = this.#entryFor(path, name, stats, pack);
      if (entry === "gone" || entry === "too large") {
        dropped.push(path);
        if (entry === "too large") skipped.push(path);
        remove(name);
        continue;
      }
      // A file where a folder was, or the reverse: what stood in its way leaves the index (as `--replace` does).
      for (let slash = name.indexOf("/"); slash > 0; slash = name.indexOf("/", slash + 1)) remove(name.slice(0, slash));
      const position = positions.get(name);
      if (position === undefined) added.set(name, entry);
      else {
        removed.delete(name);
        replaced.set(position, entry);
      }
      foldersAbove(name, changed);
    }
    const now = Math.floor(this.#now() / 1000);
    let next: IndexState & { file: IndexFile };
    if (added.size === 0 && removed.size === 0) {
      const kept = entries.slice();
      for (const [position, entry] of replaced) kept[position] = entry;
      const file = current.file === undefined
        ? serializeIndex(kept, now)
        : patchIndex(current.file, kept, replaced.keys(), now);
      next = { entries: kept, positions, file };
    } else {
      let kept: IndexEntry[] = [];
      entries.forEach((entry, position) => {
        if (!removed.has(entry.name)) kept.push(replaced.get(position) ?? entry);
      });
      if (added.size > 0) {
        // The files of a folder that a new file replaced.
        kept = kept.filter((entry) => !underAnyOf(entry.name, added));
        kept.push(...added.values());
        kept.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      }
      const positions = new Map(kept.map((entry, position) => [entry.name, position]));
      next = { entries: kept, positions, file: serializeIndex(kept, now) };
    }
    const tree = buildTrees(pack, next.entries, this.#trees, changed).toString("hex");
    // The objects before the index that names them.
    const packed = pack.count > 0;
    pack.write(this.#objectsDir);
    this.#write(next);
    return { tree, dropped, skipped, packed };
  }

  /** The index: as this process last wrote it while the file is unchanged, else read from the file. */
  #load(): IndexState | undefined {
    const stamp = stampOf(this.#indexFile);
    if (this.#state !== undefined && stamp === this.#writtenStamp) return this.#state;
    this.forget();
    let entries: IndexEntry[] = [];
    if (stamp !== "") {
      try {
        entries = parseIndex(readFileSync(this.#indexFile));
      } catch (error) {
        if (error instanceof UnsupportedIndexError) return undefined;
        throw error;
      }
    }
    return { entries, positions: new Map(entries.map((entry, position) => [entry.name, position])) };
  }

  /** The index entry of a listed file, its blob stored; or why it has none. */
  #entryFor(path: string, name: string, listed: BigIntStats, pack: PackBuilder): IndexEntry | "gone" | "too large" {
    const full = join(this.#workspace, path);
    try {
      if (listed.isSymbolicLink()) {
        const stats = lstatSync(full, { bigint: true });
        if (!stats.isSymbolicLink()) return "gone";
        // Deno hands back a Uint8Array for a "buffer" encoding.
        const target = Buffer.from(readlinkSync(full, { encoding: "buffer" }));
        return entryFromStats(name, stats, SYMLINK, target.length, pack.add("blob", target));
      }
      const fd = openSync(full, READ_FLAGS);
      try {
        // The stat data comes before the content: a change while it is read leaves the entry looking changed.
        const stats = fstatSync(fd, { bigint: true });
        if (!stats.isFile()) return "gone";
        if (stats.size > BigInt(this.#maxFileBytes)) return "too large";
        const content = readFileSync(fd);
        if (content.length > this.#maxFileBytes) return "too large";
        const mode = (stats.mode & 0o100n) === 0n ? REGULAR : EXECUTABLE;
        return entryFromStats(name, stats, mode, content.length, pack.add("blob", content));
      } finally {
        closeSync(fd);
      }
    } catch (error) {
      if (GONE.has((error as NodeJS.ErrnoException).code ?? "")) return "gone";
      throw error;
    }
  }

  #write(state: IndexState & { file: IndexFile }): void {
    replaceFileSync(this.#indexFile, state.file.data, 0o600);
    this.#state = state;
    this.#writtenStamp = stampOf(this.#indexFile);
  }
}

/** A path from git's output as an index name: its UTF-8 bytes, one latin1 character each. */
function nameOf(path: string): string {
  return Buffer.from(path, "utf8").toString("latin1");
}

function underAnyOf(name: string, files: ReadonlyMap<string, unknown>): boolean {
  for (let slash = name.lastIndexOf("/"); slash > 0; slash = name.lastIndexOf("/", slash - 1)) {
    if (files.has(name.slice(0, slash))) return true;
  }
  return false;
}

/** Identifies one version of a file (inode, size, change time); "" when there is none. */
function stampOf(path: string): string {
  try {
    const stats = lstatSync(path, { bigint: true });
    return `${stats.ino}:${stats.size}:${stats.ctimeNs}`;
  } catch {
    return "";
  }
}
