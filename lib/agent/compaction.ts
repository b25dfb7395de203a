// Compaction by the model (docs/sessions.md#compaction): the older part of the conversation is replaced by a summary
// the model writes, and the newest turns stay word for word. When the summary request fails, the deterministic note
// of history.ts stands in for it. No I/O of its own: the provider client is injected.
import type { ResolvedConfig } from "../config/index.ts";
import type { HistoryItem, ProviderClient, RetryNotice, Usage } from "../provider/index.ts";
import { selectContext } from "./context.ts";
import { compactionNote, groupHistory, historyBytes, NOTE_PREFIX, tokensFor } from "./history.ts";

export const SUMMARY_INSTRUCTIONS =
  "You compact the conversation of a coding agent so that its work can go on in a fresh context. Write a summary " +
  "that lets the agent continue exactly where it left off: the user's goals and constraints, the decisions made and " +
  "why, the files read, created or changed (with their paths), the commands run and what they showed, the errors " +
  "still open, and the next steps. Be factual and specific; quote code or output only where it matters. Write only " +
  "the summary.";

export type CompactionRequest = {
  history: readonly HistoryItem[];
  /** Items from this index on are the turn in progress: they are never summarised. */
  keepFrom?: number;
  provider: ProviderClient;
  config: ResolvedConfig;
  /** What the summary should keep in particular (`/compact <focus>`). */
  focus?: string;
  signal: AbortSignal;
  onRetry?(notice: RetryNotice): Promise<void>;
};

export type Compaction = {
  /** The new history: the summary, then the kept items. */
  history: HistoryItem[];
  /** How many items at the front of the old history the summary replaced. */
  drop: number;
  summary: HistoryItem;
  /** `model`: the model wrote the summary; `note`: its request failed and the deterministic note stands in. */
  method: "model" | "note";
  before_tokens: number;
  after_tokens: number;
  /** What the summary request used (empty when it failed before the provider counted anything). */
  usage: Usage;
  /** Why the model's summary could not be used (`method: "note"`). */
  error?: string;
};

/** Below this share of the window, the older history is not worth a summary request. */
const MIN_SUMMARISED_SHARE = 0.1;

/**
 * The compaction of `history`, or undefined when there is nothing older than the kept turns to summarise (or, with
 * `automatic`, too little to be worth a request: under a tenth of the window).
 */
export async function compactHistory(
  request: CompactionRequest & { automatic?: boolean },
): Promise<Compaction | undefined> {
  const { history, config } = request;
  const drop = compactableItems(history, config, request.keepFrom);
  if (drop === 0) return undefined;
  const older = history.slice(0, drop);
  const olderTokens = tokensFor(historyBytes(older), config.context.bytes_per_token);
  if (request.automatic === true && olderTokens < config.context.max_tokens * MIN_SUMMARISED_SHARE) return undefined;
  const kept = history.slice(drop);
  const limit = config.compaction.summary_max_chars;
  let method: Compaction["method"] = "model";
  let usage: Usage = {};
  let error: string | undefined;
  let text: string;
  try {
    const response = await summarise(older, request);
    usage = response.usage;
    text = response.text.trim();
    if (text === "") throw new Error("the model answered the summary request with no text");
  } catch (failure) {
    if (request.signal.aborted) throw failure;
    method = "note";
    error = failure instanceof Error ? failure.message : String(failure);
    text = "";
  }
  const summary: HistoryItem = method === "model"
    ? { kind: "user", content: cutChars(`${summaryHeader(older.length, request.focus)}\n${text}`, limit) }
    : compactionNote(older, Math.min(limit, config.context.summary_max_chars));
  const next = [summary, ...kept];
  const bytesPerToken = config.context.bytes_per_token;
  return {
    history: next,
    drop,
    summary,
    method,
    before_tokens: tokensFor(historyBytes(history), bytesPerToken),
    after_tokens: tokensFor(historyBytes(next), bytesPerToken),
    usage,
    ...(error === undefined ? {} : { error }),
  };
}

/**
 * How many items from the front are summarised: all but the newest `keep_turns` turns (groups led by a user
 * message), fewer kept when they would fill more than half the history budget; the turn in progress (from
 * `keepFrom`) is always kept.
 */
export function compactableItems(
  history: readonly HistoryItem[],
  config: ResolvedConfig,
  keepFrom = history.length,
): number {
  const groups = groupHistory(history.slice(0, keepFrom));
  const room = Math.floor(
    (config.context.max_tokens - config.context.reserve_output_tokens - config.context.safety_margin_tokens) / 2,
  );
  let keptGroups = 0;
  let keptTokens = tokensFor(historyBytes(history.slice(keepFrom)), config.context.bytes_per_token);
  while (keptGroups < Math.min(config.compaction.keep_turns, groups.length)) {
    const group = groups[groups.length - 1 - keptGroups]!;
    const tokens = tokensFor(historyBytes(group), config.context.bytes_per_token);
    if (keptTokens + tokens > room) break;
    keptTokens += tokens;
    keptGroups += 1;
  }
  return groups.slice(0, groups.length - keptGroups).reduce((sum, group) => sum + group.length, 0);
}

async function summarise(older: readonly HistoryItem[], request: CompactionRequest) {
  const ask: HistoryItem = { kind: "user", content: summaryPrompt(request.focus) };
  const selection = selectContext(
    [...older, ask],
    request.config.context,
    Buffer.byteLength(SUMMARY_INSTRUCTIONS),
  );
  if (!selection.ok) throw new Error(selection.message);
  return await request.provider.stream(
    {
      model: request.config.provider.model,
      instructions: SUMMARY_INSTRUCTIONS,
      history: selection.items,
      tools: [],
    },
    {
      signal: request.signal,
      onTextDelta: () => {},
      ...(request.onRetry ? { onRetry: request.onRetry } : {}),
    },
  );
}

function summaryPrompt(focus: string | undefined): string {
  const base = "Summarise the conversation above for the agent that continues it, as your instructions say.";
  return focus === undefined || focus.trim() === "" ? base : `${base} Pay particular attention to: ${focus.trim()}`;
}

function summaryHeader(count: number, focus: string | undefined): string {
  const about = focus === undefined || focus.trim() === "" ? "" : ` (focus: ${focus.trim().replace(/\s+/g, " ")})`;
  return `${NOTE_PREFIX}${count} earlier messages into this summary${about}.]`;
}

function cutChars(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : chars.slice(0, max).join("");
}

/**
 * Tokens the context holds now: the estimate from sizes, or the provider's own count for the last request plus the
 * estimate of what came after it, whichever is larger.
 */
export function contextInUse(
  history: readonly HistoryItem[],
  fixedBytes: number,
  bytesPerToken: number,
  reported?: { tokens: number; itemsAfter: readonly HistoryItem[] },
): number {
  const estimate = tokensFor(fixedBytes + historyBytes(history), bytesPerToken);
  if (reported === undefined) return estimate;
  return Math.max(estimate, reported.tokens + tokensFor(historyBytes(reported.itemsAfter), bytesPerToken));
}

/** True when automatic compaction is on and the context in use has passed its share of the window. */
export function needsCompaction(tokens: number, config: ResolvedConfig): boolean {
  const percent = config.compaction.auto_percent;
  return percent > 0 && tokens >= Math.floor((config.context.max_tokens * percent) / 100);
}
