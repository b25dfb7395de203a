// What tokens cost: a model's price (the configuration's `[model_prices]` first, then the shipped table), the cost
// of a usage at that price, and running totals. An unknown price, or a usage the provider did not count, costs
// null: never a made-up 0.
import { type Usage, USAGE_FIELDS } from "../protocol/index.ts";
import { SHIPPED_PRICES } from "./prices.ts";
import type { Price } from "./types.ts";

const DATE_SUFFIX = /-(?:\d{4}-\d{2}-\d{2}|\d{8})$/;

/** A model id as the table keys it: lower case, without a provider prefix (`openai/`), date suffix or `-latest`. */
export function priceKey(model: string): string {
  return model.trim().toLowerCase().replace(/^.*\//, "").replace(/-latest$/, "").replace(DATE_SUFFIX, "");
}

/** The price of `model`: the configured one (by exact name, then by key), else the shipped one, else undefined. */
export function priceOf(model: string, configured: Readonly<Record<string, Price>> = {}): Price | undefined {
  if (Object.hasOwn(configured, model)) return configured[model];
  const key = priceKey(model);
  for (const [name, price] of Object.entries(configured)) if (priceKey(name) === key) return price;
  return Object.hasOwn(SHIPPED_PRICES, key) ? SHIPPED_PRICES[key] : undefined;
}

/**
 * USD for `usage` at `price`: cached input at the cached price, cache writes at the write price, the rest of the
 * input at the input price, all output (reasoning included) at the output price. Null when the price is unknown or
 * the provider counted no input or no output.
 */
export function costOf(usage: Usage, price: Price | undefined): number | null {
  if (price === undefined) return null;
  const counts = usage;
  if (counts.input_tokens === undefined || counts.output_tokens === undefined) return null;
  const cached = counts.cached_input_tokens ?? 0;
  const written = counts.cache_creation_input_tokens ?? 0;
  const plain = Math.max(0, counts.input_tokens - cached - written);
  const micro = plain * price.input + cached * price.cached_input + written * (price.cache_write ?? price.input) +
    counts.output_tokens * price.output;
  return roundUsd(micro / 1_000_000);
}

/** Ten decimal places: far below a cent, and short in JSON. */
export function roundUsd(value: number): number {
  return Math.round(value * 1e10) / 1e10;
}

/** Adds every count of `step` to `total` (in place); a count that is not a number (a damaged journal) is skipped. */
export function addUsage(total: Usage, step: Usage): Usage {
  for (const field of USAGE_FIELDS) {
    const count = step[field];
    if (typeof count === "number" && Number.isFinite(count)) total[field] = (total[field] ?? 0) + count;
  }
  return total;
}

/** True when the usage counted anything at all. */
export function hasUsage(usage: Usage): boolean {
  return USAGE_FIELDS.some((field) => typeof usage[field] === "number");
}

/**
 * What a session spent: summed usage; `cost_usd` the sum of the known costs, or null when any counted usage had no
 * known price; `known_cost_usd` the sum of the known costs alone (what a budget counts).
 */
export type SpendingTotals = { usage: Usage; cost_usd: number | null; known_cost_usd: number };

export function emptyTotals(): SpendingTotals {
  return { usage: {}, cost_usd: 0, known_cost_usd: 0 };
}

/** Adds one turn's or one request's usage and cost to `totals` (in place). */
export function addSpending(totals: SpendingTotals, usage: Usage, cost: number | null): SpendingTotals {
  addUsage(totals.usage, usage);
  if (cost !== null) totals.known_cost_usd = roundUsd(totals.known_cost_usd + cost);
  if (cost === null && hasUsage(usage)) totals.cost_usd = null;
  else if (totals.cost_usd !== null && cost !== null) totals.cost_usd = roundUsd(totals.cost_usd + cost);
  return totals;
}
