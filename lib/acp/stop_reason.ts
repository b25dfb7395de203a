// How a turn's last engine event ends an ACP `session/prompt`: a stop reason, or a JSON-RPC error for a failure
// ACP has no stop reason for (a provider error, an internal error).
import type { StopReason } from "@agentclientprotocol/sdk";
import type { ClientEvent } from "../protocol/index.ts";

export type TurnOutcome = { stopReason: StopReason } | { error: string };

// The provider layer words an unfinished response as `provider response incomplete: <reason>`, with the reason the
// provider gave: Responses says max_output_tokens, Chat Completions says length, Messages says max_tokens or
// model_context_window_exceeded (all: the token limit); content_filter (Chat) and refusal (Messages) mean the
// provider refused to go on.
const TOKEN_LIMIT =
  /^provider response incomplete: (?:max_output_tokens|length|max_tokens|model_context_window_exceeded)\b/;
const FILTERED = /^provider response incomplete: (?:content_filter|refusal)\b/;

/** The outcome of a turn-ending event, or undefined for any other event. */
export function turnOutcome(event: ClientEvent): TurnOutcome | undefined {
  switch (event.type) {
    case "turn.completed":
      return { stopReason: "end_turn" };
    case "turn.cancelled":
      return { stopReason: "cancelled" };
    case "turn.failed":
      if (event.code === "step_limit") return { stopReason: "max_turn_requests" };
      if (event.code === "provider_error" && TOKEN_LIMIT.test(event.message)) return { stopReason: "max_tokens" };
      if (event.code === "provider_error" && FILTERED.test(event.message)) return { stopReason: "refusal" };
      return { error: `the turn failed (${event.code}): ${event.message}` };
    case "engine.closed":
      return { error: "the scv engine stopped during the turn" };
    default:
      return undefined;
  }
}
