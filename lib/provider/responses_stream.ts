// Reads Responses API stream events into one response (spec §8.2 event table, limits of §8.1).
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
import { readResponsesUsage } from "./usage.ts";

type PartialCall = { index: number; arguments: string; argumentBytes: number; call_id?: string; name?: string };
type Citation = { url: string; title?: string };

/** Joins two message items of one response (spec §8.2). */
const MESSAGE_SEPARATOR = "\n\n";

export class ResponsesStreamState {
  /** True once a text delta or tool-call event arrived: the attempt can no longer be retried. */
  streamed = false;
  /** True after `response.completed` or `data: [DONE]`. */
  finished = false;
  #assistant: AssistantText;
  #usage: Usage = {};
  #calls = new Map<number, PartialCall>();
  #citations: Citation[] = [];
  #payload: PayloadBudget;
  /**
   * The message items whose text (or refusal) has streamed, by output index and by item id ("?" for a delta that
   * named neither), and the output index of the latest.
   */
  #textItems = new Set<number | string>();
  #lastTextItem: number | undefined;
  /** Each message item's span of the assistant text, with its phase, in order. */
  #messages: Array<{ index: number; start: number; end: number; phase?: string }> = [];
  #reasoning: Array<Record<string, unknown>> = [];
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
    this.#onReasoningDelta = onReasoningDelta;
    this.#limits = limits;
    this.#payload = new PayloadBudget(limits.max_response_bytes);
    this.#assistant = new AssistantText(limits.max_assistant_bytes, this.#payload);
    this.#credential = credential;
    this.#onTextDelta = onTextDelta;
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
    let type = typeof event.type === "string" ? event.type : message.event;
    // An `error:` line, or an `event: error` whose JSON `type` is an error class (llama.cpp's "server_error").
    if (message.errorLine || (message.event === "error" && !type?.startsWith("response."))) type = "error";
    switch (type) {
      case "response.output_text.delta":
      case "response.refusal.delta":
        if (typeof event.delta !== "string" || event.delta === "") return;
        this.#markStreamed(event.output_index, event.item_id);
        return this.#itemText(event.output_index, event.delta);
      case "response.refusal.done":
        // Servers that stream no refusal deltas send the whole refusal here.
        if (
          typeof event.refusal === "string" && event.refusal !== "" &&
          !this.#streamedItem(event.output_index, event.item_id)
        ) {
          this.#markStreamed(event.output_index, event.item_id);
          return this.#itemText(event.output_index, event.refusal);
        }
        return;
      case "response.reasoning_text.delta":
      case "response.reasoning_summary_text.delta":
        // Reasoning is payload; it goes to the caller as reasoning, never as answer text (nor into the history's text).
        if (typeof event.delta !== "string" || event.delta === "") return;
        this.#payload.addText(event.delta);
        return this.#onReasoningDelta?.(event.delta);
      case "response.function_call_arguments.delta": {
        const call = this.#call(event.output_index);
        this.streamed = true;
        if (typeof event.delta === "string") this.#appendArguments(call, event.delta);
        return;
      }
      case "response.output_item.done":
        return this.#itemDone(event.output_index, event.item);
      case "response.output_text.annotation.added":
        this.#collectCitation(event.annotation);
        return;
      case "response.completed": {
        const usage = isObject(event.response) && isObject(event.response.usage) ? event.response.usage : undefined;
        if (usage) readResponsesUsage(usage, this.#usage);
        this.finished = true;
        return;
      }
      case "error": {
        const details = extractDetails(event);
        throw providerFailure(
          `provider stream error: ${formatDetails(details, this.#credential)}`,
          isTransientDetails(details),
          messageHintMs(details),
        );
      }
      case "response.failed": {
        const error = isObject(event.response) ? event.response.error : undefined;
        const details = extractDetails({ error: isObject(error) ? error : {} });
        throw providerFailure(
          `provider response failed: ${formatDetails(details, this.#credential)}`,
          isTransientDetails(details),
          messageHintMs(details),
        );
      }
      case "response.incomplete": {
        const reason = incompleteReason(event);
        throw providerFailure(`provider response incomplete: ${sanitize(reason, this.#credential)}`, false);
      }
      default:
        return;
    }
  }

  /** Applies the end-of-stream rules and assembles the response. */
  async finish(leftover: string): Promise<ProviderResponse> {
    if (!this.finished) {
      throw unfinishedStreamFailure(leftover, this.#credential);
    }
    const calls = this.#assembleCalls();
    const sources = this.#citations.filter((citation) => !this.#assistant.text.includes(citation.url));
    if (sources.length > 0) {
      const lines = sources.map((
        source,
      ) => (source.title ? `\n- [${source.title}](${source.url})` : `\n- ${source.url}`));
      await this.#appendText(`\n\nSources:${lines.join("")}`);
    }
    const response: ProviderResponse = { text: this.#assistant.text, calls, usage: this.#usage };
    const replay = this.#replay();
    if (replay) response.replay = replay;
    return response;
  }

  #replay(): AssistantReplay | undefined {
    const replay: AssistantReplay = {};
    if (this.#reasoning.length > 0) replay.reasoning = this.#reasoning;
    if (this.#messages.some((message) => message.phase !== undefined)) {
      const text = this.#assistant.text;
      replay.messages = this.#messages.map(({ start, end, phase }) =>
        phase === undefined ? { text: text.slice(start, end) } : { text: text.slice(start, end), phase }
      );
    }
    return replay.reasoning || replay.messages ? replay : undefined;
  }

  #markStreamed(outputIndex: unknown, itemId: unknown): void {
    const named = typeof outputIndex === "number" || typeof itemId === "string";
    if (typeof outputIndex === "number") this.#textItems.add(outputIndex);
    if (typeof itemId === "string") this.#textItems.add(itemId);
    if (!named) this.#textItems.add("?");
  }

