// Reads Responses API stream events into one response (spec §8.2 event table, limits of §8.1).
import {
  extractDetails,
  formatDetails,
  isTransientDetails,
  limitFailure,
  providerFailure,
  sanitize,
} from "./errors.ts";
import type { SseMessage } from "./sse.ts";
import {
  AssistantText,
  appendArguments,
  isJsonObject as isObject,
  parseArguments,
  parseStreamData,
  unfinishedStreamFailure,
  type Json,
} from "./stream_data.ts";
import type { ProviderLimits, ProviderResponse, ToolCallRecord, Usage } from "./types.ts";

type PartialCall = { index: number; arguments: string; argumentBytes: number; call_id?: string; name?: string };
type Citation = { url: string; title?: string };

export class ResponsesStreamState {
  /** True once a text delta or tool-call event arrived: the attempt can no longer be retried. */
  streamed = false;
  /** True after `response.completed` or `data: [DONE]`. */
  finished = false;
  #assistant: AssistantText;
  #usage: Usage = {};
  #calls = new Map<number, PartialCall>();
  #citations: Citation[] = [];
  #limits: ProviderLimits;
  #credential: string;
  #onTextDelta: (text: string) => void | Promise<void>;

  constructor(limits: ProviderLimits, credential: string, onTextDelta: (text: string) => void | Promise<void>) {
    this.#limits = limits;
    this.#assistant = new AssistantText(limits.max_assistant_bytes);
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
    const type = typeof event.type === "string" ? event.type : message.event;
    switch (type) {
      case "response.output_text.delta":
        if (typeof event.delta === "string" && event.delta !== "") return this.#appendText(event.delta);
        return;
      case "response.function_call_arguments.delta": {
        const call = this.#call(event.output_index);
        this.streamed = true;
        if (typeof event.delta === "string") this.#appendArguments(call, event.delta);
        return;
      }
      case "response.output_item.done":
        this.#itemDone(event.output_index, event.item);
        return;
      case "response.output_text.annotation.added":
        this.#collectCitation(event.annotation);
        return;
      case "response.completed": {
        const usage = isObject(event.response) && isObject(event.response.usage) ? event.response.usage : undefined;
        if (usage && typeof usage.input_tokens === "number") this.#usage.input_tokens = usage.input_tokens;
        if (usage && typeof usage.output_tokens === "number") this.#usage.output_tokens = usage.output_tokens;
        this.finished = true;
        return;
      }
      case "error": {
        const details = extractDetails(event);
        throw providerFailure(
          `provider stream error: ${formatDetails(details, this.#credential)}`,
          isTransientDetails(details),
        );
      }
      case "response.failed": {
        const error = isObject(event.response) ? event.response.error : undefined;
        const details = extractDetails({ error: isObject(error) ? error : {} });
        throw providerFailure(
          `provider response failed: ${formatDetails(details, this.#credential)}`,
          isTransientDetails(details),
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
      const lines = sources.map((source) => (source.title ? `\n- [${source.title}](${source.url})` : `\n- ${source.url}`));
      await this.#appendText(`\n\nSources:${lines.join("")}`);
    }
    return { text: this.#assistant.text, calls, usage: this.#usage };
  }

  #appendText(delta: string): void | Promise<void> {
    this.#assistant.append(delta);
    this.streamed = true;
    return this.#onTextDelta(delta);
  }

  #call(outputIndex: unknown): PartialCall {
    const index = typeof outputIndex === "number" && Number.isInteger(outputIndex) ? outputIndex : 0;
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
    appendArguments(call, fragment, this.#limits.max_tool_arguments_bytes);
  }

  #itemDone(outputIndex: unknown, item: unknown): void {
    if (!isObject(item)) return;
    if (item.type === "function_call") {
      const call = this.#call(outputIndex);
      this.streamed = true;
      if (typeof item.call_id === "string" && item.call_id !== "") call.call_id = item.call_id;
      if (typeof item.name === "string" && item.name !== "") call.name = item.name;
      // Some servers send the arguments only here, with no deltas.
      if (typeof item.arguments === "string" && call.arguments === "") this.#appendArguments(call, item.arguments);
    } else if (item.type === "message" && Array.isArray(item.content)) {
      for (const part of item.content) {
        if (isObject(part) && Array.isArray(part.annotations)) {
          for (const annotation of part.annotations) this.#collectCitation(annotation);
        }
      }
    }
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

function incompleteReason(event: Json): string {
  for (const holder of [event.response, event]) {
    if (isObject(holder) && isObject(holder.incomplete_details)) {
      const reason = holder.incomplete_details.reason;
      if (typeof reason === "string" && reason.trim() !== "") return reason;
    }
  }
  return "unknown reason";
}
