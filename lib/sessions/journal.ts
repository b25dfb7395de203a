// Appends a session's journal: each record is one line written straight to the file (no buffering in the process),
// so a `kill -9` loses at most the turn in flight. Creates the file 0600 in the 0700 sessions folder.
import { closeSync, fchmodSync, openSync, writeSync } from "node:fs";
import { ensureSessionsDir, journalPath } from "./paths.ts";
import { encodeRecord, type Redactor, secretRedactor } from "./redact.ts";
import { JOURNAL_VERSION, type JournalRecord, type SessionMeta, titleOf } from "./records.ts";
import { truncateTornTail } from "./line_end.ts";
import { appendIndexEntry, type IndexEntry } from "./index_file.ts";
import type { Usage } from "../provider/index.ts";
import { addSpending, emptyTotals, type SpendingTotals } from "../pricing/index.ts";

export type JournalOptions = {
  home: string;
  meta: SessionMeta;
  /** Values that must never reach the disk (credentials, header values). */
  secrets: readonly (string | undefined)[];
  /** For a resumed session: the existing journal's title, turn count and spending, so the index stays right. */
  existing?: { title: string; turns: number; totals?: SpendingTotals };
};

export class JournalWriter {
  readonly #home: string;
  #meta: SessionMeta;
  readonly #redact: Redactor;
  #fd: number | undefined;
  #title: string;
  #turns: number;
  #totals: SpendingTotals;
  #headerWritten: boolean;

  constructor(options: JournalOptions) {
    this.#home = options.home;
    this.#meta = options.meta;
    this.#redact = secretRedactor(options.secrets);
    this.#title = options.existing?.title ?? "";
    this.#turns = options.existing?.turns ?? 0;
    this.#totals = structuredClone(options.existing?.totals ?? emptyTotals());
    // A resumed journal has its header already; a new one is created on its first turn (an empty session leaves
    // no file).
    this.#headerWritten = options.existing !== undefined;
  }

  get id(): string {
    return this.#meta.id;
  }

  /** `snapshot`: the id of the workspace snapshot taken before the turn. */
  turnStarted(turnId: string, prompt: string, snapshot?: string): void {
    if (this.#title === "") this.#title = titleOf(prompt);
    this.#turns += 1;
    this.#append({
      type: "turn.started",
      at: now(),
      turn_id: turnId,
      prompt,
      ...(snapshot === undefined ? {} : { snapshot }),
    });
    this.#index();
  }

  /** The model or approval policy changed: recorded, or folded into the header when no turn was journalled yet. */
  configured(model: string, policy: string): void {
    const written = this.#headerWritten;
    // The index's model follows too.
    this.#meta = { ...this.#meta, model, policy };
    if (written) this.append({ type: "configured", at: now(), model, policy });
  }

  append(record: JournalRecord): void {
    // A record that spent tokens (a turn's end, a compaction) adds to the session's totals in the index.
    if ("usage" in record && record.usage !== undefined) {
      addSpending(this.#totals, record.usage as Usage, record.cost_usd ?? null);
    }
    this.#append(record);
    if (record.type !== "session") this.#index();
  }

  close(): void {
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }

  #open(): number {
    if (this.#fd !== undefined) return this.#fd;
    ensureSessionsDir(this.#home);
    const path = journalPath(this.#home, this.#meta.id);
    const fd = openSync(path, "a+", 0o600);
    // The mode argument is ignored for an existing file (and narrowed by umask for a new one): set it exactly.
    fchmodSync(fd, 0o600);
    this.#fd = fd;
    // A journal whose last line was torn (kill -9 mid-write) loses that fragment (the reader already skipped it).
    truncateTornTail(fd);
    if (!this.#headerWritten) {
      this.#headerWritten = true;
      this.#write({ type: "session", v: JOURNAL_VERSION, ...this.#meta });
    }
    return fd;
  }

  #append(record: JournalRecord): void {
    this.#open();
    this.#write(record);
  }

  /** The single write path: every byte of the journal passes the redactor here. */
  #write(record: JournalRecord): void {
    const bytes = Buffer.from(encodeRecord(record, this.#redact));
    let offset = 0;
    while (offset < bytes.length) offset += writeSync(this.#fd!, bytes, offset);
  }

  #index(): void {
    const entry: IndexEntry = {
      id: this.#meta.id,
      cwd: this.#meta.workspace,
      created_at: this.#meta.created_at,
      updated_at: now(),
      title: this.#title,
      turns: this.#turns,
      model: this.#meta.model,
      usage: this.#totals.usage,
      cost_usd: this.#totals.cost_usd,
    };
    appendIndexEntry(this.#home, entry, this.#redact);
  }
}

export function now(): string {
  return new Date().toISOString();
}
