// The listing index `<home>/sessions/index.ndjson`: one line per change of a session's summary (or its deletion),
// the last line for an id winning. Lines are appended with O_APPEND in one write each, so concurrent servers do not
// tear each other's lines; listing reads this one file, never the journals. When most lines are stale the index
// is rewritten to a temporary file and renamed over the old one (atomic), then any lines appended meanwhile are
// carried over.
import { closeSync, existsSync, fstatSync, openSync, readSync, writeSync } from "node:fs";
import { replaceFileSync } from "../util/replace_file.ts";
import { ensureSessionsDir, indexPath, validSessionId } from "./paths.ts";
import { encodeRecord, type Redactor } from "./redact.ts";
import { endsWithNewline } from "./line_end.ts";
import type { Usage } from "../provider/index.ts";

export type IndexEntry = {
  id: string;
  cwd: string;
  created_at: string;
  updated_at: string;
  title: string;
  turns: number;
  model: string;
  /** The session's token counts summed over its turns and compactions (absent in lines of older versions). */
  usage?: Usage;
  /** What they cost in USD; null when a price was unknown. */
  cost_usd?: number | null;
};

type IndexLine = IndexEntry | { id: string; deleted: true };

// Rewrite once stale lines outnumber live ones by this factor (and there are enough to matter).
const COMPACT_FACTOR = 2;
const COMPACT_MIN_LINES = 256;

export function appendIndexEntry(home: string, line: IndexLine, redact?: Redactor): void {
  ensureSessionsDir(home);
  const fd = openSync(indexPath(home), "a+", 0o600);
  try {
    // After a writer was killed mid-line, start a fresh line rather than extend the torn one.
    writeSync(fd, (endsWithNewline(fd) ? "" : "\n") + encodeRecord(line, redact));
  } finally {
    closeSync(fd);
  }
}

export type IndexRead = { entries: Map<string, IndexEntry>; lines: number; damaged: number };

/**
 * Every line's JSON value (undefined for a damaged one): one JSON.parse for the whole file when it is intact (twice
 * as fast as one per line), line by line otherwise — also when a damaged line joined its neighbours into JSON of
 * another length.
 */
function parseLines(text: string): unknown[] {
  const raws = text.split("\n").filter((raw) => raw !== "");
  try {
    const values = JSON.parse(`[${raws.join(",")}]`) as unknown[];
    if (values.length === raws.length) return values;
  } catch {
    // Some line is damaged.
  }
  return raws.map((raw) => {
    try {
      return JSON.parse(raw) as unknown;
    } catch {
      return undefined;
    }
  });
}

function parseIndex(text: string): IndexRead {
  const entries = new Map<string, IndexEntry>();
  let lines = 0;
  let damaged = 0;
  for (const value of parseLines(text)) {
    lines += 1;
    if (value === undefined) {
      damaged += 1;
      continue;
    }
    const line = value as Partial<IndexEntry> & { deleted?: unknown };
    if (typeof line !== "object" || line === null || typeof line.id !== "string" || !validSessionId(line.id)) {
      damaged += 1;
      continue;
    }
    if (line.deleted === true) {
      entries.delete(line.id);
      continue;
    }
    if (typeof line.cwd !== "string" || typeof line.updated_at !== "string" || typeof line.turns !== "number") {
      damaged += 1;
      continue;
    }
    // Re-inserting moves the id to the end: the map's order is the order of last change.
    entries.delete(line.id);
    entries.set(line.id, {
      id: line.id,
      cwd: line.cwd,
      created_at: typeof line.created_at === "string" ? line.created_at : line.updated_at,
      updated_at: line.updated_at,
      title: typeof line.title === "string" ? line.title : "",
      turns: line.turns,
      model: typeof line.model === "string" ? line.model : "",
      ...(typeof line.usage === "object" && line.usage !== null ? { usage: line.usage } : {}),
      ...(typeof line.cost_usd === "number" || line.cost_usd === null ? { cost_usd: line.cost_usd } : {}),
    });
  }
  return { entries, lines, damaged };
}

/** Reads the index (missing → empty), compacting it when it has grown mostly stale. */
export function readIndex(home: string): IndexRead {
  const path = indexPath(home);
  if (!existsSync(path)) return { entries: new Map(), lines: 0, damaged: 0 };
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    const buffer = Buffer.alloc(size);
    let read = 0;
    while (read < size) {
      const n = readSync(fd, buffer, read, size - read, read);
      if (n === 0) break;
      read += n;
    }
    // A torn last line (a writer killed mid-write) is not counted; the next append starts a fresh line.
    const text = buffer.toString("utf8", 0, read);
    const complete = text.endsWith("\n") ? text : text.slice(0, text.lastIndexOf("\n") + 1);
    const result = parseIndex(complete);
    if (result.lines >= COMPACT_MIN_LINES && result.lines > COMPACT_FACTOR * result.entries.size) {
      compact(home, fd, Buffer.byteLength(complete), result.entries);
    }
    return result;
  } finally {
    closeSync(fd);
  }
}

function compact(home: string, oldFd: number, readBytes: number, entries: Map<string, IndexEntry>): void {
  const path = indexPath(home);
  try {
    replaceFileSync(path, [...entries.values()].map((entry) => JSON.stringify(entry) + "\n").join(""), 0o600);
  } catch {
    return;
  }
  // Lines another process appended to the old file after it was read move to the new one.
  const size = fstatSync(oldFd).size;
  if (size <= readBytes) return;
  const tail = Buffer.alloc(size - readBytes);
  readSync(oldFd, tail, 0, tail.length, readBytes);
  const fd = openSync(path, "a", 0o600);
  try {
    writeSync(fd, tail);
  } finally {
    closeSync(fd);
  }
}
