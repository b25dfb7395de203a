// Reads an Anthropic Messages stream into one response: `message_start`, content blocks (`content_block_start`,
// `content_block_delta` with text, tool-input JSON, thinking and signature deltas, `content_block_stop`),
// `message_delta` (stop reason, usage), `message_stop`, `ping` and `error`, within the limits of every wire.
import {
  extractDetails,
  formatDetails,
  isTransientDetails,
  limitFailure,
  providerFailure,
  sanitize,
} from "./errors.ts";
import { messageHintMs } from "./retry_policy.ts";
import type { SseMessage } from "./sse.ts";
import {
  appendArguments,
  AssistantText,
  isJsonObject as isObject,
  type Json,
  parseArguments,
  parseStreamData,
  PayloadBudget,
  unfinishedStreamFailure,
} from "./stream_data.ts";
import type { MessagesReplayBlock, ProviderLimits, ProviderResponse, ToolCallRecord } from "./types.ts";
import { type MessagesCounts, messagesUsage, readMessagesCounts } from "./usage.ts";

type ContentBlock =
  | { type: "text"; length: number }
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "redacted_thinking"; data: string }
  | { type: "tool_use"; id?: string; name?: string; input: unknown; arguments: string; argumentBytes: number };

/** Stop reasons that end a response before it is whole, reported as the other wires report theirs. */
const INCOMPLETE_REASONS = new Set(["max_tokens", "model_context_window_exceeded", "refusal"]);

export class MessagesStreamState {
  /** True once text or a tool use arrived: the attempt can no longer be retried. */
  streamed = false;
  /** True after `message_stop`. */
  finished = false;
  #stopReason: string | undefined;
  #messageId: string | undefined;
  #assistant: AssistantText;
  #payload: PayloadBudget;
  #counts: MessagesCounts = {};
  /** By the stream's block index, in order of arrival. */
  #blocks = new Map<number, ContentBlock>();
  #toolUses = 0;
  #limits: ProviderLimits;
  #credential: string;
  #onTextDelta: (text: string) => void | Promise<void>;
  #onReasoningDelta: ((text: string) => void | Promise<void>) | undefined;

  constructor(
    limits: ProviderLimits,
    credential: string,
    onTextDelta: (text: string) => void | Promise<void>,
    onReasoningDelta?: (text: string) => void | Promise<void>,
  ) {
    this.#limits = limits;
    this.#payload = new PayloadBudget(limits.max_response_bytes);
    this.#assistant = new AssistantText(limits.max_assistant_bytes, this.#payload);
    this.#credential = credential;
    this.#onTextDelta = onTextDelta;
    this.#onReasoningDelta = onReasoningDelta;
  }

