// What a session remembers from "remember for this session" answers: allow rules, and exact calls that no rule
// can describe (a command with a substitution). They end with the session.
import { RuleSet } from "./rule_set.ts";

export const SESSION_ORIGIN = "granted in this session";

export class SessionGrants {
  #rules = RuleSet.empty();
  #calls = new Set<string>();

  /** Remembers an allow rule (already checked by the caller: it came from the policy's own suggestion). */
  rememberRule(rule: string): void {
    this.#rules = this.#rules.with({ list: "allow", rule, origin: SESSION_ORIGIN });
  }

  /** Remembers one exact call by its key (lib/policy/access.ts callKey). */
  rememberCall(key: string): void {
    this.#calls.add(key);
  }

  get rules(): RuleSet {
    return this.#rules;
  }

  hasCall(key: string | undefined): boolean {
    return key !== undefined && this.#calls.has(key);
  }

  get size(): number {
    return this.#rules.size + this.#calls.size;
  }
}
