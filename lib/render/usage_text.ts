// Token usage and cost as a client shows them: sums over turns, `4 in / 2 out`, the cached and reasoning parts, and
// US dollars (docs/sessions.md#usage-and-cost).
import { type EventOf, type Usage, USAGE_FIELDS } from "../protocol/index.ts";

/** `total` plus `more`, field by field; a field neither reports stays absent. */
export function addUsage(total: Usage, more: Usage): Usage {
  const result: Usage = {};
  for (const field of USAGE_FIELDS) {
    const a = total[field];
    const b = more[field];
    if (a === undefined && b === undefined) continue;
    result[field] = (a ?? 0) + (b ?? 0);
  }
  return result;
}

/** `4 in / 2 out`, or `no usage reported`. */
export function formatUsage(usage: Usage | undefined): string {
  if (!usage || (usage.input_tokens === undefined && usage.output_tokens === undefined)) return "no usage reported";
  return `${usage.input_tokens ?? 0} in / ${usage.output_tokens ?? 0} out`;
}

/** `formatUsage` with the parts providers report: `1200 in (1000 cached) / 300 out (200 reasoning)`. */
export function formatUsageDetail(usage: Usage | undefined): string {
  if (!usage || (usage.input_tokens === undefined && usage.output_tokens === undefined)) return "no usage reported";
  const inputParts = [
    usage.cached_input_tokens ? `${usage.cached_input_tokens} cached` : "",
    usage.cache_creation_input_tokens ? `${usage.cache_creation_input_tokens} written to the cache` : "",
  ].filter((part) => part !== "");
  const input = `${usage.input_tokens ?? 0} in${inputParts.length > 0 ? ` (${inputParts.join(", ")})` : ""}`;
  const reasoning = usage.reasoning_output_tokens ? ` (${usage.reasoning_output_tokens} reasoning)` : "";
  return `${input} / ${usage.output_tokens ?? 0} out${reasoning}`;
}

/** `$0.0123` (four decimals below a dollar, two above); `unknown` for null: a price scv does not know. */
export function formatUsd(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "unknown";
  return value >= 1 ? `$${value.toFixed(2)}` : `$${value.toFixed(4)}`;
}

/** The rows of a `session.usage`: the last turn, the session, the budget and the model's price. */
export function spendingLines(usage: EventOf<"session.usage">): string[] {
  const unknown = `unknown: scv has no price for model ${usage.model}; add [model_prices."${usage.model}"]`;
  const cost = (value: number | null) => value === null ? unknown : formatUsd(value);
  const last = usage.last_turn;
  const lines = [
    `last turn: ${last ? `${formatUsageDetail(last.usage)} · ${cost(last.cost_usd)}` : "no turn yet"}`,
    `this session: ${formatUsageDetail(usage.usage)} · ${cost(usage.cost_usd)}`,
  ];
  if (usage.max_cost_usd !== null) {
    const spent = usage.cost_usd === null ? "an unknown amount" : formatUsd(usage.cost_usd);
    lines.push(`budget: ${spent} of ${formatUsd(usage.max_cost_usd)} spent (max_cost_usd)`);
  }
  const price = usage.price;
  if (price !== null) {
    const per = (value: number) => `$${Number(value.toPrecision(6))}`;
    const write = price.cache_write === undefined ? "" : `, ${per(price.cache_write)} cache writes`;
    lines.push(
      `price of ${usage.model} per million tokens: ${per(price.input)} in, ${per(price.cached_input)} cached, ` +
        `${per(price.output)} out${write}`,
    );
  }
  return lines;
}
