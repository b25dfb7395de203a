// Prices and costs (lib/pricing): the shipped table by model id (date suffixes and provider prefixes dropped), the
// configuration first, cached input and cache writes at their own prices, and null — never 0 — when unknown.
import { describe, expect, it } from "vitest";
import { addSpending, costOf, emptyTotals, priceKey, priceOf, SHIPPED_PRICES } from "../../lib/pricing/index.ts";

describe("priceOf", () => {
  it("finds dated and prefixed ids in the shipped table, and nothing for an unknown model", () => {
    expect(priceKey("openai/GPT-4.1-mini-2025-04-14")).toBe("gpt-4.1-mini");
    expect(priceKey("claude-sonnet-4-5-20250929")).toBe("claude-sonnet-4-5");
    expect(priceOf("gpt-4.1-mini-2025-04-14")).toEqual(SHIPPED_PRICES["gpt-4.1-mini"]);
    expect(priceOf("claude-opus-4-20250514")).toEqual({ input: 15, cached_input: 1.5, output: 75, cache_write: 18.75 });
    expect(priceOf("llama3.1")).toBeUndefined();
    // A newer model is not priced as an older one by prefix.
    expect(priceOf("gpt-4.1-mega")).toBeUndefined();
  });

  it("prefers the configuration, by exact name or by id", () => {
    const configured = {
      "llama3.1": { input: 0, cached_input: 0, output: 0 },
      "GPT-5": { input: 9, cached_input: 9, output: 9 },
    };
    expect(priceOf("llama3.1", configured)).toEqual({ input: 0, cached_input: 0, output: 0 });
    expect(priceOf("gpt-5-2025-08-07", configured)).toEqual({ input: 9, cached_input: 9, output: 9 });
  });

  it("lists every shipped price as positive numbers with cached input at most input", () => {
    for (const [model, price] of Object.entries(SHIPPED_PRICES)) {
      expect(price.input, model).toBeGreaterThan(0);
      expect(price.output, model).toBeGreaterThan(price.input);
      expect(price.cached_input, model).toBeLessThanOrEqual(price.input);
    }
  });
});

describe("costOf", () => {
  const price = { input: 2, cached_input: 0.2, output: 10, cache_write: 2.5 };

  it("prices plain, cached and written input apart, and all output (reasoning included) as output", () => {
    expect(costOf(
      {
        input_tokens: 10_000,
        cached_input_tokens: 6_000,
        cache_creation_input_tokens: 3_000,
        output_tokens: 500,
        reasoning_output_tokens: 400,
      },
      price,
    )).toBe((1_000 * 2 + 6_000 * 0.2 + 3_000 * 2.5 + 500 * 10) / 1e6);
    expect(costOf({ input_tokens: 1000, output_tokens: 0 }, { input: 1, cached_input: 1, output: 1 })).toBe(0.001);
  });

  it("is null when the price is unknown or the provider counted nothing", () => {
    expect(costOf({ input_tokens: 10, output_tokens: 10 }, undefined)).toBeNull();
    expect(costOf({}, price)).toBeNull();
  });
});

describe("addSpending", () => {
  it("keeps the known part for the budget, and the total null once a counted part had no price", () => {
    const totals = emptyTotals();
    addSpending(totals, { input_tokens: 1, output_tokens: 1 }, 0.5);
    expect(totals).toEqual({ usage: { input_tokens: 1, output_tokens: 1 }, cost_usd: 0.5, known_cost_usd: 0.5 });
    addSpending(totals, {}, null);
    expect(totals.cost_usd).toBe(0.5);
    addSpending(totals, { input_tokens: 5, output_tokens: 5 }, null);
    addSpending(totals, { input_tokens: 1, output_tokens: 1 }, 0.25);
    expect(totals).toEqual({ usage: { input_tokens: 7, output_tokens: 7 }, cost_usd: null, known_cost_usd: 0.75 });
  });
});
