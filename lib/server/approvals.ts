// The questions the session is waiting on: asking parks the call on a one-shot waiter keyed by a fresh UUID v4
// until `approval.resolve` (or cancellation withdraws it). What decides whether to ask is lib/policy.
import { randomUUID } from "node:crypto";
import type { Access } from "../policy/index.ts";
import type { PreparedCall } from "../tools/index.ts";
import { abortError } from "../util/abort.ts";
import { visibleText } from "../util/visible_text.ts";

/**
 * What `approval.requested` shows (issue 12 item 7): `summary`, one line, and `detail`, the whole text the
 * approval covers (the full command, the complete new file content; else the summary), both with control,
 * bidi and other invisible characters escaped visibly so nothing approved can hide.
 */
export function approvalTexts(prepared: Pick<PreparedCall, "summary" | "detail">): { summary: string; detail: string } {
  return {
    summary: visibleText(prepared.summary),
    detail: visibleText(prepared.detail ?? prepared.summary, { multiline: true }),
  };
}

/** What a waiting question is about: the call's access and the rule remembering it "always" would add. */
export type Question = { access: Access; rule?: string };

type Pending = Question & { resolve(approved: boolean): void };

export class Approvals {
  #pending = new Map<string, Pending>();

  /**
   * Registers a waiter and returns its id and the decision promise. The promise rejects with an AbortError
   * when `signal` aborts, and the id is withdrawn (a later resolve gets approval_not_found).
   */
  open(signal: AbortSignal, question: Question): { approvalId: string; decision: Promise<boolean> } {
    const approvalId = randomUUID();
    const decision = new Promise<boolean>((resolve, reject) => {
      const onAbort = () => {
        this.#pending.delete(approvalId);
        reject(abortError());
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener("abort", onAbort, { once: true });
      this.#pending.set(approvalId, {
        ...question,
        resolve: (approved) => {
          signal.removeEventListener("abort", onAbort);
          resolve(approved);
        },
      });
    });
    return { approvalId, decision };
  }

  /** The question still waiting under `approvalId`, or undefined. */
  question(approvalId: string): Question | undefined {
    return this.#pending.get(approvalId);
  }

  /** One-shot: true when the id was waiting (and is now used), false for unknown, used or withdrawn ids. */
  resolve(approvalId: string, approved: boolean): boolean {
    const pending = this.#pending.get(approvalId);
    if (!pending) return false;
    this.#pending.delete(approvalId);
    pending.resolve(approved);
    return true;
  }

  get size(): number {
    return this.#pending.size;
  }
}
