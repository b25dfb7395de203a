// Small constructors for tool outcomes, so every failure carries its `error` code.

import type { ToolErrorCode, ToolOutcome } from "./types.ts";

export function failure(output: string, error: ToolErrorCode = "failed", truncated = false): ToolOutcome {
  return { success: false, output, truncated, error };
}

export function cancelledOutcome(output: string): ToolOutcome {
  return failure(output, "cancelled");
}
