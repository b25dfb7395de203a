// The OpenAI-compatible Responses API wire (spec §8.2): `POST {base_url}/responses`, streamed over SSE.
import { randomUUID } from "node:crypto";
import { buildResponsesBody } from "./responses_request.ts";
import { ResponsesStreamState } from "./responses_stream.ts";
import { createSseClient } from "./sse_client.ts";
import type { CreateProviderOptions, ProviderClient } from "./types.ts";

export function createResponsesProvider(options: CreateProviderOptions): ProviderClient {
  // One client per session: a stable key lets long sessions hit the provider's prompt cache (spec §8.2).
  const promptCacheKey = options.promptCacheKey ?? randomUUID();
  return createSseClient(options, {
    path: "/responses",
    buildBody: (request) =>
      buildResponsesBody(request, {
        reasoningEffort: options.profile.reasoning_effort,
        hostedWebSearch: options.hostedWebSearch,
        promptCacheKey,
      }),
    createStream: (limits, credential, onTextDelta, _request, onReasoningDelta) =>
      new ResponsesStreamState(limits, credential, onTextDelta, onReasoningDelta),
  });
}
