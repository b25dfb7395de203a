// The journal's records (docs/sessions.md): one JSON object per line, the header first.
import type { HistoryItem, Usage } from "../provider/index.ts";

export const JOURNAL_VERSION = 1;

/** What a resume needs besides the history; never a credential. */
export type SessionMeta = {
  id: string;
  created_at: string;
  workspace: string;
  model: string;
  /** The `[providers.NAME]` profile the session was started with, when one was named. */
  profile?: string;
  policy: string;
  forked_from?: string;
};

export type HeaderRecord = { type: "session"; v: number } & SessionMeta;
/** `snapshot`: the id of the workspace snapshot taken before the turn (undo and rewind restore from it). */
export type TurnStartedRecord = {
  type: "turn.started";
  at: string;
  turn_id: string;
  prompt: string;
  snapshot?: string;
};
/** What a turn or a compaction spent: the provider's token counts and their price (null: the price is unknown). */
export type Spending = { usage?: Usage; cost_usd?: number | null };
/**
 * A completed turn: `items` are the turn's own history items (its prompt first). When the session was trimmed
 * after it, `drop` older items were removed from the front and `note` (if any) put in their place. `snapshot`: the
 * id of the workspace snapshot taken after the turn.
 */
export type TurnCompletedRecord = Spending & {
  type: "turn.completed";
  at: string;
  turn_id: string;
  items: HistoryItem[];
  drop?: number;
  note?: HistoryItem;
  snapshot?: string;
};
export type TurnEndedRecord = Spending & {
  type: "turn.ended";
  at: string;
  turn_id: string;
  status: "failed" | "cancelled";
  code?: string;
  message?: string;
  snapshot?: string;
};
export type ClearedRecord = { type: "cleared"; at: string };
/** `session.configure` changed the model or approval policy (a resume continues with the model). */
export type ConfiguredRecord = { type: "configured"; at: string; model: string; policy: string };
/**
 * The model summarised the history (or, when that failed, a deterministic note stands for it): the first `drop`
 * items were replaced by `summary`.
 */
export type CompactedRecord = Spending & {
  type: "compacted";
  at: string;
  drop: number;
  summary: HistoryItem;
  method: "model" | "note";
  turn_id?: string;
};
/**
 * `session.undo` / `session.rewind`: `turns` (the rewound turns, oldest first, starting with `turn_id`) went back.
 * `conversation`/`both`: they left the history, which is again what it was before `turn_id`; `code`: their file
 * changes were restored (the conversation keeps them).
 */
export type RewoundRecord = {
  type: "rewound";
  at: string;
  turn_id: string;
  restore: "code" | "conversation" | "both";
  turns: string[];
  /** A code rewind that put every file back; with conflicts left (false) its turns may be rewound again. */
  complete?: boolean;
};

export type JournalRecord =
  | HeaderRecord
  | TurnStartedRecord
  | TurnCompletedRecord
  | TurnEndedRecord
  | ClearedRecord
  | ConfiguredRecord
  | CompactedRecord
  | RewoundRecord;

const TITLE_CHARS = 80;

/** A session's title: its first prompt on one line, without control characters, cut to 80 characters. */
export function titleOf(prompt: string): string {
  // deno-lint-ignore no-control-regex
  const flat = prompt.replace(/[\u0000-\u001f\u007f-\u009f]+/g, " ").replace(/\s+/g, " ").trim();
  const chars = Array.from(flat);
  return chars.length <= TITLE_CHARS ? flat : `${chars.slice(0, TITLE_CHARS - 1).join("")}…`;
}
