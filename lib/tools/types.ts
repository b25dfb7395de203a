// The contract between the tools (lib/tools) and their caller, the session's turn loop:
// declare (name, description, one JSON Schema) → prepare (validate, risk, summary) → run.

import type { ResolvedConfig } from "../config/types.ts";
import type { FunctionToolSchema } from "../provider/types.ts";

/** How dangerous a call is; the approval gate decides from it (spec §6.5). */
export type Risk = "read_only" | "filesystem" | "process" | "network";

/** `tool.completed.error`, present exactly when `success` is false (spec §4). */
export type ToolErrorCode =
  | "denied"
  | "invalid_arguments"
  | "unknown_tool"
  | "unavailable"
  | "limit"
  | "cancelled"
  | "failed";

export type ToolOutcome = {
  success: boolean;
  output: string;
  truncated: boolean;
  error?: ToolErrorCode;
};

export type ToolContext = {
  /** The canonical (realpath) workspace directory. */
  workspace: string;
  config: ResolvedConfig;
  /** Aborts when the turn is cancelled; `run` then resolves with `error: "cancelled"`. */
  signal: AbortSignal;
  /** Display-only progress text (`tool.progress`); the tool already rate-limits it. */
  progress(text: string): void;
};

/** A validated call: what the approval gate shows, and how to run it once approved. */
export type PreparedCall = {
  risk: Risk;
  summary: string;
  /** Never rejects: every failure, cancellation included, is a `ToolOutcome`. */
  run(context: ToolContext): Promise<ToolOutcome>;
};

export interface Tool {
  name: string;
  description: string;
  /** The one JSON Schema that is sent to the model and validates the arguments. */
  parameters: object;
  /**
   * Validates `args` against `parameters` plus the tool's own checks. `{error}` carries the
   * exact text for `tool.completed.output` (`invalid arguments: …` or the tool's message);
   * the caller completes the call with `error: "invalid_arguments"` without asking.
   */
  prepare(args: unknown, context: Omit<ToolContext, "signal" | "progress">): PreparedCall | { error: string };
}

export interface ToolRegistry {
  /** Every tool of the session, sorted by name. */
  list(): Tool[];
  get(name: string): Tool | undefined;
  /** The tools as the provider sends them, sorted by name. */
  schemas(): FunctionToolSchema[];
}