  /** Whether text of this item streamed; a delta that named no item may have been any. */
  #streamedItem(outputIndex: unknown, itemId: unknown): boolean {
    if (this.#textItems.has("?")) return true;
    if (typeof outputIndex === "number" && this.#textItems.has(outputIndex)) return true;
    return typeof itemId === "string" && this.#textItems.has(itemId);
  }

  /** Text of the message item at `outputIndex`; a new item after another's text starts after a blank line. */
  #itemText(outputIndex: unknown, text: string): void | Promise<void> {
    const index = indexOf(outputIndex);
    let message = this.#messages.at(-1);
    let delta = text;
    if (this.#lastTextItem !== index || !message) {
      if (this.#assistant.text !== "") delta = MESSAGE_SEPARATOR + text;
      const start = this.#assistant.text.length + delta.length - text.length;
      message = { index, start, end: start };
      this.#messages.push(message);
      this.#lastTextItem = index;
    }
    const pending = this.#appendText(delta);
    message.end = this.#assistant.text.length;
    return pending;
  }

  #appendText(delta: string): void | Promise<void> {
    this.#assistant.append(delta);
    this.streamed = true;
    return this.#onTextDelta(delta);
  }

  #call(outputIndex: unknown): PartialCall {
    const index = indexOf(outputIndex);
    let call = this.#calls.get(index);
    if (!call) {
      if (this.#calls.size >= this.#limits.max_tool_calls) {
        throw limitFailure("tool_limit", "provider returned too many tool calls");
      }
      call = { index, arguments: "", argumentBytes: 0 };
      this.#calls.set(index, call);
    }
    return call;
  }

  #appendArguments(call: PartialCall, fragment: string): void {
    appendArguments(call, fragment, this.#limits.max_tool_arguments_bytes, this.#payload);
  }

  #itemDone(outputIndex: unknown, item: unknown): void | Promise<void> {
    if (!isObject(item)) return;
    if (item.type === "reasoning") return this.#keepReasoning(item);
    if (item.type === "function_call") {
      const call = this.#call(outputIndex);
      this.streamed = true;
      if (typeof item.call_id === "string" && item.call_id !== "") call.call_id = item.call_id;
      if (typeof item.name === "string" && item.name !== "") call.name = item.name;
      // Some servers send the arguments only here, with no deltas.
      if (typeof item.arguments === "string" && call.arguments === "") this.#appendArguments(call, item.arguments);
    } else if (item.type === "message") {
      const content = Array.isArray(item.content) ? item.content.filter(isObject) : [];
      for (const part of content) {
        if (Array.isArray(part.annotations)) {
          for (const annotation of part.annotations) this.#collectCitation(annotation);
        }
      }
      const streamed = this.#streamedItem(outputIndex, item.id);
      // A server that streamed no deltas for this item sends its text (or refusal) only here.
      const text = streamed ? "" : content.map(partText).join("");
      if (text !== "") this.#markStreamed(outputIndex, item.id);
      const pending = text === "" ? undefined : this.#itemText(outputIndex, text);
      if (typeof item.phase === "string" && item.phase !== "") {
        const message = this.#messages.findLast((entry) => entry.index === indexOf(outputIndex));
        if (message) message.phase = item.phase;
        else this.#messages.push({ index: indexOf(outputIndex), start: 0, end: 0, phase: item.phase });
      }
      return pending;
    }
  }

  /** A reasoning item to replay: without `id`, which the API refuses for unstored items (spec §8.2). */
  #keepReasoning(item: Json): void {
    const encrypted = item.encrypted_content;
    if (typeof encrypted !== "string" || encrypted === "") return;
    this.#payload.add(encrypted.length);
    const summary = Array.isArray(item.summary) ? item.summary : [];
    this.#reasoning.push({ type: "reasoning", summary, encrypted_content: encrypted });
  }

  #collectCitation(annotation: unknown): void {
    if (!isObject(annotation) || annotation.type !== "url_citation") return;
    const source = isObject(annotation.url_citation) ? annotation.url_citation : annotation;
    if (typeof source.url !== "string" || source.url === "") return;
    if (this.#citations.some((citation) => citation.url === source.url)) return;
    const title = typeof source.title === "string" && source.title.trim() !== "" ? source.title : undefined;
    this.#citations.push({ url: source.url, title });
  }

  #assembleCalls(): ToolCallRecord[] {
    const calls = [...this.#calls.values()].sort((a, b) => a.index - b.index);
    return calls.map((call) => {
      if (!call.call_id || !call.name) throw providerFailure("provider returned an incomplete tool call", false);
      return { call_id: call.call_id, name: call.name, arguments: parseArguments(call.arguments, this.#credential) };
    });
  }
}

function indexOf(outputIndex: unknown): number {
  return typeof outputIndex === "number" && Number.isInteger(outputIndex) ? outputIndex : 0;
}

function partText(part: Json): string {
  if (part.type === "output_text" && typeof part.text === "string") return part.text;
  if (part.type === "refusal" && typeof part.refusal === "string") return part.refusal;
  return "";
}

function incompleteReason(event: Json): string {
  for (const holder of [event.response, event]) {
    if (isObject(holder) && isObject(holder.incomplete_details)) {
      const reason = holder.incomplete_details.reason;
      if (typeof reason === "string" && reason.trim() !== "") return reason;
    }
  }
  return "unknown reason";
}
