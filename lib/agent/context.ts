// Context selection for one provider call and session trimming after a turn (spec §6.6). Pure functions:
// the stored history is never changed here; callers get a new list.
import type { HistoryItem } from "../provider/index.ts";
import { compactionNote, groupHistory, historyBytes, tokensFor } from "./history.ts";

export const CONTEXT_MESSAGES = {
  fixedTooLarge: "system prompt and tool schemas exceed context budget",
  newestTooLarge: "newest turn exceeds context budget",
  noteTooLarge: "compaction note cannot fit context budget",
  historyLimit: "active turn exceeds session history limit",
} as const;

/** A window size worth suggesting: `tokens` rounded up to a whole 1,024. */
function roundedWindow(tokens: number): number {
  return Math.ceil(tokens / 1024) * 1024;
}

const WINDOW_HINT = "if the model's window is that large (a local server's own window is set there: llama-server -c, " +
  "vLLM --max-model-len, OLLAMA_CONTEXT_LENGTH)";

/** The context_limit texts: the spec's words, then which setting to change and to what. */
function fixedTooLarge(limits: ContextLimits, fixedTokens: number, newest: number): string {
  const reserves = limits.reserve_output_tokens + limits.safety_margin_tokens;
  return `${CONTEXT_MESSAGES.fixedTooLarge}: they take about ${fixedTokens} tokens and context.max_tokens = ` +
    `${limits.max_tokens} leaves ${Math.max(0, limits.max_tokens - reserves)} after context.reserve_output_tokens ` +
    `(${limits.reserve_output_tokens}) and context.safety_margin_tokens (${limits.safety_margin_tokens}); set ` +
    `context.max_tokens to at least ${roundedWindow(reserves + fixedTokens + newest)} ${WINDOW_HINT}, or lower the ` +
    "reserves";
}

function newestTooLarge(limits: ContextLimits, newest: number, budget: number): string {
  return `${CONTEXT_MESSAGES.newestTooLarge}: it takes about ${newest} tokens and ${budget} are left after the ` +
    `system prompt, tool schemas and reserves; set context.max_tokens to at least ` +
    `${roundedWindow(limits.max_tokens + newest - budget)} ${WINDOW_HINT}, or send less (a shorter prompt, fewer ` +
    "attachments, a lower tools.output_limit_bytes)";
}

function noteTooLarge(limits: ContextLimits, needed: number, budget: number): string {
  return `${CONTEXT_MESSAGES.noteTooLarge}: lower context.summary_max_chars (now ${limits.summary_max_chars}) or set ` +
    `context.max_tokens to at least ${roundedWindow(limits.max_tokens + needed - budget)} ${WINDOW_HINT}`;
}

export type ContextLimits = {
  max_tokens: number;
  reserve_output_tokens: number;
  safety_margin_tokens: number;
  bytes_per_token: number;
  summary_max_chars: number;
};

export type ContextSelection =
  | {
    ok: true;
    items: HistoryItem[];
    compacted?: { before_tokens: number; after_tokens: number; removed_messages: number };
  }
  | { ok: false; message: string };

/** Tokens left for history once the output reserve, safety margin, system prompt and tool schemas are taken. */
export function historyBudget(limits: ContextLimits, fixedBytes: number): number {
  return (
    limits.max_tokens -
    limits.reserve_output_tokens -
    limits.safety_margin_tokens -
    tokensFor(fixedBytes, limits.bytes_per_token)
  );
}

export function selectContext(
  history: readonly HistoryItem[],
  limits: ContextLimits,
  fixedBytes: number,
): ContextSelection {
  const budget = historyBudget(limits, fixedBytes);
  const tokens = (items: readonly HistoryItem[]) => tokensFor(historyBytes(items), limits.bytes_per_token);
  const groups = groupHistory(history);
  const groupTokens = groups.map(tokens);
  const newest = groupTokens.at(-1) ?? 0;
  if (budget <= 0) {
    const fixedTokens = tokensFor(fixedBytes, limits.bytes_per_token);
    return { ok: false, message: fixedTooLarge(limits, fixedTokens, newest) };
  }
  if (groups.length === 0) return { ok: true, items: [] };
  if (newest > budget) return { ok: false, message: newestTooLarge(limits, newest, budget) };
  const before = groupTokens.reduce((sum, value) => sum + value, 0);
  if (before <= budget) return { ok: true, items: [...history] };

  // Keep older groups newest-first while they fit; the kept part is always a suffix.
  let first = groups.length - 1;
  let used = newest;
  while (first > 0 && used + groupTokens[first - 1]! <= budget) {
    first -= 1;
    used += groupTokens[first]!;
  }
  for (;;) {
    const dropped = groups.slice(0, first).flat();
    const note = compactionNote(dropped, limits.summary_max_chars);
    const noteTokens = tokens([note]);
    if (used + noteTokens <= budget) {
      return {
        ok: true,
        items: [note, ...groups.slice(first).flat()],
        compacted: { before_tokens: before, after_tokens: used + noteTokens, removed_messages: dropped.length },
      };
    }
    if (first >= groups.length - 1) {
      return { ok: false, message: noteTooLarge(limits, used + noteTokens, budget) };
    }
    used -= groupTokens[first]!;
    first += 1;
  }
}

export type TrimLimits = { max_history_bytes: number; max_messages: number; summary_max_chars: number };

export type TrimResult =
  | { ok: true; history: HistoryItem[]; trimmed?: { removed_messages: number; history_bytes: number } }
  | { ok: false; message: string };

/**
 * After a successful turn: if the history is over the session limits, its oldest groups before `turnStart`
 * become one note. The turn itself (items from `turnStart`) is never dropped; alone over a limit, it fails.
 */
export function trimHistory(history: readonly HistoryItem[], turnStart: number, limits: TrimLimits): TrimResult {
  const fits = (items: readonly HistoryItem[]) =>
    items.length <= limits.max_messages && historyBytes(items) <= limits.max_history_bytes;
  if (fits(history)) return { ok: true, history: [...history] };
  const turn = history.slice(turnStart);
  if (!fits(turn)) return { ok: false, message: CONTEXT_MESSAGES.historyLimit };
  const groups = groupHistory(history.slice(0, turnStart));
  for (let drop = 1; drop <= groups.length; drop += 1) {
    const dropped = groups.slice(0, drop).flat();
    const candidate = [
      compactionNote(dropped, limits.summary_max_chars),
      ...groups.slice(drop).flat(),
      ...turn,
    ];
    if (fits(candidate)) return trimmed(candidate, dropped.length);
  }
  // Even the note does not fit beside the turn: drop the older history without one.
  return trimmed([...turn], turnStart);
}

function trimmed(history: HistoryItem[], removed: number): TrimResult {
  return { ok: true, history, trimmed: { removed_messages: removed, history_bytes: historyBytes(history) } };
}
