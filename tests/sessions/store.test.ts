// lib/sessions in-process: the journal reader's tolerance, trimming records, the index (last line wins,
// compaction keeps every live entry, torn lines), titles, and pruning.
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  JournalWriter,
  listSessions,
  loadSession,
  parseJournal,
  pruneSessions,
  titleOf,
} from "../../lib/sessions/index.ts";
import { readIndex } from "../../lib/sessions/index_file.ts";

let home = "";
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "scv-sessions-"));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const header = (id = "6f1c2a5e-0000-4000-8000-000000000001") =>
  JSON.stringify({
    type: "session",
    v: 1,
    id,
    created_at: "2026-01-01T00:00:00Z",
    workspace: "/w",
    model: "m",
    policy: "on-risk",
  });
const user = (content: string) => ({ kind: "user" as const, content });
const answer = (content: string) => ({ kind: "assistant" as const, content, calls: [] });
const completed = (turn: string, items: unknown[], extra: object = {}) =>
  JSON.stringify({ type: "turn.completed", at: "x", turn_id: turn, items, ...extra });

function writer(id: string, secrets: string[] = []): JournalWriter {
  return new JournalWriter({
    home,
    meta: { id, created_at: new Date().toISOString(), workspace: "/w", model: "m", policy: "on-risk" },
    secrets,
  });
}

describe("journal reader", () => {
  it("recovers the intact prefix of a torn journal and says so", () => {
    const text = [
      header(),
      completed("t1", [user("a"), answer("b")]),
      '{"type":"turn.completed","turn_id":"t2","items":[{"ki',
    ].join("\n");
    const result = parseJournal(text);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.journal.history).toEqual([user("a"), answer("b")]);
    expect(result.journal.warnings).toEqual([
      "the journal's last line was torn; the intact part before it was recovered",
    ]);
  });

  it("skips damaged lines and counts them, and refuses a file without a header", () => {
    const result = parseJournal([header(), "not json", "[1,2]", completed("t1", [user("a")]), ""].join("\n"));
    expect(result.ok && result.journal.history).toEqual([user("a")]);
    expect(result.ok && result.journal.warnings).toEqual(["2 damaged journal lines were skipped"]);
    expect(parseJournal("garbage\n")).toMatchObject({ ok: false, reason: "damaged" });
    expect(parseJournal("")).toMatchObject({ ok: false, reason: "damaged" });
  });

  it("applies trimming (drop + note) and clears as the server did", () => {
    const note = user("[SCV compacted 2 earlier messages. Bounded extracts follow.]\nuser: a");
    const text = [
      header(),
      completed("t1", [user("a"), answer("b")]),
      completed("t2", [user("c"), answer("d")], { drop: 2, note }),
      completed("t3", [user("e")], { drop: 3 }),
      "",
    ].join("\n");
    const result = parseJournal(text);
    expect(result.ok && result.journal.history).toEqual([user("e")]);
    const cleared = parseJournal(
      [header(), completed("t1", [user("a")]), '{"type":"cleared","at":"x"}', completed("t2", [user("z")]), ""].join(
        "\n",
      ),
    );
    expect(cleared.ok && cleared.journal.history).toEqual([user("z")]);
    const withNote = parseJournal(
      [header(), completed("t1", [user("a"), answer("b")]), completed("t2", [user("c")], { drop: 2, note }), ""].join(
        "\n",
      ),
    );
    expect(withNote.ok && withNote.journal.history).toEqual([note, user("c")]);
  });
});

