// The rules in force, each with the list it is in and where it came from, ready to match.
import { parseRule, type Rule, type RuleList } from "./rule.ts";

/** A rule as configuration and the protocol carry it. */
export type RuleEntry = { list: RuleList; rule: string; origin: string };

export type PlacedRule = Rule & { list: RuleList; origin: string };

export class RuleError extends Error {
  override name = "RuleError";
}

export class RuleSet {
  readonly deny: readonly PlacedRule[];
  readonly ask: readonly PlacedRule[];
  readonly allow: readonly PlacedRule[];
  readonly #entries: readonly RuleEntry[];

  private constructor(entries: readonly RuleEntry[], placed: PlacedRule[]) {
    this.#entries = entries;
    this.deny = placed.filter((rule) => rule.list === "deny");
    this.ask = placed.filter((rule) => rule.list === "ask");
    this.allow = placed.filter((rule) => rule.list === "allow");
  }

  static empty(): RuleSet {
    return new RuleSet([], []);
  }

  /** Compiles checked entries; throws RuleError naming the first bad rule and its origin. */
  static of(entries: readonly RuleEntry[]): RuleSet {
    const placed = entries.map((entry) => {
      const parsed = parseRule(entry.rule);
      if (!parsed.ok) {
        throw new RuleError(
          `permissions.${entry.list} rule ${JSON.stringify(entry.rule)} (${entry.origin}): ${parsed.problem}`,
        );
      }
      return { ...parsed.rule, list: entry.list, origin: entry.origin };
    });
    return new RuleSet([...entries], placed);
  }

  /** This set with one more rule (an "always" answer); the same set when the rule is already there. */
  with(entry: RuleEntry): RuleSet {
    const known = this.#entries.some((held) => held.list === entry.list && held.rule === entry.rule);
    return known ? this : RuleSet.of([...this.#entries, entry]);
  }

  get entries(): readonly RuleEntry[] {
    return this.#entries;
  }

  get size(): number {
    return this.#entries.length;
  }
}
