// Persistent sessions (docs/sessions.md): one append-only journal per session under `<home>/sessions/`, a listing
// index, and the operations on them (list, load, fork, delete, prune), plus the compact replay for clients.
export { JournalWriter, type JournalOptions } from "./journal.ts";
export { readJournal, parseJournal, type JournalContents, type ReplayTurn } from "./read.ts";
export { titleOf, type SessionMeta, type TurnCompletedRecord } from "./records.ts";
export { compactReplay } from "./replay.ts";
export { sessionsDir, validSessionId } from "./paths.ts";
export {
  deleteSession,
  forkSession,
  listSessions,
  loadSession,
  pruneSessions,
  SessionNotFoundError,
  type PruneRule,
  type SessionSummary,
} from "./store.ts";
