// What a session spends: the tokens and cost of its turns and compactions (resumed sessions start from their
// journal's totals), the price of the model in use, and the budget (`max_cost_usd`, `--max-cost`).
import type { ResolvedConfig } from "../config/index.ts";
import {
  addSpending,
  costOf,
  emptyTotals,
  type Price,
  priceOf,
  roundUsd,
  type SpendingTotals,
} from "../pricing/index.ts";
import type { Usage } from "../protocol/index.ts";

export type LastTurn = { turn_id: string; usage: Usage; cost_usd: number | null };

export class UsageMeter {
  readonly #totals: SpendingTotals;
  #last: LastTurn | undefined;

  constructor(totals: SpendingTotals = emptyTotals()) {
    this.#totals = structuredClone(totals);
  }

  get totals(): SpendingTotals {
    return this.#totals;
  }

  get lastTurn(): LastTurn | undefined {
    return this.#last;
  }

  price(config: ResolvedConfig): Price | undefined {
    return priceOf(config.provider.model, config.model_prices);
  }

  /** What `usage` costs with the session's model now; null when its price (or a count) is unknown. */
  cost(usage: Usage, config: ResolvedConfig): number | null {
    return costOf(usage, this.price(config));
  }

  /** Adds what a turn (or a compaction outside a turn) spent. */
  record(usage: Usage, cost: number | null, turnId?: string): void {
    addSpending(this.#totals, usage, cost);
    if (turnId !== undefined) this.#last = { turn_id: turnId, usage, cost_usd: cost };
  }

  /**
   * Why no further model request may be made, with `inFlight` (the running turn's usage so far) on top of what is
   * recorded; undefined when there is no budget or room is left.
   */
  refusal(config: ResolvedConfig, inFlight: Usage = {}): string | undefined {
    const budget = config.session.max_cost_usd;
    if (budget === undefined) return undefined;
    const model = config.provider.model;
    const price = this.price(config);
    if (price === undefined) {
      return `the session has a budget (max_cost_usd ${formatUsd(budget)}), but the price of model ${model} is ` +
        `unknown; add [model_prices."${model}"] to the configuration`;
    }
    const running = costOf({ input_tokens: 0, output_tokens: 0, ...inFlight }, price) ?? 0;
    const spent = roundUsd(this.#totals.known_cost_usd + running);
    if (spent < budget) return undefined;
    return `the session spent ${formatUsd(spent)}, reaching its budget of ${formatUsd(budget)} (max_cost_usd); ` +
      "raise it to go on";
  }
}

/** `$0.0123`: four decimals below a dollar, two above. */
export function formatUsd(value: number): string {
  return value >= 1 ? `$${value.toFixed(2)}` : `$${value.toFixed(4)}`;
}
