// Token usage as each wire reports it, read into the one `Usage` shape (docs/protocol.md `turn.completed`):
// `input_tokens` is the whole input and `output_tokens` the whole output on every wire, with the cached and
// reasoning parts beside them. A count the provider did not give stays absent.
import { isJsonObject as isObject, type Json } from "./stream_data.ts";
import type { Usage } from "./types.ts";

function count(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
}

function set(usage: Usage, field: keyof Usage, value: number | undefined): void {
  if (value !== undefined) usage[field] = value;
}

/** Responses wire: `response.usage` (`input_tokens` already includes the cached part). */
export function readResponsesUsage(raw: Json, into: Usage): void {
  set(into, "input_tokens", count(raw.input_tokens));
  set(into, "output_tokens", count(raw.output_tokens));
  const input = isObject(raw.input_tokens_details) ? raw.input_tokens_details : {};
  const output = isObject(raw.output_tokens_details) ? raw.output_tokens_details : {};
  set(into, "cached_input_tokens", count(input.cached_tokens));
  set(into, "reasoning_output_tokens", count(output.reasoning_tokens));
}

/** Chat Completions wire: the usage chunk (`prompt_tokens` already includes the cached part). */
export function readChatUsage(raw: Json, into: Usage): void {
  set(into, "input_tokens", count(raw.prompt_tokens));
  set(into, "output_tokens", count(raw.completion_tokens));
  const input = isObject(raw.prompt_tokens_details) ? raw.prompt_tokens_details : {};
  const output = isObject(raw.completion_tokens_details) ? raw.completion_tokens_details : {};
  set(into, "cached_input_tokens", count(input.cached_tokens));
  set(into, "reasoning_output_tokens", count(output.reasoning_tokens));
}

/** The counts of the Messages wire as it sends them, before they are summed into `Usage`. */
export type MessagesCounts = {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
  thinking_tokens?: number;
};

/**
 * Messages wire: `message_start.message.usage`, then each `message_delta.usage`, which repeats the counts so far
 * (later values win). Its `input_tokens` leaves the cache out; the cache counts are added to it when the total is made.
 */
export function readMessagesCounts(raw: Json, into: MessagesCounts): void {
  for (
    const field of ["input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"] as const
  ) {
    const value = count(raw[field]);
    if (value !== undefined) into[field] = value;
  }
  const output = isObject(raw.output_tokens_details) ? raw.output_tokens_details : {};
  const thinking = count(output.thinking_tokens);
  if (thinking !== undefined) into.thinking_tokens = thinking;
}

export function messagesUsage(counts: MessagesCounts): Usage {
  const usage: Usage = {};
  const { input_tokens: plain, cache_read_input_tokens: read, cache_creation_input_tokens: written } = counts;
  if (plain !== undefined || read !== undefined || written !== undefined) {
    usage.input_tokens = (plain ?? 0) + (read ?? 0) + (written ?? 0);
  }
  set(usage, "output_tokens", counts.output_tokens);
  set(usage, "cached_input_tokens", read);
  set(usage, "cache_creation_input_tokens", written);
  set(usage, "reasoning_output_tokens", counts.thinking_tokens);
  return usage;
}
