// A session's turns as undo and rewind see them: the history before each turn, and the workspace snapshots before
// and after it (lib/snapshots). `rewind` takes the conversation back to before a turn, restores the files the turns
// from it on changed, or both (docs/sessions.md#undo-and-rewind).
import type { HistoryItem } from "../provider/index.ts";
import { type Coverage, openSnapshots, type RestoreReport, type SnapshotStore } from "../snapshots/index.ts";
import type { StoredTurn } from "../sessions/index.ts";
import type { Logger } from "../util/log.ts";
import type { SessionParts } from "./session_start.ts";

export type RestoreMode = "code" | "conversation" | "both";

export const REWIND_MESSAGES = {
  nothingToUndo: "there is no turn to undo",
  turnNotInConversation: "the turn was not found in this session's conversation (it may have been cleared or rewound)",
  badRestore: 'restore must be one of "code", "conversation", "both"',
  fileToolsOnly:
    "git is not installed, so snapshots cover only what scv's file tools (write, edit, apply_patch) changed; " +
    "changes made by bash, exec cells and MCP tools were not undone",
  snapshotsOff: "snapshots are off ([snapshots] enabled = false), so no file was restored",
  snapshotsUnavailable: "the snapshot store could not be opened, so no file was restored",
} as const;

export type Rewound = {
  turn_id: string;
  /** The rewound turns, oldest first. */
  turns: string[];
  restore: RestoreMode;
  /** The history to continue from (a conversation rewind), else undefined. */
  history?: readonly HistoryItem[];
  /** What the file restore did (a code rewind). */
  files?: RestoreReport;
  coverage: Coverage | "none";
  /** Said to the user: a restore that could not cover everything, and why. */
  notices: string[];
  /** A code rewind put every file back (no conflict left, nothing failed): its turns are done with. */
  complete?: boolean;
};

export class Checkpoints {
  readonly #parts: SessionParts;
  readonly #sessionId: string;
  readonly #log: Logger;
  #turns: StoredTurn[];
  #store: Promise<SnapshotStore | undefined> | undefined;
  #storeFailed = false;

  constructor(parts: SessionParts, sessionId: string, log: Logger, stored: readonly StoredTurn[] = []) {
    this.#parts = parts;
    this.#sessionId = sessionId;
    this.#log = log;
    this.#turns = stored.map((turn) => ({ ...turn, ...(turn.snapshots ? { snapshots: { ...turn.snapshots } } : {}) }));
  }

  /** The turns of the conversation, oldest first. */
  get turns(): readonly StoredTurn[] {
    return this.#turns;
  }

  /** A turn begins from `history`: snapshots the workspace; resolves with the snapshot's id (undefined: none). */
  async beginTurn(turnId: string, history: readonly HistoryItem[]): Promise<string | undefined> {
    const turn: StoredTurn = { turn_id: turnId, history, code_rewound: false };
    this.#turns.push(turn);
    const before = await this.#snapshot((store) => store.beforeTurn(turnId));
    if (before !== undefined) turn.snapshots = { before };
    return before;
  }

  /** The turn ended: snapshots the workspace again; resolves with the snapshot's id. */
  async endTurn(turnId: string): Promise<string | undefined> {
    const turn = this.#turns.findLast((candidate) => candidate.turn_id === turnId);
    if (turn?.snapshots === undefined) return undefined;
    const after = await this.#snapshot((store) => store.afterTurn(turnId));
    if (after !== undefined) turn.snapshots.after = after;
    return after;
  }

  /** For the file tools: the store without git keeps the file's content before it changes. */
  async fileWillChange(path: string): Promise<void> {
    const store = await this.#store;
    await store?.fileWillChange(path).catch((error: unknown) => this.#log.warn(`snapshot ${path}: ${String(error)}`));
  }

  /** `session.clear`: the conversation's turns are gone, and with them what could be rewound. */
  clear(): void {
    this.#turns = [];
  }

  /** The turn `undo` takes back: the conversation's last. */
  lastTurn(): string | undefined {
    return this.#turns.at(-1)?.turn_id;
  }

  /** Rewinds to before `turnId`; undefined when the conversation holds no such turn. */
  async rewind(turnId: string, restore: RestoreMode, force: boolean): Promise<Rewound | undefined> {
    const index = this.#turns.findIndex((turn) => turn.turn_id === turnId);
    if (index < 0) return undefined;
    const rewound = this.#turns.slice(index);
    const result: Rewound = {
      turn_id: turnId,
      turns: rewound.map((turn) => turn.turn_id),
      restore,
      coverage: "none",
      notices: [],
    };
    if (restore !== "conversation") await this.#restoreFiles(index, force, result);
    if (restore === "code") {
      // Turns whose files are all back are done with; with conflicts left, a forced rewind may still take them.
      const files = result.files;
      result.complete = files !== undefined && files.failed.length === 0 &&
        files.conflicts.every((path) => files.restored.includes(path));
      if (result.complete) { for (const turn of rewound) turn.code_rewound = true; }
    } else {
      result.history = this.#turns[index]!.history;
      this.#turns = this.#turns.slice(0, index);
    }
    return result;
  }

  async #restoreFiles(index: number, force: boolean, result: Rewound): Promise<void> {
    if (!this.#parts.config.snapshots.enabled) {
      result.notices.push(REWIND_MESSAGES.snapshotsOff);
      return;
    }
    const store = await this.#open();
    if (store === undefined) {
      result.notices.push(REWIND_MESSAGES.snapshotsUnavailable);
      return;
    }
    result.coverage = store.coverage;
    if (store.coverage === "file_tools") result.notices.push(REWIND_MESSAGES.fileToolsOnly);
    const snapshots = [];
    let unsnapshotted = 0;
    for (let position = index; position < this.#turns.length; position += 1) {
      const turn = this.#turns[position]!;
      if (turn.code_rewound) continue;
      if (turn.snapshots === undefined) {
        unsnapshotted += 1;
        continue;
      }
      // A turn that never ended (the process was killed) ends where the next one began.
      const after = turn.snapshots.after ?? this.#turns[position + 1]?.snapshots?.before;
      snapshots.push({ before: turn.snapshots.before, ...(after === undefined ? {} : { after }) });
    }
    if (unsnapshotted > 0) {
      result.notices.push(
        `${unsnapshotted} of the rewound turns had no snapshot (taken before snapshots were on), so their changes stay`,
      );
    }
    if (snapshots.length === 0) {
      result.files = { restored: [], conflicts: [], skipped: [], failed: [] };
      return;
    }
    result.files = await store.restore(snapshots, force);
  }

  #open(): Promise<SnapshotStore | undefined> {
    if (!this.#parts.config.snapshots.enabled) return Promise.resolve(undefined);
    this.#store ??= openSnapshots({
      home: this.#parts.home,
      workspace: this.#parts.workspace,
      sessionId: this.#sessionId,
      maxFileBytes: this.#parts.config.snapshots.max_file_bytes,
      maxFiles: this.#parts.config.snapshots.max_files,
      env: this.#parts.env,
    }).catch((error: unknown) => {
      this.#log.warn(`open the snapshot store: ${error instanceof Error ? error.message : String(error)}`);
      this.#storeFailed = true;
      return undefined;
    });
    return this.#store;
  }

  // A snapshot that fails costs the turn its undo, never the turn itself.
  async #snapshot(take: (store: SnapshotStore) => Promise<string>): Promise<string | undefined> {
    const store = await this.#open();
    if (store === undefined) return undefined;
    try {
      return await take(store);
    } catch (error) {
      if (!this.#storeFailed)
        this.#log.warn(`snapshot the workspace: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    }
  }
}
