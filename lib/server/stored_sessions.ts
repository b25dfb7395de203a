// The connection's persistent-session requests (docs/sessions.md): list, load for a resume, fork, delete, and the
// journal a session writes. Loaded on first use, like the session modules.
import { realpath } from "node:fs/promises";
import path from "node:path";
import { resolveHome } from "../config/index.ts";
import {
  deleteSession,
  forkSession,
  type JournalContents,
  JournalWriter,
  listSessions,
  loadSession,
  pruneSessions,
} from "../sessions/index.ts";
import type { StoredSession } from "../protocol/index.ts";
import type { Logger } from "../util/log.ts";
import type { ServerOptions, SessionParts } from "./session_start.ts";

export { compactReplay, SessionNotFoundError } from "../sessions/index.ts";

export function homeOf(options: ServerOptions): string {
  return resolveHome(options.scvHome, options.env).home;
}

/** Stored sessions, newest first: of the workspace `cwd` (canonicalised) unless `cwd` is absent or `all` is set. */
export async function listStored(
  options: ServerOptions,
  cwd: string | undefined,
  all: boolean,
): Promise<StoredSession[]> {
  let workspace: string | undefined;
  if (!all && cwd !== undefined) {
    const absolute = path.resolve(options.cwd, cwd);
    workspace = await realpath(absolute).catch(() => absolute);
  }
  return listSessions(homeOf(options), workspace).map((entry) => ({
    session_id: entry.id,
    cwd: entry.cwd,
    title: entry.title,
    turns: entry.turns,
    model: entry.model,
    created_at: entry.created_at,
    updated_at: entry.updated_at,
  }));
}

export function loadStored(options: ServerOptions, id: string): JournalContents {
  return loadSession(homeOf(options), id);
}

export function forkStored(options: ServerOptions, id: string): string {
  return forkSession(homeOf(options), id);
}

export function deleteStored(options: ServerOptions, id: string): void {
  deleteSession(homeOf(options), id);
}

/**
 * The journal of a new or resumed session, or undefined when `[sessions] persist = false`. Applies the configured
 * pruning first (never to this session).
 */
export function openJournal(
  parts: SessionParts,
  id: string,
  log: Logger,
  resumed?: JournalContents,
): JournalWriter | undefined {
  const { config } = parts;
  try {
    const pruned = pruneSessions(parts.home, {
      keepSessions: config.sessions.keep_count,
      keepDays: config.sessions.keep_days,
    }, id);
    if (pruned > 0) log.info(`pruned ${pruned} stored session${pruned === 1 ? "" : "s"}`);
  } catch (error) {
    log.warn(`prune stored sessions: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!config.sessions.persist) return undefined;
  const meta = resumed?.meta ?? {
    id,
    created_at: new Date().toISOString(),
    workspace: parts.workspace,
    model: config.provider.model,
    policy: config.tools.approval_policy,
    ...(parts.profile === undefined ? {} : { profile: parts.profile }),
  };
  return new JournalWriter({
    home: parts.home,
    // A resumed session keeps its identity but records what it runs with now.
    meta: { ...meta, model: config.provider.model, policy: config.tools.approval_policy },
    secrets: parts.secrets,
    ...(resumed ? { existing: { title: resumed.title, turns: resumed.turnCount, totals: resumed.totals } } : {}),
  });
}
