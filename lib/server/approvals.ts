// The approval gate (spec §6.5): policy × risk decides run / ask / deny, and asking parks the call on a
// one-shot waiter keyed by a fresh UUID v4 until `approval.resolve` (or cancellation withdraws it).
import { randomUUID } from "node:crypto";
import type { ApprovalPolicy } from "../config/index.ts";
import type { Risk } from "../tools/index.ts";
import { abortError } from "../util/abort.ts";

export type GateDecision = "run" | "ask" | "deny";

export function decide(policy: ApprovalPolicy, risk: Risk): GateDecision {
  if (policy === "always") return "ask";
  if (risk === "read_only") return "run";
  return policy === "never" ? "deny" : "ask";
}

type Pending = { resolve(approved: boolean): void };

export class Approvals {
  #pending = new Map<string, Pending>();

  /**
   * Registers a waiter and returns its id and the decision promise. The promise rejects with an AbortError
   * when `signal` aborts, and the id is withdrawn (a later resolve gets approval_not_found).
   */
  open(signal: AbortSignal): { approvalId: string; decision: Promise<boolean> } {
    const approvalId = randomUUID();
    const decision = new Promise<boolean>((resolve, reject) => {
      const onAbort = () => {
        this.#pending.delete(approvalId);
        reject(abortError());
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener("abort", onAbort, { once: true });
      this.#pending.set(approvalId, {
        resolve: (approved) => {
          signal.removeEventListener("abort", onAbort);
          resolve(approved);
        },
      });
    });
    return { approvalId, decision };
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
