// What a session's tokens cost (docs/configuration.md#model-prices): the shipped price table, prices from the
// configuration, the cost of a usage, and running totals.
export {
  addSpending,
  addUsage,
  costOf,
  emptyTotals,
  hasUsage,
  priceKey,
  priceOf,
  roundUsd,
  type SpendingTotals,
} from "./cost.ts";
export { SHIPPED_PRICES } from "./prices.ts";
export type { Price } from "./types.ts";
