// The Chat Completions wire for local servers (spec §8.3): `POST {base_url}/chat/completions`, streamed over SSE.
import { buildChatBody } from "./chat_request.ts";
import { ChatStreamState } from "./chat_stream.ts";
import { createSseClient } from "./sse_client.ts";
import type { CreateProviderOptions, ProviderClient } from "./types.ts";

export const HOSTED_SEARCH_WARNING =
  'web.search = "provider" has no effect on the Chat Completions wire: hosted web search is not sent';

export function createChatProvider(options: CreateProviderOptions): ProviderClient {
  if (options.hostedWebSearch) {
    const warn = options.warn ?? ((message: string) => void process.stderr.write(`scv provider warn: ${message}\n`));
    warn(HOSTED_SEARCH_WARNING);
  }
  return createSseClient(options, {
    path: "/chat/completions",
    buildBody: (request) => buildChatBody(request, { reasoningEffort: options.profile.reasoning_effort }),
    createStream: (limits, credential, onTextDelta, request, onReasoningDelta) =>
      new ChatStreamState(limits, credential, onTextDelta, request.step ?? 1, onReasoningDelta),
  });
}
