// The Responses API request body (spec §8.2).
import { userContent } from "./images.ts";
import { type PairedItem, pairHistory, serializeArguments } from "./pairing.ts";
import type { ProviderRequest } from "./types.ts";

export type ResponsesBodyOptions = { reasoningEffort?: string; hostedWebSearch: boolean; promptCacheKey?: string };

export function buildResponsesBody(request: ProviderRequest, options: ResponsesBodyOptions): Record<string, unknown> {
  const input: Array<Record<string, unknown>> = [];
  for (const item of pairHistory(request.history)) {
    if (item.kind === "user") {
      if (item.images?.length) {
        const { text, urls } = userContent(item);
        const parts = urls.map((url) => ({ type: "input_image", image_url: url }));
        input.push({ role: "user", content: [{ type: "input_text", text }, ...parts] });
      } else input.push({ role: "user", content: item.content });
    } else if (item.kind === "assistant") {
      // Reasoning first, so the model keeps its chain of thought between tool calls (spec §8.2, Changed).
      for (const reasoning of item.replay?.reasoning ?? []) input.push(reasoning);
      if (!item.synthetic && (item.content !== "" || item.calls.length === 0)) input.push(...assistantMessages(item));
      for (const call of item.calls) {
        input.push({
          type: "function_call",
          call_id: call.call_id,
          name: call.name,
          arguments: item.synthetic ? "{}" : serializeArguments(call.arguments),
        });
      }
    } else {
      input.push({ type: "function_call_output", call_id: item.call_id, output: item.output });
    }
  }
  const body: Record<string, unknown> = {
    model: request.model,
    instructions: request.instructions,
    input,
    stream: true,
    store: false,
    include: ["reasoning.encrypted_content"],
  };
  if (options.promptCacheKey) body.prompt_cache_key = options.promptCacheKey;
  const tools: Array<Record<string, unknown>> = [...request.tools]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((tool) => ({
      type: "function",
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters,
      strict: false,
    }));
  if (tools.length > 0 && options.hostedWebSearch) tools.push({ type: "web_search" });
  if (tools.length > 0) body.tools = tools;
  if (options.reasoningEffort) body.reasoning = { effort: options.reasoningEffort };
  return body;
}

/**
 * The assistant message item(s) of one stored response, each with the `phase` the server gave it. The stored
 * text is the messages joined by a blank line; when it no longer is (e.g. Sources were appended), it goes back
 * as one message with the last phase.
 */
function assistantMessages(item: Extract<PairedItem, { kind: "assistant" }>): Array<Record<string, unknown>> {
  const messages = item.replay?.messages?.filter((message) => message.text !== "") ?? [];
  const withPhase = (content: string, phase: string | undefined) =>
    phase === undefined ? { role: "assistant", content } : { role: "assistant", content, phase };
  if (messages.length > 1 && messages.map((message) => message.text).join("\n\n") === item.content) {
    return messages.map((message) => withPhase(message.text, message.phase));
  }
  const phase = item.replay?.messages?.findLast((message) => message.phase !== undefined)?.phase;
  return [withPhase(item.content, phase)];
}
