// What the Messages wire needs to know per model: the `max_tokens` sent when `provider.max_output_tokens` is unset.
// The API requires the field; too high a value only reserves rate limit, too low a value cuts answers and files.

/** The most a default asks for: ample for an agent's step, and below every current Claude model's limit. */
const DEFAULT_CAP = 32_000;
/** Anthropic-compatible endpoints serving other models (GLM, Kimi, MiniMax): a value they all accept. */
const OTHER_MODELS = 8_192;

/** Models whose output limit is below the cap (Claude 3 and 3.5), by name prefix; longest prefix first. */
const SMALL_LIMITS: Array<[prefix: string, tokens: number]> = [
  ["claude-3-5-", 8_192],
  ["claude-3-7-", DEFAULT_CAP],
  ["claude-3-", 4_096],
];

/** The default `max_tokens` for `model`: 32000 for Claude models (less where the model allows less), else 8192. */
export function defaultMaxOutputTokens(model: string): number {
  const name = model.toLowerCase().replace(/^.*\//, "");
  if (!name.startsWith("claude")) return OTHER_MODELS;
  for (const [prefix, tokens] of SMALL_LIMITS) if (name.startsWith(prefix)) return tokens;
  return DEFAULT_CAP;
}

/** Room left for the answer when a thinking budget is set and `max_output_tokens` is not. */
export const ANSWER_TOKENS_BESIDE_THINKING = 8_192;

/** `max_tokens` of a request: the configured value, else the model's default, raised to leave an answer room beside the thinking budget. */
export function maxOutputTokens(model: string, configured?: number, thinkingBudget?: number): number {
  if (configured !== undefined) return configured;
  const fallback = defaultMaxOutputTokens(model);
  if (thinkingBudget === undefined) return fallback;
  return Math.max(fallback, thinkingBudget + ANSWER_TOKENS_BESIDE_THINKING);
}
