// The snapshot store without git: it sees only what scv's own file tools (write, edit, apply_patch) change. Before a
// tool changes a file for the first time in a turn, the file's content (or its absence) is saved; at the turn's end
// the content each such file was left with is noted. Contents live in `<store>/files/objects/<sha256>`, each turn's
// list in `<store>/files/turns/<turn id>.json`. Changes made by bash, exec cells or MCP tools are not seen.
import { createHash } from "node:crypto";
import { lstat, mkdir, readFile, readlink, rename, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { join, relative } from "node:path";
import { isInside } from "../util/path.ts";
import { type ContentId, type FileChange, planRestore } from "./plan.ts";
import type { RestoreReport, SnapshotStore, TurnSnapshots } from "./types.ts";
import { removeWorkspaceFile, writeWorkspaceFile } from "./workspace_files.ts";

const ID_PREFIX = "files:";

type Manifest = { files: Record<string, FileChange> };

export class FileToolSnapshotStore implements SnapshotStore {
  readonly coverage = "file_tools" as const;
  readonly #workspace: string;
  readonly #objects: string;
  readonly #turns: string;
  readonly #maxFileBytes: number;
  #turnId: string | undefined;
  #manifest: Manifest = { files: {} };
  /** The captures of this turn's files, so that two calls changing one file at once save its content once. */
  #captures = new Map<string, Promise<void>>();

  private constructor(dir: string, workspace: string, maxFileBytes: number) {
    this.#workspace = workspace;
    this.#objects = join(dir, "files", "objects");
    this.#turns = join(dir, "files", "turns");
    this.#maxFileBytes = maxFileBytes;
  }

  static async open(dir: string, workspace: string, maxFileBytes: number): Promise<FileToolSnapshotStore> {
    const store = new FileToolSnapshotStore(dir, workspace, maxFileBytes);
    await mkdir(store.#objects, { recursive: true, mode: 0o700 });
    await mkdir(store.#turns, { recursive: true, mode: 0o700 });
    await writeFile(join(dir, "workspace"), `${workspace}\n`, { mode: 0o600 });
    return store;
  }

  async beforeTurn(turnId: string): Promise<string> {
    this.#turnId = turnId;
    this.#manifest = { files: {} };
    this.#captures.clear();
    await this.#saveManifest(turnId);
    return `${ID_PREFIX}${turnId}`;
  }

  async afterTurn(turnId: string): Promise<string> {
    if (this.#turnId === turnId) {
      await Promise.all(this.#captures.values());
      for (const [path, change] of Object.entries(this.#manifest.files)) change.after = await this.#capture(path);
      await this.#saveManifest(turnId);
      this.#turnId = undefined;
    }
    return `${ID_PREFIX}${turnId}`;
  }

  async fileWillChange(path: string): Promise<void> {
    const turnId = this.#turnId;
    if (turnId === undefined || !isInside(this.#workspace, path)) return;
    const key = relative(this.#workspace, path).split("\\").join("/");
    let capture = this.#captures.get(key);
    if (capture === undefined) {
      capture = (async () => {
        const before = await this.#capture(key);
        // Until the turn ends, "after" stands for "whatever is there now".
        this.#manifest.files[key] = { before, after: before };
        await this.#saveManifest(turnId);
      })();
      this.#captures.set(key, capture);
    }
    await capture;
  }

  async restore(turns: readonly TurnSnapshots[], force: boolean): Promise<RestoreReport> {
    const changes = [];
    const unfinished = new Set<string>();
    for (const turn of turns) {
      const manifest = await this.#loadManifest(turn.before);
      const map = new Map<string, FileChange>();
      for (const [path, change] of Object.entries(manifest.files)) {
        if (turn.after === undefined) unfinished.add(path);
        map.set(path, change);
      }
      changes.push(map);
    }
    const current = new Map<string, ContentId>();
    for (const map of changes) {
      for (const path of map.keys()) if (!current.has(path)) current.set(path, await this.#identify(path));
    }
    // A turn that never ended left its files as they are now.
    for (const map of changes) {
      for (const [path, change] of map)
        if (unfinished.has(path)) map.set(path, { ...change, after: current.get(path)! });
    }
    const plan = planRestore(changes, (path) => current.get(path) ?? null, force);
    const restored: string[] = [];
    const failed: RestoreReport["failed"] = [];
    for (const step of plan.steps) {
      try {
        if (step.target === null) await removeWorkspaceFile(this.#workspace, step.path);
        else {
          const [mode, hash] = step.target.split(":");
          const bytes = await readFile(join(this.#objects, hash!));
          await writeWorkspaceFile(this.#workspace, step.path, bytes, Number.parseInt(mode!, 8));
        }
        restored.push(step.path);
      } catch (error) {
        failed.push({ path: step.path, reason: error instanceof Error ? error.message : String(error) });
      }
    }
    return { restored, conflicts: plan.conflicts, skipped: [], failed };
  }

  /** The file's content id now, saving its content as an object. Files over the cap are not kept. */
  async #capture(path: string): Promise<ContentId> {
    const read = await this.#read(path);
    if (read === undefined) return null;
    const id = `${read.mode.toString(8)}:${sha256(read.bytes)}`;
    const object = join(this.#objects, id.split(":")[1]!);
    if (!existsSync(object)) {
      const temporary = `${object}.${process.pid}.tmp`;
      await writeFile(temporary, read.bytes, { mode: 0o600 });
      await rename(temporary, object);
    }
    return id;
  }

  /** The file's content id now, without saving anything. */
  async #identify(path: string): Promise<ContentId> {
    const read = await this.#read(path);
    return read === undefined ? null : `${read.mode.toString(8)}:${sha256(read.bytes)}`;
  }

  async #read(path: string): Promise<{ bytes: Buffer; mode: number } | undefined> {
    const target = join(this.#workspace, path);
    const info = await lstat(target).catch(() => undefined);
    if (info === undefined || info.isDirectory()) return undefined;
    if (info.isSymbolicLink()) return { bytes: Buffer.from(await readlink(target), "utf8"), mode: 0o120000 };
    if (!info.isFile() || info.size > this.#maxFileBytes) return undefined;
    return { bytes: await readFile(target), mode: 0o100000 | (info.mode & 0o777) };
  }

  async #saveManifest(turnId: string): Promise<void> {
    const path = join(this.#turns, `${safeName(turnId)}.json`);
    const temporary = `${path}.${process.pid}.tmp`;
    await writeFile(temporary, JSON.stringify(this.#manifest), { mode: 0o600 });
    await rename(temporary, path);
  }

  async #loadManifest(id: string): Promise<Manifest> {
    if (!id.startsWith(ID_PREFIX)) return { files: {} };
    try {
      const parsed = JSON.parse(
        await readFile(join(this.#turns, `${safeName(id.slice(ID_PREFIX.length))}.json`), "utf8"),
      );
      return typeof parsed === "object" && parsed !== null && typeof parsed.files === "object"
        ? parsed as Manifest
        : { files: {} };
    } catch {
      return { files: {} };
    }
  }
}

function sha256(bytes: Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** Turn ids are UUIDs; anything else cannot name a file outside the folder. */
function safeName(id: string): string {
  return id.replace(/[^A-Za-z0-9-]/g, "_");
}
