// The turn loop (spec §6.4): provider call, assistant message, then each tool call in order. No I/O of its own:
// the provider client, the tool registry, the approval gate and the event sink are injected.
import { abortError, raceAbort } from "../util/abort.ts";
import type { ResolvedConfig } from "../config/index.ts";
import { type TurnFailureCode, USAGE_FIELDS } from "../protocol/index.ts";
import type { HistoryItem, ImageInput, ProviderClient, RetryNotice, ToolCallRecord, Usage } from "../provider/index.ts";
import type {
  ApprovalAnswer,
  NestedCalls,
  PreparedCall,
  ToolContext,
  ToolOutcome,
  ToolRegistry,
} from "../tools/index.ts";
import { cutToBytes } from "../util/text_bounds.ts";
import { selectContext, trimHistory } from "./context.ts";
import { compactHistory, type Compaction, contextInUse, needsCompaction } from "./compaction.ts";

export const DENIED_OUTPUT = "tool call denied by policy or user";
/** A nested call whose cell stopped waiting (cell finished, timed out or was terminated) before it ran. */
export const NESTED_CANCELLED_OUTPUT = "tool call cancelled: its exec cell no longer waits for it";
const PROGRESS_MAX_BYTES = 512;
const PROGRESS_INTERVAL_MS = 500;

/** Where the turn reports; every method may reject (an AbortError on cancellation, or a frame-limit error). */
export interface TurnSink {
  delta(text: string): Promise<void>;
  /** Reasoning the provider shows as it streams (additive `reasoning.delta`); never part of the answer. */
  reasoningDelta?(text: string): Promise<void>;
  assistantCompleted(text: string): Promise<void>;
  toolProposed(call: ToolCallRecord): Promise<void>;
  /**
   * The approval gate: resolves true to run the call, false when the user denied it, `{ denied }` when policy did
   * (the reason becomes the call's output). `signal` (a nested call's own, else the turn's) withdraws a pending
   * question when it aborts.
   */
  approve(call: ToolCallRecord, prepared: PreparedCall, signal?: AbortSignal): Promise<ApprovalAnswer>;
  toolStarted(call: ToolCallRecord): Promise<void>;
  toolProgress(call: ToolCallRecord, text: string): Promise<void>;
  toolCompleted(call: ToolCallRecord, outcome: ToolOutcome): Promise<void>;
  contextCompacted(before: number, after: number, removed: number): Promise<void>;
  sessionTrimmed(removed: number, bytes: number): Promise<void>;
  /** The provider request failed and is retried after `notice.delay_ms` (`turn.retrying`). */
  retrying?(notice: RetryNotice): Promise<void>;
  /**
   * The context passed `compaction.auto_percent` of the window and the older history was summarised: the first
   * `compaction.drop` items of the history the turn started from are now `compaction.summary`.
   */
  historyCompacted?(compaction: Compaction): Promise<void>;
  /**
   * A call ran (issue 30): text to add to its output for the model (instructions that joined on first touch, what
   * a PostToolUse hook said), or undefined.
   */
  afterTool?(call: ToolCallRecord, prepared: PreparedCall, outcome: ToolOutcome): Promise<string | undefined>;
  /**
   * The model is done (issue 30): a reason to go on instead (a Stop hook's), which becomes the next user message.
   * `continued` is true when an earlier stop of this turn was already turned back.
   */
  stop?(text: string, continued: boolean): Promise<string | undefined>;
}

export type TurnInput = {
  prompt: string;
  /** Images attached to the prompt (read from disk for each request, never stored in the history). */
  images?: ImageInput[];
  /** The history at the start of the turn (the checkpoint); it is not modified. */
  history: readonly HistoryItem[];
  provider: ProviderClient;
  tools: ToolRegistry;
  config: ResolvedConfig;
  workspace: string;
  instructions: string;
  signal: AbortSignal;
  sink: TurnSink;
  /** Whether policy denies `tool` reading the workspace-relative `path` (search tools skip such paths). */
  hides?(tool: string, path: string): boolean;
  /** Classifies a sink error that is not a cancellation (e.g. an event over the frame limit). */
  classify?(error: unknown): { code: TurnFailureCode; message: string } | undefined;
  /**
   * The session's budget: given what the turn has used so far, why no further model request may be made (the
   * `budget_exceeded` message), or undefined. Asked before each request and after each response.
   */
  budget?(spent: Usage): string | undefined;
  /** scv's own file tools announce each file before they change it (the snapshots without git keep its content). */
  fileWillChange?(path: string): Promise<void>;
};

