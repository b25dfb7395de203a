// The sessions of one instance home: list (from the index), load, fork, delete and prune. Every operation that
// names an id checks it is a session id first, so no request can reach a file outside the sessions folder.
import { randomUUID } from "node:crypto";
import { closeSync, existsSync, fchmodSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import { ensureSessionsDir, journalPath, validSessionId } from "./paths.ts";
import { appendIndexEntry, type IndexEntry, readIndex } from "./index_file.ts";
import { type JournalContents, readJournal } from "./read.ts";
import { JOURNAL_VERSION, titleOf } from "./records.ts";
import { encodeRecord } from "./redact.ts";
import { now } from "./journal.ts";

export type SessionSummary = IndexEntry;

export class SessionNotFoundError extends Error {
  override name = "SessionNotFoundError";
  constructor(id: string) {
    super(`session ${id} was not found`);
  }
}

/** Sessions newest first (by last change); only those in `cwd` unless it is undefined. */
export function listSessions(home: string, cwd?: string): SessionSummary[] {
  const entries = [...readIndex(home).entries.values()];
  const chosen = cwd === undefined ? entries : entries.filter((entry) => entry.cwd === cwd);
  return chosen.sort((a, b) => (a.updated_at < b.updated_at ? 1 : a.updated_at > b.updated_at ? -1 : 0));
}

/** The journal of session `id`, or SessionNotFoundError (a bad id, a missing or unreadable journal). */
export function loadSession(home: string, id: string): JournalContents {
  if (!validSessionId(id)) throw new SessionNotFoundError(id);
  const result = readJournal(journalPath(home, id));
  if (!result.ok) {
    if (result.reason === "missing") throw new SessionNotFoundError(id);
    throw new Error(`session ${id} cannot be read: ${result.message}`);
  }
  return result.journal;
}

/** Removes a session's journal and its index entry. */
export function deleteSession(home: string, id: string): void {
  if (!validSessionId(id)) throw new SessionNotFoundError(id);
  const path = journalPath(home, id);
  if (!existsSync(path)) throw new SessionNotFoundError(id);
  unlinkSync(path);
  appendIndexEntry(home, { id, deleted: true });
}

/**
 * A new session with the records of `id` (its intact lines, under a new header naming the original), the original
 * untouched. Returns the new id.
 */
export function forkSession(home: string, id: string): string {
  const source = loadSession(home, id);
  const text = readFileSync(journalPath(home, id), "utf8");
  const body = text.slice(text.indexOf("\n") + 1, text.lastIndexOf("\n") + 1);
  const newId = randomUUID();
  ensureSessionsDir(home);
  const at = now();
  const meta = { ...source.meta, id: newId, created_at: at, forked_from: id };
  const fd = openSync(journalPath(home, newId), "wx", 0o600);
  try {
    fchmodSync(fd, 0o600);
    // The copied records were redacted when they were first written.
    writeSync(fd, encodeRecord({ type: "session", v: JOURNAL_VERSION, ...meta }) + body);
  } finally {
    closeSync(fd);
  }
  appendIndexEntry(home, {
    id: newId,
    cwd: meta.workspace,
    created_at: at,
    updated_at: at,
    title: titleOf(source.title),
    turns: source.turnCount,
    model: meta.model,
    usage: source.totals.usage,
    cost_usd: source.totals.cost_usd,
  });
  return newId;
}

export type PruneRule = { keepSessions: number; keepDays: number };

/**
 * Deletes sessions beyond the newest `keepSessions` or older than `keepDays` days (0 means no limit for either).
 * `except` (the session in use) is never pruned and counts as the newest. Returns how many were deleted.
 */
export function pruneSessions(home: string, rule: PruneRule, except?: string, at = Date.now()): number {
  if (rule.keepSessions <= 0 && rule.keepDays <= 0) return 0;
  const others = listSessions(home).filter((session) => session.id !== except);
  const keep = except === undefined ? rule.keepSessions : rule.keepSessions - 1;
  const cutoff = rule.keepDays > 0 ? new Date(at - rule.keepDays * 86_400_000).toISOString() : undefined;
  let deleted = 0;
  others.forEach((session, position) => {
    const tooMany = rule.keepSessions > 0 && position >= keep;
    const tooOld = cutoff !== undefined && session.updated_at < cutoff;
    if (!tooMany && !tooOld) return;
    try {
      deleteSession(home, session.id);
      deleted += 1;
    } catch {
      // Already gone (another process pruned it): only the index entry is left to drop.
      appendIndexEntry(home, { id: session.id, deleted: true });
    }
  });
  return deleted;
}