describe("journal writer", () => {
  it("creates 0600 files in a 0700 folder, redacts secrets, and indexes the title and turns", () => {
    const id = "6f1c2a5e-0000-4000-8000-000000000002";
    const journal = writer(id, ["sk-very-secret", 'quote"d-secret']);
    journal.turnStarted("t1", 'first line\nsecond line sk-very-secret and quote"d-secret');
    journal.append({ type: "turn.completed", at: "x", turn_id: "t1", items: [user("sk-very-secret")] });
    journal.close();
    expect(statSync(join(home, "sessions")).mode & 0o777).toBe(0o700);
    const text = readFileSync(join(home, "sessions", `${id}.ndjson`), "utf8");
    expect(statSync(join(home, "sessions", `${id}.ndjson`)).mode & 0o777).toBe(0o600);
    expect(text).not.toContain("very-secret");
    expect(text).not.toContain("d-secret");
    const [entry] = listSessions(home);
    expect(entry).toMatchObject({ id, cwd: "/w", title: "first line second line [REDACTED] and [REDACTED]", turns: 1 });
    expect(loadSession(home, id).history).toEqual([user("[REDACTED]")]);
  });

  it("cuts titles to 80 characters on one line without control characters", () => {
    expect(titleOf("a\tb\u001b[31mc\n\nd")).toBe("a b [31mc d");
    const long = titleOf("é".repeat(200));
    expect(Array.from(long)).toHaveLength(80);
    expect(long.endsWith("…")).toBe(true);
  });
});

describe("index", () => {
  it("keeps the last line per id, skips deleted and damaged lines, and starts a fresh line after a torn one", () => {
    const a = "6f1c2a5e-0000-4000-8000-00000000000a";
    writer(a).turnStarted("t1", "one");
    appendFileSync(join(home, "sessions", "index.ndjson"), '{"id":"torn');
    const b = "6f1c2a5e-0000-4000-8000-00000000000b";
    writer(b).turnStarted("t1", "two");
    const ids = listSessions(home).map((entry) => entry.id);
    expect(ids.sort()).toEqual([a, b]);
    expect(readIndex(home).damaged).toBe(1);
  });

  it("compacts a mostly stale index without losing a live entry", () => {
    const ids = Array.from({ length: 5 }, (_, i) => `6f1c2a5e-0000-4000-8000-00000000010${i}`);
    const journals = ids.map((id) => writer(id));
    for (let round = 0; round < 100; round += 1)
      for (const journal of journals) journal.turnStarted(`t${round}`, `prompt of ${journal.id}`);
    const before = readIndex(home);
    expect(before.lines).toBe(500);
    const after = readIndex(home);
    expect(after.lines).toBe(5);
    expect([...after.entries.values()].map((entry) => [entry.id, entry.turns]).sort()).toEqual(
      ids.map((id) => [id, 100]),
    );
    expect(statSync(join(home, "sessions", "index.ndjson")).mode & 0o777).toBe(0o600);
  });
});

describe("pruning", () => {
  it("keeps the newest N, drops sessions older than M days, never the one in use, and nothing by default", () => {
    const ids = Array.from({ length: 4 }, (_, i) => `6f1c2a5e-0000-4000-8000-00000000020${i}`);
    for (const id of ids) writer(id).turnStarted("t1", id);
    expect(pruneSessions(home, { keepSessions: 0, keepDays: 0 })).toBe(0);
    expect(listSessions(home)).toHaveLength(4);
    const newestFirst = listSessions(home).map((entry) => entry.id);
    // The session in use counts as one of the kept, even when it is the oldest.
    expect(pruneSessions(home, { keepSessions: 2, keepDays: 0 }, newestFirst[3])).toBe(2);
    expect(listSessions(home).map((entry) => entry.id)).toEqual([newestFirst[0], newestFirst[3]]);
    expect(pruneSessions(home, { keepSessions: 0, keepDays: 1 }, undefined, Date.now() + 2 * 86_400_000)).toBe(2);
    expect(listSessions(home)).toEqual([]);
  });

  it("does not follow a damaged index line into deleting a file elsewhere", () => {
    writeFileSync(join(home, "victim.txt"), "keep me");
    writer("6f1c2a5e-0000-4000-8000-000000000301").turnStarted("t1", "x");
    appendFileSync(
      join(home, "sessions", "index.ndjson"),
      JSON.stringify({ id: "../victim.txt", cwd: "/w", updated_at: "2000-01-01", turns: 1 }) + "\n",
    );
    pruneSessions(home, { keepSessions: 0, keepDays: 1 }, undefined, Date.now() + 2 * 86_400_000);
    expect(readFileSync(join(home, "victim.txt"), "utf8")).toBe("keep me");
  });
});