export type TurnOutcome =
  /**
   * `added`: how many items at the end of `history` are the turn's own (its prompt first), for the journal; `last`:
   * what the last model request counted, i.e. how full the context is after the turn.
   */
  | { kind: "completed"; steps: number; usage: Usage; last: Usage; history: HistoryItem[]; added: number }
  // `usage`: what the turn's requests used before it ended (they are paid for all the same).
  | { kind: "failed"; code: TurnFailureCode; message: string; usage: Usage }
  | { kind: "cancelled"; usage: Usage };

class TurnFailure extends Error {
  code: TurnFailureCode;
  constructor(code: TurnFailureCode, message: string) {
    super(message);
    this.code = code;
  }
}

export async function runTurn(input: TurnInput): Promise<TurnOutcome> {
  const usage: Usage = {};
  try {
    return await loop(input, usage);
  } catch (error) {
    // Only our own signal cancels; an abort from elsewhere (a provider timeout, say) is a failure.
    if (input.signal.aborted) return { kind: "cancelled", usage };
    if (error instanceof TurnFailure) return { kind: "failed", code: error.code, message: error.message, usage };
    const classified = input.classify?.(error);
    if (classified) return { kind: "failed", ...classified, usage };
    if (isProviderError(error)) return { kind: "failed", code: error.code, message: error.message, usage };
    return {
      kind: "failed",
      code: "internal_error",
      message: error instanceof Error ? error.message : String(error),
      usage,
    };
  }
}

function isProviderError(
  error: unknown,
): error is Error & { code: "provider_error" | "response_limit" | "tool_limit" } {
  return (
    error instanceof Error &&
    error.name === "ProviderError" &&
    ["provider_error", "response_limit", "tool_limit"].includes((error as { code?: unknown }).code as string)
  );
}

async function loop(input: TurnInput, usage: Usage): Promise<TurnOutcome> {
  const { config, signal, sink } = input;
  const user: HistoryItem = input.images?.length
    ? { kind: "user", content: input.prompt, images: input.images }
    : { kind: "user", content: input.prompt };
  let working: HistoryItem[] = [...input.history, user];
  let turnStart = input.history.length;
  const schemas = input.tools.schemas();
  const fixedBytes = Buffer.byteLength(input.instructions) +
    (schemas.length > 0 ? Buffer.byteLength(JSON.stringify(schemas)) : 0);
  // The provider's count of the last request (input plus output) and how long `working` was after its response.
  let reported: { tokens: number; length: number } | undefined;
  let compacted = false;
  const checkBudget = () => {
    const refusal = input.budget?.(usage);
    if (refusal !== undefined) throw new TurnFailure("budget_exceeded", refusal);
  };
  let continued = false;

  for (let step = 1; step <= config.agent.max_steps; step += 1) {
    checkBudget();
    // Once per turn at most: past `compaction.auto_percent` of the window, the model summarises the older history.
    const inUse = contextInUse(
      working,
      fixedBytes,
      config.context.bytes_per_token,
      reported === undefined ? undefined : { tokens: reported.tokens, itemsAfter: working.slice(reported.length) },
    );
    if (!compacted && needsCompaction(inUse, config)) {
      compacted = true;
      const compaction = await compactHistory({
        history: working,
        keepFrom: turnStart,
        automatic: true,
        provider: input.provider,
        config,
        signal,
        ...(sink.retrying ? { onRetry: (notice: RetryNotice) => sink.retrying!(notice) } : {}),
      });
      throwIfAborted(signal);
      if (compaction !== undefined) {
        addUsage(usage, compaction.usage);
        working = compaction.history;
        turnStart = turnStart - compaction.drop + 1;
        reported = undefined;
        await sink.historyCompacted?.(compaction);
        checkBudget();
      }
    }
    const selection = selectContext(working, config.context, fixedBytes);
    if (!selection.ok) throw new TurnFailure("context_limit", selection.message);
    if (selection.compacted) {
      const { before_tokens, after_tokens, removed_messages } = selection.compacted;
      await sink.contextCompacted(before_tokens, after_tokens, removed_messages);
    }

    const response = await input.provider.stream(
      {
        model: config.provider.model,
        instructions: input.instructions,
        history: selection.items,
        tools: schemas,
        step,
      },
      {
        signal,
        onTextDelta: (text) => sink.delta(text),
        ...(sink.retrying ? { onRetry: (notice: RetryNotice) => sink.retrying!(notice) } : {}),
        ...(sink.reasoningDelta ? { onReasoningDelta: (text: string) => sink.reasoningDelta!(text) } : {}),
      },
    );
    throwIfAborted(signal);
    addUsage(usage, response.usage);
    await sink.assistantCompleted(response.text);
    working.push({
      kind: "assistant",
      content: response.text,
      calls: response.calls,
      ...(response.replay ? { replay: response.replay } : {}),
    });
    const counted = (response.usage.input_tokens ?? 0) + (response.usage.output_tokens ?? 0);
    reported = counted > 0 ? { tokens: counted, length: working.length } : undefined;

    if (response.calls.length === 0) {
      const goOn = await sink.stop?.(response.text, continued);
      throwIfAborted(signal);
      if (goOn !== undefined) {
        continued = true;
        working.push({ kind: "user", content: goOn });
        continue;
      }
      const trim = trimHistory(working, turnStart, {
        max_history_bytes: config.session.max_history_bytes,
        max_messages: config.session.max_messages,
        summary_max_chars: config.context.summary_max_chars,
      });
      if (!trim.ok) throw new TurnFailure("history_limit", trim.message);
      if (trim.trimmed) await sink.sessionTrimmed(trim.trimmed.removed_messages, trim.trimmed.history_bytes);
      return {
        kind: "completed",
        steps: step,
        usage,
        last: response.usage,
        history: trim.history,
        added: working.length - turnStart,
      };
    }

    // Past the budget, the calls of this response are not run: the turn ends after its running request.
    checkBudget();
    for (const call of response.calls) {
      const outcome = await runCall(input, call, signal, usage);
      working.push({
        kind: "tool_result",
        call_id: call.call_id,
        name: call.name,
        output: outcome.output,
        success: outcome.success,
      });
    }
  }
  throw new TurnFailure("step_limit", `agent reached ${config.agent.max_steps} steps`);
}

