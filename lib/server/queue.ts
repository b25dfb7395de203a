// The session's prompt queue (spec §6.3): entries with revisions, edited, moved or removed until they start.
import { randomUUID } from "node:crypto";
import type { Attachment, CommandRef, QueueEntry } from "../protocol/index.ts";

export const MAX_QUEUE_ENTRIES = 64;
export const MAX_QUEUE_BYTES = 4_194_304;

export type QueueErrorCode = "queue_not_found" | "queue_conflict" | "queue_limit";
export type QueueResult<T> = { ok: true; value: T } | { ok: false; code: QueueErrorCode };

const fail = <T>(code: QueueErrorCode): QueueResult<T> => ({ ok: false, code });

export class PromptQueue {
  #entries: QueueEntry[] = [];

  get entries(): readonly QueueEntry[] {
    return this.#entries;
  }

  get length(): number {
    return this.#entries.length;
  }

  #bytes(): number {
    let total = 0;
    for (const entry of this.#entries) total += Buffer.byteLength(entry.prompt);
    return total;
  }

  enqueue(
    prompt: string,
    submitter: string,
    attachments: readonly Attachment[] = [],
    command?: CommandRef,
  ): QueueResult<{ entry: QueueEntry; position: number }> {
    if (this.#entries.length >= MAX_QUEUE_ENTRIES || this.#bytes() + Buffer.byteLength(prompt) > MAX_QUEUE_BYTES) {
      return fail("queue_limit");
    }
    const entry: QueueEntry = { queue_id: randomUUID(), revision: 1, prompt, submitter };
    if (attachments.length > 0) entry.attachments = [...attachments];
    if (command !== undefined) entry.command = command;
    this.#entries.push(entry);
    return { ok: true, value: { entry, position: this.#entries.length - 1 } };
  }

  #find(queueId: string, revision: number): QueueResult<number> {
    const index = this.#entries.findIndex((entry) => entry.queue_id === queueId);
    if (index < 0) return fail("queue_not_found");
    if (this.#entries[index]!.revision !== revision) return fail("queue_conflict");
    return { ok: true, value: index };
  }

  update(queueId: string, revision: number, prompt: string): QueueResult<QueueEntry> {
    const found = this.#find(queueId, revision);
    if (!found.ok) return found;
    const entry = this.#entries[found.value]!;
    if (this.#bytes() - Buffer.byteLength(entry.prompt) + Buffer.byteLength(prompt) > MAX_QUEUE_BYTES) {
      return fail("queue_limit");
    }
    entry.prompt = prompt;
    // An edited prompt is the user's own text now, no longer a command's.
    delete entry.command;
    entry.revision += 1;
    return { ok: true, value: entry };
  }

  /** Inserts before `beforeId` (`null` = at the end). A self-move is a no-op with unchanged revision and index. */
  move(
    queueId: string,
    revision: number,
    beforeId: string | null,
  ): QueueResult<{ position: number; revision: number }> {
    const found = this.#find(queueId, revision);
    if (!found.ok) return found;
    const index = found.value;
    if (beforeId === queueId) return { ok: true, value: { position: index, revision } };
    let target = this.#entries.length;
    if (beforeId !== null) {
      target = this.#entries.findIndex((entry) => entry.queue_id === beforeId);
      if (target < 0) return fail("queue_not_found");
    }
    const [entry] = this.#entries.splice(index, 1);
    if (target > index) target -= 1;
    entry!.revision += 1;
    this.#entries.splice(target, 0, entry!);
    return { ok: true, value: { position: target, revision: entry!.revision } };
  }

  remove(queueId: string, revision: number): QueueResult<QueueEntry> {
    const found = this.#find(queueId, revision);
    if (!found.ok) return found;
    const [entry] = this.#entries.splice(found.value, 1);
    return { ok: true, value: entry! };
  }

  shift(): QueueEntry | undefined {
    return this.#entries.shift();
  }

  clear(): void {
    this.#entries = [];
  }
}
