import { RecentSet } from "./recent_set.ts";

export const MAX_RECENT_REQUEST_IDS = 4096;

/** What the connection must know about an active request to cancel or yield it. */
export interface ActiveRequest {
  kind: "open" | "execute" | "wait" | "terminate" | "shutdown";
  /** Aborted by `operation/cancel` (waits, and executes before they start). */
  cancel: AbortController;
  /** The observed cell once known (execute after start, wait after registration). */
  observe?: { yieldNow(): boolean };
}

/**
 * Per-connection request ids (host spec §5.1): an id is active from receipt until its task
 * ends, then joins a FIFO of the last 4,096 finished ids. Both count as duplicates.
 */
export class RequestRegistry {
  readonly active = new Map<bigint, ActiveRequest>();
  readonly recent: RecentSet<bigint>;

  constructor(capacity = MAX_RECENT_REQUEST_IDS) {
    this.recent = new RecentSet(capacity);
  }

  isKnown(id: bigint): boolean {
    return this.active.has(id) || this.recent.has(id);
  }

  start(id: bigint, request: ActiveRequest): void {
    if (this.isKnown(id)) throw new Error(duplicateRequestMessage(id));
    this.active.set(id, request);
  }

  finish(id: bigint): void {
    this.active.delete(id);
    this.recent.add(id);
  }
}

export function duplicateRequestMessage(id: bigint): string {
  return `duplicate code-mode request ID RequestId(${id})`;
}