/**
 * One tool call, top-level or nested in an exec cell (spec §6.4 step 5): `tool.proposed`, unknown tool or invalid
 * arguments, the approval gate with the call's own risk, `tool.started`, progress, `tool.completed`.
 * `callSignal` is the turn's signal for a top-level call; for a nested call it also aborts when the cell stops
 * waiting, and the call then completes as `cancelled`. Only the turn's own cancellation rejects.
 */
async function runCall(
  input: TurnInput,
  call: ToolCallRecord,
  callSignal: AbortSignal,
  usage: Usage,
): Promise<ToolOutcome> {
  const { sink, signal } = input;
  await sink.toolProposed(call);
  const finish = async (outcome: ToolOutcome) => {
    await sink.toolCompleted(call, outcome);
    return outcome;
  };
  const tool = input.tools.get(call.name);
  if (!tool)
    return finish({ success: false, output: `unknown tool: ${call.name}`, truncated: false, error: "unknown_tool" });
  if (tool.ready !== undefined) {
    try {
      await untilAborted(tool.ready(), callSignal);
    } catch (error) {
      if (signal.aborted || !callSignal.aborted) throw error;
      return finish({ success: false, output: NESTED_CANCELLED_OUTPUT, truncated: false, error: "cancelled" });
    }
  }
  const prepared = tool.prepare(call.arguments, { workspace: input.workspace, config: input.config });
  if ("error" in prepared)
    return finish({ success: false, output: prepared.error, truncated: false, error: "invalid_arguments" });

  let approved: ApprovalAnswer;
  try {
    approved = await untilAborted(sink.approve(call, prepared, callSignal), callSignal);
  } catch (error) {
    if (signal.aborted || !callSignal.aborted) throw error;
    return finish({ success: false, output: NESTED_CANCELLED_OUTPUT, truncated: false, error: "cancelled" });
  }
  if (approved !== true) {
    const output = approved === false ? DENIED_OUTPUT : `${DENIED_OUTPUT}: ${approved.denied}`;
    return finish({ success: false, output, truncated: false, error: "denied" });
  }

  await sink.toolStarted(call);
  const progress = createProgressGate((text) => sink.toolProgress(call, text), callSignal);
  const context: ToolContext = {
    workspace: input.workspace,
    config: input.config,
    signal: callSignal,
    ...(input.hides === undefined ? {} : { hides: input.hides }),
    progress: progress.push,
    nested: nestedCalls(input, call, callSignal, usage),
    approve: (nestedCall, nestedPrepared, approveSignal) => sink.approve(nestedCall, nestedPrepared, approveSignal),
    // A sub-agent's model requests count toward the turn's usage (and so its cost and the budget).
    spent: (spentUsage) => addUsage(usage, spentUsage),
    ...(input.fileWillChange ? { fileWillChange: input.fileWillChange } : {}),
  };
  let outcome = await runPrepared(prepared, context);
  // The sandbox denied something: the same call with more rights is asked about like any call, then run or declined.
  const escalation = outcome.escalation;
  if (escalation !== undefined && !callSignal.aborted) {
    let answer: ApprovalAnswer;
    try {
      answer = await untilAborted(
        sink.approve({ ...call, arguments: escalation.arguments }, escalation.prepared, callSignal),
        callSignal,
      );
    } catch (error) {
      if (signal.aborted || !callSignal.aborted) throw error;
      answer = { denied: "cancelled" };
    }
    outcome = answer === true
      ? await runPrepared(escalation.prepared, context)
      : escalation.declined(answer === false ? "the user did not approve it" : answer.denied);
  }
  await progress.close();
  throwIfAborted(signal);
  if (!outcome.success && outcome.error === undefined) outcome = { ...outcome, error: "failed" };
  const added = await sink.afterTool?.(call, prepared, outcome);
  throwIfAborted(signal);
  if (added !== undefined && added !== "") outcome = { ...outcome, output: outcome.output + added };
  return finish(outcome);
}

