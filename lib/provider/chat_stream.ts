// Reads Chat Completions stream chunks into one response (spec §8.3, limits of §8.1).
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
import type { AssistantReplay, ProviderLimits, ProviderResponse, ToolCallRecord, Usage } from "./types.ts";
import { readChatUsage } from "./usage.ts";

type PartialCall = { index?: number; id?: string; name?: string; arguments: string; argumentBytes: number };

const INCOMPLETE_REASONS = new Set(["length", "content_filter"]);

function nonEmptyString(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

export class ChatStreamState {
  /** True once a text delta or tool-call fragment arrived: the attempt can no longer be retried. */
  streamed = false;
  /** True after `data: [DONE]`. */
  finished = false;
  #finishReasonSeen = false;
  #assistant: AssistantText;
  #payload: PayloadBudget;
  /** Hidden reasoning (`reasoning_content` or `reasoning`), sent back in the field it came in (spec §8.3). */
  #reasoning: { field: "reasoning_content" | "reasoning"; text: string } | undefined;
  #usage: Usage = {};
  /** In order of first appearance. */
  #calls: PartialCall[] = [];
  #byIndex = new Map<number, PartialCall>();
  #limits: ProviderLimits;
  #credential: string;
  #step: number;
  #onTextDelta: (text: string) => void | Promise<void>;
  #onReasoningDelta: ((text: string) => void | Promise<void>) | undefined;

  constructor(
    limits: ProviderLimits,
    credential: string,
    onTextDelta: (text: string) => void | Promise<void>,
    step: number,
    onReasoningDelta?: (text: string) => void | Promise<void>,
  ) {
    this.#onReasoningDelta = onReasoningDelta;
    this.#limits = limits;
    this.#payload = new PayloadBudget(limits.max_response_bytes);
    this.#assistant = new AssistantText(limits.max_assistant_bytes, this.#payload);
    this.#credential = credential;
    this.#onTextDelta = onTextDelta;
    this.#step = step;
  }

  /** Handles one chunk; returns a promise only while the caller's onTextDelta is pending. */
  handle(message: SseMessage): void | Promise<void> {
    const data = parseStreamData(message, this.#credential);
    if (data.kind === "done") {
      this.finished = true;
      return;
    }
    if (data.kind === "skip") return;
    const chunk = data.value;
    // An `error:` line or `event: error` (older llama.cpp, under HTTP 200), or a chunk with an `error` member.
    if (message.event === "error" || (isObject(chunk) && chunk.error !== undefined && chunk.error !== null)) {
      const details = extractDetails(chunk) ??
        { message: typeof chunk === "string" ? chunk : JSON.stringify(chunk), labels: [] };
      throw providerFailure(
        `provider stream error: ${formatDetails(details, this.#credential)}`,
        isTransientDetails(details),
        messageHintMs(details),
      );
    }
    if (!isObject(chunk)) return;
    if (isObject(chunk.usage)) this.#takeUsage(chunk.usage);
    const choice = pickChoice(chunk.choices);
    if (!choice) return;
    const delta = isObject(choice.delta) ? choice.delta : undefined;
    if (delta && Array.isArray(delta.tool_calls)) {
      for (const fragment of delta.tool_calls) if (isObject(fragment)) this.#addFragment(fragment);
    }
    const reason = nonEmptyString(choice.finish_reason);
    if (reason !== undefined) {
      if (INCOMPLETE_REASONS.has(reason)) {
        throw providerFailure(`provider response incomplete: ${sanitize(reason, this.#credential)}`, false);
      }
      this.#finishReasonSeen = true;
    }
    if (!delta) return;
    // Reasoning is kept for the round trip and goes to the caller as reasoning, never as answer text.
    let thought: void | Promise<void> = undefined;
    if (typeof delta.reasoning_content === "string" && delta.reasoning_content !== "") {
      thought = this.#keepReasoning("reasoning_content", delta.reasoning_content);
    } else if (typeof delta.reasoning === "string" && delta.reasoning !== "") {
      thought = this.#keepReasoning("reasoning", delta.reasoning);
    }
    if (thought) return thought.then(() => this.#handleText(delta));
    return this.#handleText(delta);
  }

  #handleText(delta: Json): void | Promise<void> {
    const content = delta.content;
    const refusal = delta.refusal;
    if (typeof content === "string" && content !== "") {
      const pending = this.#appendText(content);
      if (typeof refusal !== "string" || refusal === "") return pending;
      return Promise.resolve(pending).then(() => this.#appendText(refusal));
    }
    if (typeof refusal === "string" && refusal !== "") return this.#appendText(refusal);
  }

  #keepReasoning(field: "reasoning_content" | "reasoning", text: string): void | Promise<void> {
    this.#payload.addText(text);
    if (this.#reasoning === undefined) this.#reasoning = { field, text };
    else this.#reasoning.text += text;
    return this.#onReasoningDelta?.(text);
  }

  /** Applies the end-of-stream rules and assembles the response. */
  async finish(leftover: string): Promise<ProviderResponse> {
    if (!this.finished && !this.#finishReasonSeen) {
      throw unfinishedStreamFailure(leftover, this.#credential);
    }
    const response: ProviderResponse = { text: this.#assistant.text, calls: this.#assembleCalls(), usage: this.#usage };
    if (this.#reasoning) response.replay = { reasoning_text: this.#reasoning } satisfies AssistantReplay;
    return response;
  }

  #takeUsage(usage: Json): void {
    readChatUsage(usage, this.#usage);
  }

  #appendText(delta: string): void | Promise<void> {
    this.#assistant.append(delta);
    this.streamed = true;
    return this.#onTextDelta(delta);
  }

  #addFragment(fragment: Json): void {
    this.streamed = true;
    const id = nonEmptyString(fragment.id);
    const call = this.#callFor(fragment.index, id);
    const fn = isObject(fragment.function) ? fragment.function : undefined;
    const name = nonEmptyString(fn?.name);
    if (id !== undefined && call.id === undefined) call.id = id;
    if (name !== undefined && call.name === undefined) call.name = name;
    const args = fn?.arguments;
    if (typeof args === "string") this.#appendArguments(call, args);
    else if (isObject(args) || Array.isArray(args)) this.#appendArguments(call, JSON.stringify(args));
  }

  /** The call a fragment belongs to: by `index`, else the latest call unless a different id starts a new one. */
  #callFor(rawIndex: unknown, id: string | undefined): PartialCall {
    if (typeof rawIndex === "number" && Number.isInteger(rawIndex)) {
      const existing = this.#byIndex.get(rawIndex);
      if (existing) return existing;
      const call = this.#newCall(rawIndex);
      this.#byIndex.set(rawIndex, call);
      return call;
    }
    const last = this.#calls.at(-1);
    if (last && (id === undefined || last.id === undefined || last.id === id)) return last;
    return this.#newCall(undefined);
  }

  #newCall(index: number | undefined): PartialCall {
    if (this.#calls.length >= this.#limits.max_tool_calls) {
      throw limitFailure("tool_limit", "provider returned too many tool calls");
    }
    const call: PartialCall = { index, arguments: "", argumentBytes: 0 };
    this.#calls.push(call);
    return call;
  }

  #appendArguments(call: PartialCall, fragment: string): void {
    appendArguments(call, fragment, this.#limits.max_tool_arguments_bytes, this.#payload);
  }

  /** In `index` order when every call has one (as servers number them), else in order of appearance. */
  #assembleCalls(): ToolCallRecord[] {
    const indexed = this.#calls.every((call) => call.index !== undefined);
    const calls = indexed ? [...this.#calls].sort((a, b) => a.index! - b.index!) : this.#calls;
    return calls.map((call, position) => {
      if (!call.name) throw providerFailure("provider returned an incomplete tool call", false);
      const args = parseArguments(call.arguments, this.#credential);
      return { call_id: call.id ?? `call_${this.#step}_${position + 1}`, name: call.name, arguments: args };
    });
  }
}

/** The choice with `index` 0, else the first. */
function pickChoice(choices: unknown): Json | undefined {
  if (!Array.isArray(choices)) return undefined;
  const objects = choices.filter(isObject);
  return objects.find((choice) => choice.index === 0) ?? objects[0];
}
