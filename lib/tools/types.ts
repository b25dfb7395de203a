// The contract between the tools (lib/tools) and their caller, the session's turn loop:
// declare (name, description, one JSON Schema) → prepare (validate, risk, summary) → run.

import type { ResolvedConfig } from "../config/index.ts";
import type { DeclaredAccess, Risk } from "../policy/index.ts";
import type { FunctionToolSchema } from "../provider/index.ts";

export type { DeclaredAccess, Risk };

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
  /** A JSON value beside the text (an MCP tool's `structuredContent`); an exec cell's nested call resolves to it. */
  structured?: unknown;
  /**
   * The call failed where more rights would have let it through (the command sandbox denied something): the turn
   * loop asks the approval gate about `prepared`, the same call with those rights (declared under `arguments`), and
   * runs it when approved; otherwise the call completes with `declined(reason)`. Never sent to clients.
   */
  escalation?: Escalation;
};

export type Escalation = {
  arguments: unknown;
  prepared: PreparedCall;
  declined(reason: string): ToolOutcome;
};

export type ToolContext = {
  /** The canonical (realpath) workspace directory. */
  workspace: string;
  config: ResolvedConfig;
  /** Aborts when the turn is cancelled; `run` then resolves with `error: "cancelled"`. */
  signal: AbortSignal;
  /**
   * True for a workspace-relative path a deny rule forbids `tool` to read: grep, glob and list leave it out (and
   * do not enter such a folder), so `read(secrets/**)` also covers what a search of the whole workspace would find.
   */
  hides?(tool: string, path: string): boolean;
  /** Display-only progress text (`tool.progress`); the tool already rate-limits it. */
  progress(text: string): void;
  /**
   * Nested calls through the turn loop's own call path, for tools that run other tools (`exec`). Absent outside
   * a turn loop (and then such a tool offers no tools).
   */
  nested?: NestedCalls;
  /**
   * The turn's approval gate, for tools that run a sub-agent whose calls must be approved like the session's own
   * (the `agent` tool). Absent outside a turn loop.
   */
  approve?(
    call: { call_id: string; name: string; arguments: unknown },
    prepared: PreparedCall,
    signal: AbortSignal,
  ): Promise<ApprovalAnswer>;
  /** Model tokens a tool used on the turn's behalf (a sub-agent's requests): they count toward the turn's usage. */
  spent?(usage: { input_tokens?: number; output_tokens?: number }): void;
  /**
   * Called by the file tools with the real path of each file before they change it, so that a snapshot store
   * without git can keep its content for undo. Absent outside a session.
   */
  fileWillChange?(path: string): Promise<void>;
};

/** The gate's answer: run the call, or not (with the reason policy gave, when it was not the user's "no"). */
export type ApprovalAnswer = boolean | { denied: string };

export type NestedCallRequest = {
  /** The nested call's own id suffix: `tool-1`, `tool-2`, … per cell; the call_id is `<exec call_id>:<suffix>`. */
  suffix: string;
  name: string;
  arguments: unknown;
};

/** How a tool such as `exec` runs the session's other tools (spec §6.4 step 5, §9 `exec`). */
export type NestedCalls = {
  /** The session's tools a cell may call (exec itself filters out its own name). */
  tools: ReadonlyArray<{ name: string; description: string }>;
  /**
   * Runs one nested call through proposal, validation, the approval gate and the tool, writing its events.
   * `signal` ends the call early (its cell no longer waits): it then completes as `cancelled`.
   * Rejects (AbortError) only when the turn itself is cancelled.
   */
  run(request: NestedCallRequest, signal: AbortSignal): Promise<ToolOutcome>;
};

/** A validated call: what the approval gate shows, and how to run it once approved. */
export type PreparedCall = {
  /** How dangerous the call is by itself: the modes decide from it when no rule does. */
  risk: Risk;
  /** What the call touches (paths, command, domain, MCP server): the permission rules match against it. */
  access: DeclaredAccess;
  /** One line for the approval prompt. */
  summary: string;
  /**
   * For tools that change files: the unified diff the call would make now, shown with its approval (the server
   * bounds it). Undefined when it cannot be worked out (the call then fails when it runs). Never rejects.
   */
  preview?(context: Pick<ToolContext, "workspace" | "config">): Promise<string | undefined>;
  /**
   * The complete text the approval covers when the summary cannot hold it (bash's command, write's new
   * content); `approval.requested.detail` carries it, control characters made visible.
   */
  detail?: string;
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
  /**
   * Work the tool needs done once before its first `prepare` (bash: the command sandbox's self-test, which decides
   * whether commands run confined); the turn loop awaits it. Never rejects.
   */
  ready?(): Promise<void>;
}

export interface ToolRegistry {
  /** Every tool of the session, sorted by name. */
  list(): Tool[];
  get(name: string): Tool | undefined;
  /** The tools as the provider sends them, sorted by name. */
  schemas(): FunctionToolSchema[];
}
