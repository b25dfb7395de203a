// Reads a journal back: the header, the history a resume continues from, and the turns a client redraws. Never
// throws on a damaged file: a torn last line is dropped (the intact prefix is kept, and `warnings` says so), other
// unreadable lines are skipped and counted.
import { readFileSync } from "node:fs";
import type { HistoryItem, Usage } from "../provider/index.ts";
import { addSpending, emptyTotals, type SpendingTotals } from "../pricing/index.ts";
import { type HeaderRecord, type SessionMeta, titleOf } from "./records.ts";

export type ReplayTurn = {
  turn_id: string;
  prompt: string;
  /** The assistant's text of the turn (its responses joined), "" when none. */
  answer: string;
  tools: {
    name: string;
    success: boolean;
    /** The call's id, its arguments (left out when large) and its output (cut): enough for a client to redraw it. */
    call_id?: string;
    arguments?: unknown;
    output?: string;
  }[];
  status: "completed" | "failed" | "cancelled" | "interrupted";
};

/** A turn of the conversation as undo and rewind need it. */
export type StoredTurn = {
  turn_id: string;
  /** The history before the turn: what a conversation rewind to it goes back to. */
  history: readonly HistoryItem[];
  /** The workspace snapshots before and after the turn, when they were taken. */
  snapshots?: { before: string; after?: string };
  /** Its file changes were restored already (a code-only rewind); the conversation still holds it. */
  code_rewound: boolean;
};

export type JournalContents = {
  meta: SessionMeta;
  history: HistoryItem[];
  /** Turns since the last clear (and not rewound from the conversation), oldest first. */
  turns: ReplayTurn[];
  /** The same turns, for undo and rewind. */
  stored: StoredTurn[];
  /** Everything the session's turns and compactions spent. */
  totals: SpendingTotals;
  /** Turns started over the whole session (the index's count). */
  turnCount: number;
  title: string;
  warnings: string[];
};

export type JournalReadResult = { ok: true; journal: JournalContents } | {
  ok: false;
  reason: "missing" | "damaged";
  message: string;
};

function isItem(value: unknown): value is HistoryItem {
  if (typeof value !== "object" || value === null) return false;
  const item = value as Record<string, unknown>;
  switch (item.kind) {
    case "user":
      return typeof item.content === "string";
    case "assistant":
      return typeof item.content === "string" && Array.isArray(item.calls);
    case "tool_result":
      return typeof item.call_id === "string" && typeof item.name === "string" && typeof item.output === "string";
    default:
      return false;
  }
}

function isHeader(value: unknown): value is HeaderRecord {
  const header = value as Partial<HeaderRecord> | null;
  return (
    typeof header === "object" && header !== null && header.type === "session" && typeof header.id === "string" &&
    typeof header.workspace === "string" && typeof header.model === "string"
  );
}

export function readJournal(path: string): JournalReadResult {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { ok: false, reason: "missing", message: "no such journal" };
    return { ok: false, reason: "damaged", message: error instanceof Error ? error.message : String(error) };
  }
  return parseJournal(text);
}

