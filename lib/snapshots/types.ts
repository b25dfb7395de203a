// What a snapshot store offers the session (lib/server): a snapshot of the workspace before and after each turn,
// and a restore of what rewound turns changed.

/**
 * What the snapshots cover: `workspace` (every file outside .gitignore and under the size cap, whoever wrote it:
 * the git store) or `file_tools` (only what scv's write, edit and apply_patch changed: no git on the machine).
 */
export type Coverage = "workspace" | "file_tools";

/** A turn's snapshots as the journal keeps them: the store's ids of the state before and after the turn. */
export type TurnSnapshots = {
  before: string;
  /** Absent when the turn never ended (the process was killed): the next turn's `before`, or the current state. */
  after?: string;
};

export type RestoreReport = {
  /** Files put back as they were (created files removed), workspace-relative, sorted. */
  restored: string[];
  /** Files changed since by someone else, left alone (unless forced, then also in `restored`). */
  conflicts: string[];
  /** Files the snapshots did not cover (over the size cap, nested repositories), so a rewind cannot touch them. */
  skipped: string[];
  /** Files that could not be restored, with the reason (a path now beyond a symbolic link, a directory, …). */
  failed: Array<{ path: string; reason: string }>;
};

/** A snapshot would have to store more files than `snapshots.max_files`: it is not taken. */
export class SnapshotLimitError extends Error {
  override name = "SnapshotLimitError";
}

export interface SnapshotStore {
  readonly coverage: Coverage;
  /** Snapshots the workspace before a turn; resolves with the snapshot's id. */
  beforeTurn(turnId: string): Promise<string>;
  /** Snapshots the workspace after a turn; resolves with the snapshot's id. */
  afterTurn(turnId: string): Promise<string>;
  /** scv's own file tools call this before they change `path` (absolute, inside the workspace). */
  fileWillChange(path: string): Promise<void>;
  /**
   * Restores the files the given turns (oldest first, consecutive in the session's history apart from turns already
   * rewound) changed, to their content before the first of them that changed each; files changed since by someone
   * else are conflicts, left alone unless `force`.
   */
  restore(turns: readonly TurnSnapshots[], force: boolean): Promise<RestoreReport>;
}