/** Runs an approved call; a tool that throws anyway fails the call instead of the turn. */
async function runPrepared(prepared: PreparedCall, context: ToolContext): Promise<ToolOutcome> {
  try {
    return await prepared.run(context);
  } catch (error) {
    return {
      success: false,
      output: error instanceof Error ? error.message : String(error),
      truncated: false,
      error: "failed",
    };
  }
}

/** Nested calls of `parent` (an exec cell's `tools.<name>(…)`) run through `runCall` with ids `<parent>:<suffix>`. */
function nestedCalls(input: TurnInput, parent: ToolCallRecord, parentSignal: AbortSignal, usage: Usage): NestedCalls {
  return {
    get tools() {
      return input.tools.list().map((tool) => ({ name: tool.name, description: tool.description }));
    },
    run: (request, signal) =>
      runCall(
        input,
        { call_id: `${parent.call_id}:${request.suffix}`, name: request.name, arguments: request.arguments },
        AbortSignal.any([parentSignal, signal]),
        usage,
      ),
  };
}

/**
 * Bounds a call's progress to 512 bytes per line and 2 lines per second (the latest line wins), and chains the
 * writes so they stay in order; `close` drops what is pending and waits for what was sent.
 */
function createProgressGate(write: (text: string) => Promise<void>, signal: AbortSignal) {
  let chain: Promise<void> = Promise.resolve();
  let last = -Infinity;
  let pending: string | undefined;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const send = () => {
    timer = undefined;
    if (closed || signal.aborted || pending === undefined) return;
    const text = pending;
    pending = undefined;
    last = performance.now();
    chain = chain.then(() => write(text)).catch(() => {});
  };
  return {
    push(text: string): void {
      if (closed) return;
      pending = cutToBytes(text, PROGRESS_MAX_BYTES);
      if (timer) return;
      const wait = last + PROGRESS_INTERVAL_MS - performance.now();
      if (wait <= 0) send();
      else timer = setTimeout(send, wait);
    },
    async close(): Promise<void> {
      closed = true;
      clearTimeout(timer);
      await chain;
    },
  };
}

/** Settles with `promise`, or rejects with an AbortError as soon as `signal` aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return raceAbort(promise, signal, (): never => {
    throw abortError("turn cancelled");
  });
}

function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw abortError("turn cancelled");
}

function addUsage(total: Usage, step: Usage): void {
  for (const field of USAGE_FIELDS) {
    const count = step[field];
    if (count !== undefined) total[field] = (total[field] ?? 0) + count;
  }
}
