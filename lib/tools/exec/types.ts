// The contract between the exec tool and the turn loop that runs it: the loop hands exec a way to
// run nested calls through the same path as top-level calls (spec §6.4 step 5, §9 `exec`).
import type { ToolContext, ToolOutcome } from "../types.ts";

export type NestedCallRequest = {
  /** The nested call's own id suffix: `tool-1`, `tool-2`, … per cell; the call_id is `<exec call_id>:<suffix>`. */
  suffix: string;
  name: string;
  arguments: unknown;
};

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

/** What the turn loop passes to a tool's `run`: the usual context plus, for exec, nested calls. */
export type ExecToolContext = ToolContext & { nested?: NestedCalls };
