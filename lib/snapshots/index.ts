// Checkpoints of the workspace for undo and rewind (docs/sessions.md#undo-and-rewind): a private snapshot store per
// workspace under `<home>/snapshots/<workspace id>/`. With git installed, a git directory of scv's own snapshots the
// whole workspace (every writer: file tools, bash, exec cells, MCP tools); without git, only scv's file tools'
// changes are kept.
import { createHash } from "node:crypto";
import { join } from "node:path";
import { GitMissingError } from "./git.ts";
import { GitSnapshotStore } from "./git_store.ts";
import { FileToolSnapshotStore } from "./file_store.ts";
import type { SnapshotStore } from "./types.ts";

export {
  type Coverage,
  type RestoreReport,
  SnapshotLimitError,
  type SnapshotStore,
  type TurnSnapshots,
} from "./types.ts";
export { type ContentId, planRestore, type RestorePlan, type TurnChanges } from "./plan.ts";

export type SnapshotOptions = {
  home: string;
  /** The canonical workspace. */
  workspace: string;
  sessionId: string;
  /** Files larger than this are left out of snapshots (and never restored). */
  maxFileBytes: number;
  /** A snapshot that would store more files than this is refused (SnapshotLimitError). */
  maxFiles: number;
  /** A git command of the store that runs longer is killed and fails (a hostile .gitignore can make git spin). */
  timeoutMs: number;
  env: Record<string, string | undefined>;
  /** The wall clock in milliseconds (Date.now unless a test fakes it). */
  now?: () => number;
};

/** `<home>/snapshots/<workspace id>`: the id is a hash of the canonical workspace path. */
export function snapshotStoreDir(home: string, workspace: string): string {
  const id = createHash("sha256").update(workspace).digest("hex").slice(0, 32);
  return join(home, "snapshots", id);
}

/** The workspace's store: git's when git runs here, else the file tools' store. */
export async function openSnapshots(options: SnapshotOptions): Promise<SnapshotStore> {
  const dir = snapshotStoreDir(options.home, options.workspace);
  try {
    return await GitSnapshotStore.open({ ...options, dir });
  } catch (error) {
    if (!(error instanceof GitMissingError)) throw error;
    return await FileToolSnapshotStore.open(dir, options.workspace, options.maxFileBytes);
  }
}
