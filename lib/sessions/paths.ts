// Where sessions live: `<home>/sessions/` (0700), one journal `<id>.ndjson` per session and the listing index.
import { chmodSync, mkdirSync } from "node:fs";
import { join } from "node:path";

export const INDEX_FILE = "index.ndjson";
const ID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function sessionsDir(home: string): string {
  return join(home, "sessions");
}

/** Session ids are UUIDs: anything else (a path, `..`) never names a file. */
export function validSessionId(id: string): boolean {
  return ID_PATTERN.test(id);
}

export function journalPath(home: string, id: string): string {
  if (!validSessionId(id)) throw new Error(`invalid session id ${JSON.stringify(id)}`);
  return join(sessionsDir(home), `${id}.ndjson`);
}

export function indexPath(home: string): string {
  return join(sessionsDir(home), INDEX_FILE);
}

/** Creates the sessions folder if needed and keeps it private (0700) even if it existed. */
export function ensureSessionsDir(home: string): string {
  const dir = sessionsDir(home);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  return dir;
}
