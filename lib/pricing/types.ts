/** A model's prices in USD per million tokens. */
export type Price = {
  input: number;
  /** Input read from the prompt cache (the input price when a model has no cache discount). */
  cached_input: number;
  output: number;
  /** Input written to the prompt cache, where a provider charges for it (Anthropic); else the input price. */
  cache_write?: number;
};
