// The Responses API request body (spec §8.2).
import { pairHistory, serializeArguments } from "./pairing.ts";
import type { ProviderRequest } from "./types.ts";

export type ResponsesBodyOptions = { reasoningEffort?: string; hostedWebSearch: boolean };

export function buildResponsesBody(request: ProviderRequest, options: ResponsesBodyOptions): Record<string, unknown> {
  const input: Array<Record<string, unknown>> = [];
  for (const item of pairHistory(request.history)) {
    if (item.kind === "user") {
      input.push({ role: "user", content: item.content });
    } else if (item.kind === "assistant") {
      if (!item.synthetic && (item.content !== "" || item.calls.length === 0)) {
        input.push({ role: "assistant", content: item.content });
      }
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
  };
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
