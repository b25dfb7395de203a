// Contract between the model provider and its callers (the agent loop, the session).
// The profile is the resolved configuration's own type; the limit shape mirrors
// `ResolvedConfig["provider_limits"]` (spec §7.2) structurally.
import type { ProviderProfile } from "../config/index.ts";
import type { Usage } from "../protocol/index.ts";

export type { ProviderProfile, Usage };

export type ProviderLimits = {
  max_sse_event_bytes: number;
  max_response_bytes: number;
  max_assistant_bytes: number;
  max_tool_calls: number;
  max_tool_arguments_bytes: number;
  max_retries: number;
};

export type FunctionToolSchema = { name: string; description: string; parameters: object };

export type ToolCallRecord = { call_id: string; name: string; arguments: unknown /* parsed JSON */ };

/**
 * What a response leaves for the next request besides its text and calls (spec §8.2/§8.3 "reasoning round trip"):
 * the provider needs it back to keep its reasoning between tool calls.
 */
export type AssistantReplay = {
  /** Responses wire: reasoning items (`{type:"reasoning", summary, encrypted_content}`, no `id`), in order. */
  reasoning?: Array<Record<string, unknown>>;
  /** Responses wire: the message items' texts with their `phase`, when a server sent one. */
  messages?: Array<{ text: string; phase?: string }>;
  /** Chat wire: the hidden reasoning text and the field the server streamed it in. */
  reasoning_text?: { field: "reasoning_content" | "reasoning"; text: string };
  /**
   * Messages wire, when the response had thinking: its content blocks in order. Thinking blocks are kept whole, as
   * the API sent them (it checks their signatures); text and tool-use blocks only mark where the item's text (by
   * length, in UTF-16 code units) and its calls (by id) stood, so nothing is stored twice.
   */
  blocks?: MessagesReplayBlock[];
};

export type MessagesReplayBlock =
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "redacted_thinking"; data: string }
  | { type: "text"; length: number }
  | { type: "tool_use"; id: string };

/**
 * An image of a user message (a turn's attachment), kept by path: the file is read for each request, never stored
 * in the history. `data_url` and `omitted` are set only on the copy one request is built from.
 */
export type ImageInput = {
  /** The canonical path the server checked when the turn was submitted. */
  path: string;
  mime: string;
  data_url?: string;
  /** Why the image is described instead of shown: image input is off (or older than the newest images), or unreadable. */
  omitted?: "not_shown" | "unreadable";
};

export type HistoryItem =
  | { kind: "user"; content: string; images?: ImageInput[] }
  | { kind: "assistant"; content: string; calls: ToolCallRecord[]; replay?: AssistantReplay }
  | { kind: "tool_result"; call_id: string; name: string; output: string; success: boolean };

export type ProviderRequest = {
  model: string;
  instructions: string;
  history: HistoryItem[];
  tools: FunctionToolSchema[];
  /** The turn's step number (from 1); names tool calls that arrive without an id on the chat wire. Default 1. */
  step?: number;
};

export type ProviderResponse = { text: string; calls: ToolCallRecord[]; usage: Usage; replay?: AssistantReplay };

/** A retry about to wait (the `turn.retrying` event's fields). */
export type RetryNotice = {
  /** The attempt that just failed, from 1. */
  attempt: number;
  /** How many attempts the request may make in all (`max_retries` + 1). */
  max_attempts: number;
  delay_ms: number;
  /** A few words: `HTTP 429`, `connection reset`, the provider's own message. */
  reason: string;
};

export type StreamHandlers = {
  signal: AbortSignal;
  onTextDelta(text: string): void | Promise<void>;
  /** Told before each retry's wait; the wait starts once it settles. */
  onRetry?(notice: RetryNotice): void | Promise<void>;
  /** Reasoning the provider shows (a Responses summary or reasoning text, a chat `reasoning_content`), as it streams. */
  onReasoningDelta?(text: string): void | Promise<void>;
};

export interface ProviderClient {
  /** Rejects with ProviderError, or with an Error named "AbortError" when `signal` aborts. */
  stream(request: ProviderRequest, handlers: StreamHandlers): Promise<ProviderResponse>;
  close(): Promise<void>;
}

export type ProviderErrorCode = "provider_error" | "response_limit" | "tool_limit";

/** `message` is the exact wire text of spec §5.2/§8, with the credential redacted. */
export class ProviderError extends Error {
  code: ProviderErrorCode;
  constructor(code: ProviderErrorCode, message: string) {
    super(message);
    this.name = "ProviderError";
    this.code = code;
  }
}

/** Test seams: the retry backoff's sleep and random source. */
export type RetryTiming = {
  delay(ms: number, signal: AbortSignal): Promise<void>;
  random(): number;
};

export type CreateProviderOptions = {
  profile: ProviderProfile;
  limits: ProviderLimits;
  credential: string;
  hostedWebSearch: boolean;
  timing?: Partial<RetryTiming>;
  /** Receives configuration warnings (default: a line on stderr). */
  warn?: (message: string) => void;
  /** Responses wire `prompt_cache_key`: stable for the client's session (default: a random UUID per client). */
  promptCacheKey?: string;
};
