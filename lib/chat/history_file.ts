// Prompt history persisted in `$SCV_HOME/chat_history`: one JSON string per line (so multi-line prompts survive),
// oldest first, capped by the session's `max_prompt_history_items` and `max_prompt_history_bytes`.
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname } from "node:path";

export type HistoryLimits = { maxItems: number; maxBytes: number };

export const DEFAULT_HISTORY_LIMITS: HistoryLimits = { maxItems: 200, maxBytes: 1_048_576 };

export async function loadHistory(path: string, limits: HistoryLimits = DEFAULT_HISTORY_LIMITS): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch {
    return [];
  }
  const entries: string[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      const value: unknown = JSON.parse(line);
      if (typeof value === "string" && value.trim() !== "") entries.push(value);
    } catch {
      // A damaged line is skipped; the rest of the history still loads.
    }
  }
  return capHistory(entries, limits);
}

/** The newest entries that fit both limits. */
export function capHistory(entries: readonly string[], limits: HistoryLimits): string[] {
  const kept: string[] = [];
  let bytes = 0;
  for (let i = entries.length - 1; i >= 0 && kept.length < limits.maxItems; i -= 1) {
    const size = Buffer.byteLength(JSON.stringify(entries[i])) + 1;
    if (bytes + size > limits.maxBytes) break;
    bytes += size;
    kept.push(entries[i]!);
  }
  return kept.reverse();
}

export async function saveHistory(
  path: string,
  entries: readonly string[],
  limits: HistoryLimits = DEFAULT_HISTORY_LIMITS,
): Promise<void> {
  const kept = capHistory(entries, limits);
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeFile(path, kept.map((entry) => `${JSON.stringify(entry)}\n`).join(""), { mode: 0o600 });
  await chmod(path, 0o600);
}
