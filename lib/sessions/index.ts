// Persistent sessions (docs/sessions.md): one append-only journal per session under `<home>/sessions/`, a listing
// index, and the operations on them (list, load, fork, delete, prune), plus the compact replay for clients.
export { type JournalOptions, JournalWriter } from "./journal.ts";
export { type JournalContents, parseJournal, readJournal, type ReplayTurn, type StoredTurn } from "./read.ts";
export {
  type CompactedRecord,
  type RewoundRecord,
  type SessionMeta,
  titleOf,
  type TurnCompletedRecord,
  type TurnEndedRecord,
} from "./records.ts";
export { compactReplay } from "./replay.ts";
export { sessionsDir, validSessionId } from "./paths.ts";
export {
  deleteSession,
  forkSession,
  listSessions,
  loadSession,
  type PruneRule,
  pruneSessions,
  SessionNotFoundError,
  type SessionSummary,
} from "./store.ts";
