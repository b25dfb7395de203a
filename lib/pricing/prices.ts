// The price table scv ships: USD per million tokens, per model, for the models of OpenAI and Anthropic's APIs
// (standard tier; batch, priority and regional prices are not scv's). `cached_input` is the price of input read from
// the provider's prompt cache; `cache_write` the price of input written to it (Anthropic's 5-minute cache writes;
// OpenAI's models of this table charge none).
//
// Sources (read for this table; verify before relying on a figure, and extend or correct it with
// `[model_prices."<model>"]` in the configuration):
// - OpenAI: https://developers.openai.com/api/docs/pricing, as GitHub's Copilot price table reproduces it
//   (github/docs, data/tables/copilot/models-and-pricing.yml: GPT-5 mini, GPT-5.2, GPT-5.2-Codex, GPT-5.3-Codex,
//   GPT-5.4, GPT-5.4 mini, GPT-5.4 nano, GPT-5.5, GPT-4.1), and the same OpenAI page for the older models (GPT-5,
//   GPT-5.1 and their codex variants, GPT-5 nano, GPT-4.1 mini and nano, GPT-4o, GPT-4o mini, o3, o3-mini, o4-mini).
//   GPT-5.4 and GPT-5.5 bill a request over 272K input tokens at a higher rate; scv prices every request at the
//   default tier.
// - Anthropic: https://platform.claude.com/docs/en/about-claude/pricing ("Model pricing": base input tokens, 5m
//   cache writes, cache hits and refreshes, output tokens), and GitHub's table above for Claude Haiku 4.5, Sonnet 4,
//   4.5, 4.6 and Sonnet 5; Claude Haiku 3 and 3.5 and Sonnet 3.7 from the same Anthropic page's earlier revision
//   (docs.anthropic.com/en/docs/about-claude/pricing).
import type { Price } from "./types.ts";

const price = (input: number, cached_input: number, output: number, cache_write?: number): Price => ({
  input,
  cached_input,
  output,
  ...(cache_write === undefined ? {} : { cache_write }),
});

const GPT_5 = price(1.25, 0.125, 10);
const GPT_5_2 = price(1.75, 0.175, 14);
const OPUS_4_5 = price(5, 0.5, 25, 6.25);
const OPUS_4 = price(15, 1.5, 75, 18.75);
const SONNET_4 = price(3, 0.3, 15, 3.75);

/** Keys are model ids as the APIs name them, without a date suffix (`-2025-04-14`, `-20250929`). */
export const SHIPPED_PRICES: Readonly<Record<string, Price>> = {
  // OpenAI
  "gpt-5.5": price(5, 0.5, 30),
  "gpt-5.4": price(2.5, 0.25, 15),
  "gpt-5.4-mini": price(0.75, 0.075, 4.5),
  "gpt-5.4-nano": price(0.2, 0.02, 1.25),
  "gpt-5.3-codex": GPT_5_2,
  "gpt-5.2": GPT_5_2,
  "gpt-5.2-codex": GPT_5_2,
  "gpt-5.1": GPT_5,
  "gpt-5.1-codex": GPT_5,
  "gpt-5.1-codex-mini": price(0.25, 0.025, 2),
  "gpt-5": GPT_5,
  "gpt-5-codex": GPT_5,
  "gpt-5-mini": price(0.25, 0.025, 2),
  "gpt-5-nano": price(0.05, 0.005, 0.4),
  "gpt-4.1": price(2, 0.5, 8),
  "gpt-4.1-mini": price(0.4, 0.1, 1.6),
  "gpt-4.1-nano": price(0.1, 0.025, 0.4),
  "gpt-4o": price(2.5, 1.25, 10),
  "gpt-4o-mini": price(0.15, 0.075, 0.6),
  "o3": price(2, 0.5, 8),
  "o3-mini": price(1.1, 0.55, 4.4),
  "o4-mini": price(1.1, 0.275, 4.4),
  // Anthropic
  "claude-opus-5": OPUS_4_5,
  "claude-sonnet-5": price(2, 0.2, 10, 2.5),
  "claude-opus-4-8": OPUS_4_5,
  "claude-opus-4-7": OPUS_4_5,
  "claude-opus-4-6": OPUS_4_5,
  "claude-opus-4-5": OPUS_4_5,
  "claude-opus-4-1": OPUS_4,
  "claude-opus-4": OPUS_4,
  "claude-opus-4-0": OPUS_4,
  "claude-sonnet-4-6": SONNET_4,
  "claude-sonnet-4-5": SONNET_4,
  "claude-sonnet-4": SONNET_4,
  "claude-sonnet-4-0": SONNET_4,
  "claude-3-7-sonnet": SONNET_4,
  "claude-haiku-4-5": price(1, 0.1, 5, 1.25),
  "claude-3-5-haiku": price(0.8, 0.08, 4, 1),
  "claude-3-haiku": price(0.25, 0.03, 1.25, 0.3),
};
