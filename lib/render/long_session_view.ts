// What a client shows of undo, rewind and compaction (docs/sessions.md): which turns went back, which files were
// put back and which were left alone, and what a compaction kept.
import type { EventOf } from "../protocol/index.ts";
import { type Paint, stripControls, type Style } from "./style.ts";
import { formatUsd } from "./usage_text.ts";

const RESTORED = { code: "the code", conversation: "the conversation", both: "the code and the conversation" };
/** File names listed in full up to this many; then `… and N more`. */
const LISTED = 12;

/** The rows of a `session.rewound`; a row per line, unwrapped. */
export function rewoundLines(event: EventOf<"session.rewound">, style: Style): Array<{ text: string; paint?: Paint }> {
  const count = event.turns.length;
  const what = RESTORED[event.restore as keyof typeof RESTORED] ?? event.restore;
  const lines: Array<{ text: string; paint?: Paint }> = [
    { text: `rewound ${count} turn${count === 1 ? "" : "s"}: ${what}`, paint: style.green },
  ];
  const files = event.files;
  if (files !== undefined) {
    const restored = files.restored;
    lines.push({
      text: restored.length === 0 ? "no file needed restoring" : `restored ${restored.length}: ${listed(restored)}`,
    });
    // A forced restore lists its conflicts among the restored files: only the ones left alone are conflicts still.
    const leftAlone = files.conflicts.filter((path) => !restored.includes(path));
    if (leftAlone.length > 0) {
      const again = event.restore === "code" ? "; rewind again with force to overwrite them" : "";
      lines.push({
        text: `left alone, changed since (conflicts) ${leftAlone.length}: ${listed(leftAlone)}${again}`,
        paint: style.yellow,
      });
    }
    if (files.skipped.length > 0) {
      lines.push({
        text: `not snapshotted (too large), left as they are: ${listed(files.skipped)}`,
        paint: style.yellow,
      });
    }
    for (const failure of files.failed) {
      lines.push({ text: `could not restore ${stripControls(failure.path)}: ${failure.reason}`, paint: style.red });
    }
  }
  for (const notice of event.notices) lines.push({ text: `note: ${notice}`, paint: style.yellow });
  return lines;
}

/** The rows of a `session.compacted`: one line in a turn, with the summary when asked for (`/compact`). */
export function compactedLines(event: EventOf<"session.compacted">): string[] {
  const how = event.method === "model" ? "summarised by the model" : "summarised by a short note (the model's failed)";
  const cost = event.cost_usd === undefined ? "" : ` · ${formatUsd(event.cost_usd)}`;
  const lines = [
    `(conversation compacted: ${event.removed_messages} older messages ${how}, ${event.before_tokens} → ${event.after_tokens} tokens${cost})`,
  ];
  if (event.error !== undefined) lines.push(`(the summary request failed: ${event.error})`);
  if (event.turn_id === undefined && event.summary !== "") lines.push(...event.summary.split("\n"));
  return lines;
}

function listed(paths: readonly string[]): string {
  const shown = paths.slice(0, LISTED).map((path) => stripControls(path));
  return paths.length > LISTED ? `${shown.join(", ")} … and ${paths.length - LISTED} more` : shown.join(", ");
}
