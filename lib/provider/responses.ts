// The OpenAI-compatible Responses API wire (spec §8.2): `POST {base_url}/responses`, streamed over SSE.
import { buildResponsesBody } from "./responses_request.ts";
import { ResponsesStreamState } from "./responses_stream.ts";
import { createSseClient } from "./sse_client.ts";
import type { CreateProviderOptions, ProviderClient } from "./types.ts";

export function createResponsesProvider(options: CreateProviderOptions): ProviderClient {
  return createSseClient(options, {
    path: "/responses",
    buildBody: (request) =>
      buildResponsesBody(request, {
        reasoningEffort: options.profile.reasoning_effort,
        hostedWebSearch: options.hostedWebSearch,
      }),
    createStream: (limits, credential, onTextDelta) => new ResponsesStreamState(limits, credential, onTextDelta),
  });
}
