// The conversation history as the agent keeps it: sizes, user-led groups and compaction notes (spec §6.6).
import type { HistoryItem } from "../provider/index.ts";

export const NOTE_PREFIX = "[SCV compacted ";
const EXTRACT_CHARS = 240;

export function itemBytes(item: HistoryItem): number {
  return Buffer.byteLength(JSON.stringify(item));
}

export function historyBytes(items: readonly HistoryItem[]): number {
  let total = 0;
  for (const item of items) total += itemBytes(item);
  return total;
}

export function tokensFor(bytes: number, bytesPerToken: number): number {
  return Math.ceil(bytes / bytesPerToken);
}

/** Splits the history into groups, each from a user message up to the next, so calls stay with their results. */
export function groupHistory(items: readonly HistoryItem[]): HistoryItem[][] {
  const groups: HistoryItem[][] = [];
  for (const item of items) {
    if (item.kind === "user" || groups.length === 0) groups.push([item]);
    else groups.at(-1)!.push(item);
  }
  return groups;
}

function lastChars(text: string, count: number): string {
  const flat = text.replace(/\r\n|\r|\n/g, " ");
  const chars = Array.from(flat);
  return chars.length <= count ? flat : chars.slice(chars.length - count).join("");
}

function extract(item: HistoryItem): string {
  switch (item.kind) {
    case "user":
      return item.content.startsWith(NOTE_PREFIX)
        ? `earlier: ${lastChars(item.content, EXTRACT_CHARS)}`
        : `user: ${lastChars(item.content, EXTRACT_CHARS)}`;
    case "assistant": {
      const text = item.content !== "" ? item.content : item.calls.map((call) => `called ${call.name}`).join(", ");
      return `assistant: ${lastChars(text, EXTRACT_CHARS)}`;
    }
    case "tool_result":
      return `tool ${item.name} (${item.success ? "ok" : "failed"}): ${lastChars(item.output, EXTRACT_CHARS)}`;
  }
}

/** The one user message that stands for a dropped prefix, cut to `maxChars` characters. */
export function compactionNote(dropped: readonly HistoryItem[], maxChars: number): HistoryItem {
  const header = `${NOTE_PREFIX}${dropped.length} earlier messages. Bounded extracts follow.]\n`;
  const text = header + dropped.map(extract).join("\n");
  const chars = Array.from(text);
  return { kind: "user", content: chars.length <= maxChars ? text : chars.slice(0, maxChars).join("") };
}
