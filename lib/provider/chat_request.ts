// The Chat Completions request body (spec §8.3): system prompt, then the paired history as messages.
import { userContent } from "./images.ts";
import { pairHistory, serializeArguments } from "./pairing.ts";
import type { ProviderRequest } from "./types.ts";

export type ChatBodyOptions = { reasoningEffort?: string };

export function buildChatBody(request: ProviderRequest, options: ChatBodyOptions): Record<string, unknown> {
  const messages: Array<Record<string, unknown>> = [{ role: "system", content: request.instructions }];
  for (const item of pairHistory(request.history)) {
    if (item.kind === "user") {
      if (item.images?.length) {
        const { text, urls } = userContent(item);
        const parts = urls.map((url) => ({ type: "image_url", image_url: { url } }));
        messages.push({ role: "user", content: [{ type: "text", text }, ...parts] });
      } else messages.push({ role: "user", content: item.content });
    } else if (item.kind === "assistant") {
      // An empty answer with no calls is not sent back as `"content":""` (spec §8.3).
      if (item.content === "" && item.calls.length === 0) continue;
      const message: Record<string, unknown> = { role: "assistant", content: item.content };
      // The reasoning goes back in the field the server streamed it in, so thinking models keep it across calls.
      const reasoning = item.replay?.reasoning_text;
      if (reasoning && reasoning.text !== "") message[reasoning.field] = reasoning.text;
      if (item.calls.length > 0) {
        message.tool_calls = item.calls.map((call) => ({
          id: call.call_id,
          type: "function",
          function: { name: call.name, arguments: item.synthetic ? "{}" : serializeArguments(call.arguments) },
        }));
      }
      messages.push(message);
    } else {
      messages.push({ role: "tool", tool_call_id: item.call_id, content: item.output });
    }
  }
  const body: Record<string, unknown> = {
    model: request.model,
    messages,
    stream: true,
    stream_options: { include_usage: true },
  };
  const tools = [...request.tools]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((tool) => ({
      type: "function",
      function: { name: tool.name, description: tool.description, parameters: tool.parameters },
    }));
  if (tools.length > 0) body.tools = tools;
  if (options.reasoningEffort) body.reasoning_effort = options.reasoningEffort;
  return body;
}