export function parseJournal(text: string): JournalReadResult {
  const warnings: string[] = [];
  const lines = text.split("\n");
  // The part after the last newline is a line whose writer was killed before finishing it.
  const tail = lines.pop() ?? "";
  if (tail.trim() !== "") warnings.push("the journal's last line was torn; the intact part before it was recovered");
  let header: HeaderRecord | undefined;
  let history: HistoryItem[] = [];
  let turns: ReplayTurn[] = [];
  let stored: StoredTurn[] = [];
  const totals = emptyTotals();
  let turnCount = 0;
  let title = "";
  let skipped = 0;
  let configured: { model: string; policy: string } | undefined;
  const open = new Map<string, ReplayTurn>();
  for (const line of lines) {
    if (line.trim() === "") continue;
    let record: Record<string, unknown>;
    try {
      record = JSON.parse(line) as Record<string, unknown>;
      if (typeof record !== "object" || record === null || Array.isArray(record)) throw new Error("not an object");
    } catch {
      skipped += 1;
      continue;
    }
    if (header === undefined) {
      if (!isHeader(record))
        return { ok: false, reason: "damaged", message: "the journal does not start with a session header" };
      header = record;
      continue;
    }
    switch (record.type) {
      case "turn.started": {
        if (typeof record.turn_id !== "string" || typeof record.prompt !== "string") break;
        turnCount += 1;
        if (title === "") title = titleOf(record.prompt);
        const turn: ReplayTurn = {
          turn_id: record.turn_id,
          prompt: record.prompt,
          answer: "",
          tools: [],
          status: "interrupted",
        };
        open.set(record.turn_id, turn);
        turns.push(turn);
        stored.push({
          turn_id: record.turn_id,
          history,
          ...(typeof record.snapshot === "string" ? { snapshots: { before: record.snapshot } } : {}),
          code_rewound: false,
        });
        break;
      }
      case "turn.completed": {
        const items = Array.isArray(record.items) ? record.items.filter(isItem) : [];
        if (items.length === 0 || typeof record.turn_id !== "string") {
          skipped += 1;
          break;
        }
        addRecordSpending(totals, record);
        noteSnapshotAfter(stored, record);
        const drop = typeof record.drop === "number" && record.drop > 0 ? record.drop : 0;
        const note = isItem(record.note) ? [record.note] : [];
        history = [...(drop > 0 ? note : []), ...history.slice(drop), ...items];
        const turn = open.get(record.turn_id);
        if (turn) {
          turn.status = "completed";
          turn.answer = items
            .flatMap((item) => (item.kind === "assistant" && item.content !== "" ? [item.content] : []))
            .join("\n\n");
          const calls = new Map(
            items.flatMap((item) => (item.kind === "assistant" ? item.calls : [])).map((call) => [call.call_id, call]),
          );
          turn.tools = items.flatMap((item) =>
            item.kind === "tool_result"
              ? [{
                name: item.name,
                success: item.success,
                call_id: item.call_id,
                ...(calls.has(item.call_id) ? { arguments: calls.get(item.call_id)!.arguments } : {}),
                output: item.output,
              }]
              : []
          );
          open.delete(record.turn_id);
        }
        break;
      }
      case "turn.ended": {
        addRecordSpending(totals, record);
        noteSnapshotAfter(stored, record);
        const turn = typeof record.turn_id === "string" ? open.get(record.turn_id) : undefined;
        if (turn && (record.status === "failed" || record.status === "cancelled")) turn.status = record.status;
        if (typeof record.turn_id === "string") open.delete(record.turn_id);
        break;
      }
      case "configured":
        if (typeof record.model === "string" && typeof record.policy === "string") {
          configured = { model: record.model, policy: record.policy };
        }
        break;
      case "cleared":
        history = [];
        turns = [];
        stored = [];
        open.clear();
        break;
      case "compacted": {
        addRecordSpending(totals, record);
        const drop = typeof record.drop === "number" && record.drop >= 0 ? record.drop : undefined;
        if (drop === undefined || !isItem(record.summary)) {
          skipped += 1;
          break;
        }
        history = [record.summary, ...history.slice(drop)];
        break;
      }
      case "rewound": {
        const index = stored.findIndex((turn) => turn.turn_id === record.turn_id);
        if (index < 0) break;
        const restore = record.restore;
        if (restore === "conversation" || restore === "both") {
          history = [...stored[index]!.history];
          for (const turn of turns.slice(index)) open.delete(turn.turn_id);
          stored = stored.slice(0, index);
          turns = turns.slice(0, index);
        } else if (restore === "code" && record.complete !== false) {
          for (const turn of stored.slice(index)) turn.code_rewound = true;
        }
        break;
      }
      default:
        // A record of a later version: ignored, not an error.
        break;
    }
  }
  if (header === undefined)
    return { ok: false, reason: "damaged", message: "the journal has no intact session header" };
  if (skipped > 0) warnings.push(`${skipped} damaged journal line${skipped === 1 ? " was" : "s were"} skipped`);
  const meta: SessionMeta = {
    id: header.id,
    created_at: typeof header.created_at === "string" ? header.created_at : "",
    workspace: header.workspace,
    model: configured?.model ?? header.model,
    policy: configured?.policy ?? (typeof header.policy === "string" ? header.policy : ""),
    ...(typeof header.profile === "string" ? { profile: header.profile } : {}),
    ...(typeof header.forked_from === "string" ? { forked_from: header.forked_from } : {}),
  };
  return { ok: true, journal: { meta, history, turns, stored, totals, turnCount, title, warnings } };
}

function addRecordSpending(totals: SpendingTotals, record: Record<string, unknown>): void {
  const usage = typeof record.usage === "object" && record.usage !== null && !Array.isArray(record.usage)
    ? record.usage as Usage
    : undefined;
  if (usage === undefined) return;
  const cost = typeof record.cost_usd === "number" && Number.isFinite(record.cost_usd) ? record.cost_usd : null;
  addSpending(totals, usage, cost);
}

function noteSnapshotAfter(stored: StoredTurn[], record: Record<string, unknown>): void {
  if (typeof record.snapshot !== "string") return;
  const turn = stored.findLast((candidate) => candidate.turn_id === record.turn_id);
  if (turn?.snapshots !== undefined) turn.snapshots.after = record.snapshot;
}
