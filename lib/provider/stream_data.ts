// The data of one SSE message, shared by both wires (spec §8.2: `[DONE]` ends the stream, empty
// data is ignored, non-JSON data fails unless it is an `error` event's raw text).
import {
  AttemptFailure,
  extractDetails,
  formatDetails,
  isTransientDetails,
  limitFailure,
  providerFailure,
  sanitize,
} from "./errors.ts";
import type { SseMessage } from "./sse.ts";

export type Json = Record<string, unknown>;

export type StreamData = { kind: "done" } | { kind: "skip" } | { kind: "json"; value: unknown };

export function isJsonObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function parseStreamData(message: SseMessage, credential: string): StreamData {
  const data = message.data;
  const trimmed = data.trim();
  if (trimmed === "[DONE]") return { kind: "done" };
  if (trimmed === "") return { kind: "skip" };
  try {
    return { kind: "json", value: JSON.parse(data) };
  } catch (error) {
    if (message.event === "error") {
      throw providerFailure(
        `provider stream error: ${sanitize(data, credential)}`,
        isTransientDetails({ message: data, labels: [] }),
      );
    }
    throw providerFailure(`invalid provider stream JSON: ${sanitize((error as Error).message, credential)}`, false);
  }
}

/**
 * Why a stream that ended without its end marker failed: the error object a server wrote as a bare body
 * (no `data:` line), else an incomplete event or an early end. All but a reported error are transient.
 */
export function unfinishedStreamFailure(leftover: string, credential: string): AttemptFailure {
  const rest = leftover.trim();
  if (rest === "") return providerFailure("provider stream ended before the response completed", true);
  let body: unknown;
  try {
    body = JSON.parse(rest);
  } catch {
    body = undefined;
  }
  const details = extractDetails(body);
  if (details)
    return providerFailure(`provider error: ${formatDetails(details, credential)}`, isTransientDetails(details));
  return providerFailure("provider stream ended with an incomplete SSE event", true);
}

/** A tool call's argument text while it streams in, bounded by `max_tool_arguments_bytes`. */
export type ArgumentBuffer = { arguments: string; argumentBytes: number };

export function appendArguments(
  call: ArgumentBuffer,
  fragment: string,
  maxBytes: number,
  payload: PayloadBudget,
): void {
  const bytes = Buffer.byteLength(fragment);
  call.argumentBytes += bytes;
  if (call.argumentBytes > maxBytes) throw limitFailure("tool_limit", "tool arguments exceeded byte limit");
  payload.add(bytes);
  call.arguments += fragment;
}

/**
 * The payload of one response (spec §8.1 "Limits", Changed): bytes of text, reasoning and tool-call argument
 * deltas, not SSE framing, held to `max_response_bytes`.
 */
export class PayloadBudget {
  #bytes = 0;
  readonly #maxBytes: number;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  get bytes(): number {
    return this.#bytes;
  }

  add(bytes: number): void {
    this.#bytes += bytes;
    if (this.#bytes > this.#maxBytes) throw limitFailure("response_limit", "provider response exceeded byte limit");
  }

  addText(text: string): void {
    this.add(Buffer.byteLength(text));
  }
}

/** The complete argument text as JSON (`{}` when blank). */
export function parseArguments(text: string, credential: string): unknown {
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch (error) {
    throw providerFailure(
      `provider returned invalid tool arguments: ${sanitize((error as Error).message, credential)}`,
      false,
    );
  }
}

/** The assistant text of one response, held to `max_assistant_bytes` (spec §8.1 limits). */
export class AssistantText {
  text = "";
  #bytes = 0;
  readonly #maxBytes: number;
  readonly #payload: PayloadBudget;

  constructor(maxBytes: number, payload: PayloadBudget) {
    this.#maxBytes = maxBytes;
    this.#payload = payload;
  }

  append(delta: string): void {
    const bytes = Buffer.byteLength(delta);
    this.#payload.add(bytes);
    if (this.#bytes + bytes > this.#maxBytes)
      throw limitFailure("response_limit", "assistant response exceeded byte limit");
    this.#bytes += bytes;
    this.text += delta;
  }
}
