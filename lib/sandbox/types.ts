// The contract between the sandbox (lib/sandbox) and its two callers: the code-mode host
// (lib/host) and the server's exec tool (lib/tools/exec). Transport-free: no frames, no ids
// of any protocol, only cells, observations and callbacks.
import type { OutputBudget } from "./output_budget.ts";

/** A content item a cell produced (host spec §3.1). Field order is the wire order. */
export type ContentItem =
  | { type: "input_text"; text: string }
  | { type: "input_image"; image_url: string; detail: ImageDetail }
  | { type: "input_audio"; audio_url: string };

export type ImageDetail = "auto" | "low" | "high" | "original";

/** One enabled tool as the caller defines it (host spec §3.2 `enabled_tools` entry). */
export interface ToolDefinition {
  name: string;
  tool_name: { name: string; namespace: string | null };
  description: string;
  kind: "function" | "freeform";
  input_schema?: unknown;
  output_schema?: unknown;
}

/** A nested `await tools.x(input)` call made by cell code. */
export interface NestedToolCall {
  cellId: string;
  /** `tool-1`, `tool-2`, … restarting for every cell. */
  runtimeToolCallId: string;
  tool: ToolDefinition;
  /** The JSON round trip of the first argument; `null` for none, `undefined` or `null`. */
  input: unknown;
}

/**
 * What the caller provides for one cell. Every callback may answer asynchronously.
 * - `callTool` resolves with the tool's JSON result or rejects with a string message that the
 *   cell sees verbatim as the rejection value. `signal` aborts when the cell no longer needs
 *   the answers of its unanswered calls (completion, terminate, session close): the host then
 *   sends `delegate/cancel`. It is one signal for all the cell's calls (an AbortSignal costs more
 *   to make than the rest of a nested call in the host), so a listener added for a call must be
 *   removed once that call is answered, or it hears the cell's end too.
 * - `notify` resolves once the notification was delivered (or failed: failures are only
 *   logged by the caller). A cell's result waits for every notification it sent.
 */
export interface CellCallbacks {
  callTool(call: NestedToolCall, signal: AbortSignal): Promise<unknown>;
  notify(text: string, cellId: string): Promise<void>;
}

/** What an observer (the initial execute, a wait or a terminate) receives. */
export type Observation =
  | { kind: "yielded"; cellId: string; items: ContentItem[] }
  | {
    kind: "result";
    cellId: string;
    items: ContentItem[];
    /**
     * `null` on success or `exit()`; else the cell's error (host spec §7.1), or
     * `exec cell heap limit exceeded (maxHeapSizeBytes: <n>)`, or
     * `exec runtime ended unexpectedly` when its sandbox process died abnormally, or
     * `exec sandbox unavailable: <reason>` when no sandbox process passes its self-test (`initial` never rejects).
     */
    errorText: string | null;
    /** ns from completion to delivery; 0 when an observer was already waiting. */
    bufferedForNs: number;
  }
  | { kind: "terminated"; cellId: string; items: ContentItem[] };

export interface SessionLimits {
  /** Caps every yield timer of the session (host spec §6.2). */
  maxYieldTimeMs?: number | null;
  /** The JS heap limit of the sandbox processes running this session's cells (host spec §5.4); their resident memory is capped too. */
  maxHeapSizeBytes?: number | null;
}

export interface StartCellOptions {
  source: string;
  tools: ToolDefinition[];
  /** Requested yield time; `null` means the default (10,000 ms, + 1 s grace at ≥ 10,000). */
  yieldTimeMs: number | null;
  callbacks: CellCallbacks;
}

/** A cell's outcome when asked to observe it. */
export type ObserveOutcome =
  | { kind: "observation"; observation: Observation }
  | { kind: "missing"; errorText: string } // `exec cell <id> not found`
  // `exec cell <id> already has an active observer`, `… is already terminating`, `code-mode request cancelled` (a wait's signal).
  // `code` names the condition, so that a caller can word it for its own wire; `message` is the host spec's text.
  | { kind: "error"; code: ObserveErrorCode; message: string };

export type ObserveErrorCode = "observer_active" | "already_terminating" | "cancelled";

export interface SandboxCell {
  readonly id: string;
  /** Resolves exactly once: the execute's initial observation. */
  readonly initial: Promise<Observation>;
  /** Resolves once the cell is over and its terminal observation was delivered (or discarded). */
  readonly closed: Promise<void>;
}

export interface SandboxSession {
  /** Starts a cell; ids are "1", "2", … per session. */
  startCell(options: StartCellOptions): SandboxCell;
  /** `session/wait`: `signal` cancels the wait and frees the observer slot. */
  wait(cellId: string, yieldTimeMs: number, signal?: AbortSignal): Promise<ObserveOutcome>;
  /** `session/terminate`. */
  terminate(cellId: string): Promise<ObserveOutcome>;
  /** `operation/yield` and `yield_control()` from outside: resolve the cell's current observer now. */
  yieldNow(cellId: string): boolean;
  /** Terminates every cell (nothing committed); pending observers receive `terminated`. */
  close(): Promise<void>;
}

export interface Sandbox {
  /**
   * `budget`: output of this session's cells that waits in the caller (undelivered items, its own
   * queued frames) is charged there; over it, the session's sandbox processes are not read further.
   */
  openSession(limits?: SessionLimits, budget?: OutputBudget): SandboxSession;
  /** Stops every sandbox process. */
  shutdown(): Promise<void>;
}
