// The Anthropic Messages wire: `POST {base_url}/messages` with `x-api-key` and `anthropic-version`, streamed over SSE.
import { maxOutputTokens } from "./claude_models.ts";
import { buildMessagesBody } from "./messages_request.ts";
import { MessagesStreamState } from "./messages_stream.ts";
import { createSseClient } from "./sse_client.ts";
import type { CreateProviderOptions, ProviderClient } from "./types.ts";

/** The API version every request names (the only one Anthropic has published for the Messages API). */
export const ANTHROPIC_VERSION = "2023-06-01";

export const MESSAGES_HOSTED_SEARCH_WARNING =
  'web.search = "provider" has no effect on the Messages wire: hosted web search is not sent';

export function createMessagesProvider(options: CreateProviderOptions): ProviderClient {
  const { profile } = options;
  if (options.hostedWebSearch) {
    const warn = options.warn ?? ((message: string) => void process.stderr.write(`scv provider warn: ${message}\n`));
    warn(MESSAGES_HOSTED_SEARCH_WARNING);
  }
  const thinkingBudget = profile.thinking_budget_tokens;
  return createSseClient(options, {
    path: "/messages",
    authHeaders: (credential) => ({ "x-api-key": credential, "anthropic-version": ANTHROPIC_VERSION }),
    buildBody: (request) =>
      buildMessagesBody(request, {
        maxTokens: maxOutputTokens(request.model, profile.max_output_tokens, thinkingBudget),
        ...(thinkingBudget === undefined ? {} : { thinkingBudget }),
      }),
    createStream: (limits, credential, onTextDelta, _request, onReasoningDelta) =>
      new MessagesStreamState(limits, credential, onTextDelta, onReasoningDelta),
  });
}