  /** Handles one event; returns a promise only while the caller's onTextDelta is pending. */
  handle(message: SseMessage): void | Promise<void> {
    const data = parseStreamData(message, this.#credential);
    if (data.kind === "done") {
      this.finished = true;
      return;
    }
    if (data.kind === "skip") return;
    const event = data.value;
    if (!isObject(event)) return;
    const type = message.errorLine ? "error" : typeof event.type === "string" ? event.type : message.event;
    switch (type) {
      case "message_start":
        return this.#messageStart(event.message);
      case "content_block_start":
        return this.#blockStart(event.index, event.content_block);
      case "content_block_delta":
        return this.#blockDelta(event.index, event.delta);
      case "message_delta":
        return this.#messageDelta(event);
      case "message_stop":
        this.finished = true;
        return;
      case "error": {
        // `overloaded_error` and `rate_limit_error` are transient; `api_error` too (Anthropic's own 500).
        const details = extractDetails(event);
        throw providerFailure(
          `provider stream error: ${formatDetails(details, this.#credential)}`,
          isTransientDetails(details) || details?.labels.includes("api_error") === true,
          messageHintMs(details),
        );
      }
      default:
        // `ping`, `content_block_stop` and event types added later need nothing.
        return;
    }
  }

  /** Applies the end-of-stream rules and assembles the response. */
  // deno-lint-ignore require-await
  async finish(leftover: string): Promise<ProviderResponse> {
    // A server that stops after the stop reason without `message_stop` has still sent the whole message.
    if (!this.finished && this.#stopReason === undefined) throw unfinishedStreamFailure(leftover, this.#credential);
    const response: ProviderResponse = {
      text: this.#assistant.text,
      calls: this.#assembleCalls(),
      usage: messagesUsage(this.#counts),
    };
    const blocks = [...this.#blocks.values()];
    if (blocks.some((block) => block.type === "thinking" || block.type === "redacted_thinking")) {
      response.replay = { blocks: blocks.map(replayBlock) };
    }
    return response;
  }

  #messageStart(message: unknown): void {
    if (!isObject(message)) return;
    const id = typeof message.id === "string" ? message.id : undefined;
    // A proxy that spliced two streams into one would mix two messages' blocks.
    if (this.#blocks.size > 0 && id !== undefined && this.#messageId !== undefined && id !== this.#messageId) {
      throw providerFailure("provider stream error: a second message started inside the stream", true);
    }
    this.#messageId ??= id;
    if (isObject(message.usage)) readMessagesCounts(message.usage, this.#counts);
  }

  #blockStart(rawIndex: unknown, raw: unknown): void | Promise<void> {
    if (!isObject(raw)) return;
    const index = indexOf(rawIndex);
    switch (raw.type) {
      case "text": {
        this.#blocks.set(index, { type: "text", length: 0 });
        // Some Anthropic-compatible servers put the first text in the start event.
        return typeof raw.text === "string" && raw.text !== "" ? this.#text(index, raw.text) : undefined;
      }
      case "thinking": {
        const block: ContentBlock = { type: "thinking", thinking: "", signature: "" };
        this.#blocks.set(index, block);
        if (typeof raw.signature === "string") this.#signature(block, raw.signature);
        return typeof raw.thinking === "string" && raw.thinking !== ""
          ? this.#thinking(block, raw.thinking)
          : undefined;
      }
      case "redacted_thinking": {
        // Encrypted thinking arrives whole here and goes back as it came; there is nothing to show.
        const data = typeof raw.data === "string" ? raw.data : "";
        this.#payload.addText(data);
        this.#blocks.set(index, { type: "redacted_thinking", data });
        return;
      }
      case "tool_use": {
        this.#toolUses += 1;
        if (this.#toolUses > this.#limits.max_tool_calls) {
          throw limitFailure("tool_limit", "provider returned too many tool calls");
        }
        this.streamed = true;
        this.#blocks.set(index, {
          type: "tool_use",
          id: nonEmpty(raw.id),
          name: nonEmpty(raw.name),
          input: raw.input,
          arguments: "",
          argumentBytes: 0,
        });
        return;
      }
      default:
        // Server tools' blocks (web search and the like) are not requested, so not expected.
        return;
    }
  }

  #blockDelta(rawIndex: unknown, delta: unknown): void | Promise<void> {
    if (!isObject(delta)) return;
    const index = indexOf(rawIndex);
    const block = this.#blocks.get(index);
    switch (delta.type) {
      case "text_delta": {
        if (typeof delta.text !== "string" || delta.text === "") return;
        if (block === undefined) this.#blocks.set(index, { type: "text", length: 0 });
        else if (block.type !== "text") return;
        return this.#text(index, delta.text);
      }
      case "thinking_delta":
        if (block?.type !== "thinking" || typeof delta.thinking !== "string" || delta.thinking === "") return;
        return this.#thinking(block, delta.thinking);
      case "signature_delta":
        if (block?.type === "thinking" && typeof delta.signature === "string") this.#signature(block, delta.signature);
        return;
      case "input_json_delta":
        if (block?.type !== "tool_use" || typeof delta.partial_json !== "string") return;
        this.streamed = true;
        appendArguments(block, delta.partial_json, this.#limits.max_tool_arguments_bytes, this.#payload);
        return;
      default:
        return;
    }
  }

  #messageDelta(event: Json): void {
    if (isObject(event.usage)) readMessagesCounts(event.usage, this.#counts);
    const delta = isObject(event.delta) ? event.delta : {};
    const reason = nonEmpty(delta.stop_reason);
    if (reason === undefined) return;
    this.#stopReason = reason;
    if (!INCOMPLETE_REASONS.has(reason)) return;
    const details = isObject(delta.stop_details) ? nonEmpty(delta.stop_details.explanation) : undefined;
    const text = details === undefined ? reason : `${reason} (${details})`;
    throw providerFailure(`provider response incomplete: ${sanitize(text, this.#credential)}`, false);
  }

  #text(index: number, text: string): void | Promise<void> {
    const block = this.#blocks.get(index);
    this.#assistant.append(text);
    if (block?.type === "text") block.length += text.length;
    this.streamed = true;
    return this.#onTextDelta(text);
  }

  /** Thinking is payload; it goes to the caller as reasoning, never as answer text. */
  #thinking(block: Extract<ContentBlock, { type: "thinking" }>, text: string): void | Promise<void> {
    this.#payload.addText(text);
    block.thinking += text;
    return this.#onReasoningDelta?.(text);
  }

  /** The API sends the whole signature in one delta; a later one replaces it, as the official SDKs read it. */
  #signature(block: Extract<ContentBlock, { type: "thinking" }>, signature: string): void {
    if (signature === "") return;
    this.#payload.addText(signature);
    block.signature = signature;
  }

  #assembleCalls(): ToolCallRecord[] {
    const calls: ToolCallRecord[] = [];
    for (const block of this.#blocks.values()) {
      if (block.type !== "tool_use") continue;
      if (!block.id || !block.name) throw providerFailure("provider returned an incomplete tool call", false);
      // With no input deltas the start event's `input` is the whole input (`{}` for a tool without parameters).
      const args = block.arguments === "" && isObject(block.input)
        ? block.input
        : parseArguments(block.arguments, this.#credential);
      calls.push({ call_id: block.id, name: block.name, arguments: args });
    }
    return calls;
  }
}

function replayBlock(block: ContentBlock): MessagesReplayBlock {
  switch (block.type) {
    case "text":
      return { type: "text", length: block.length };
    case "thinking":
      return { type: "thinking", thinking: block.thinking, signature: block.signature };
    case "redacted_thinking":
      return { type: "redacted_thinking", data: block.data };
    case "tool_use":
      return { type: "tool_use", id: block.id ?? "" };
  }
}

function indexOf(value: unknown): number {
  return typeof value === "number" && Number.isInteger(value) ? value : 0;
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}
