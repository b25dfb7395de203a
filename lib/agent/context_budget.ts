// The context budget of a session whose window the server or the known-model table told (issue 14): the window
// replaces the default `max_tokens`, and on a small window (a local server's 4k or 8k) the output reserve and
// safety margin shrink with it, so history still has room.
import type { ContextLimits } from "./context.ts";

export function contextForWindow<T extends ContextLimits>(context: T, windowTokens: number): T {
  const reserve = Math.min(context.reserve_output_tokens, Math.floor(windowTokens / 4));
  const margin = Math.min(context.safety_margin_tokens, Math.floor(windowTokens / 32));
  return { ...context, max_tokens: windowTokens, reserve_output_tokens: reserve, safety_margin_tokens: margin };
}
