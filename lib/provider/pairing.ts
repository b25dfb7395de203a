// Call/result pairing shared by the wire formats (spec §8.2 "Pairing"): every call is
// followed by exactly one result before the next message, whatever the stored history holds.
import type { AssistantReplay, HistoryItem, ImageInput, ToolCallRecord } from "./types.ts";

export const UNFINISHED_CALL_OUTPUT = "Tool call did not complete: the turn ended before it returned a result.";

export type PairedItem =
  | { kind: "user"; content: string; images?: ImageInput[] }
  /** `calls` may be empty; `synthetic` marks a call invented for an orphan result. */
  | { kind: "assistant"; content: string; calls: ToolCallRecord[]; synthetic: boolean; replay?: AssistantReplay }
  /** `success` false goes back as an error where the wire can say so (the Messages wire's `is_error`). */
  | { kind: "tool_result"; call_id: string; name: string; output: string; success: boolean };

export function pairHistory(history: readonly HistoryItem[]): PairedItem[] {
  const items: PairedItem[] = [];
  let pending: ToolCallRecord[] = [];
  const flush = () => {
    for (const call of pending) {
      items.push({
        kind: "tool_result",
        call_id: call.call_id,
        name: call.name,
        output: UNFINISHED_CALL_OUTPUT,
        success: false,
      });
    }
    pending = [];
  };
  for (const item of history) {
    if (item.kind === "user") {
      flush();
      items.push(
        item.images?.length
          ? { kind: "user", content: item.content, images: item.images }
          : { kind: "user", content: item.content },
      );
    } else if (item.kind === "assistant") {
      flush();
      items.push({
        kind: "assistant",
        content: item.content,
        calls: item.calls,
        synthetic: false,
        ...(item.replay ? { replay: item.replay } : {}),
      });
      pending = [...item.calls];
    } else {
      const index = pending.findIndex((call) => call.call_id === item.call_id);
      if (index >= 0) {
        pending.splice(index, 1);
      } else {
        items.push({
          kind: "assistant",
          content: "",
          calls: [{ call_id: item.call_id, name: item.name, arguments: {} }],
          synthetic: true,
        });
      }
      items.push({
        kind: "tool_result",
        call_id: item.call_id,
        name: item.name,
        output: item.output,
        success: item.success,
      });
    }
  }
  flush();
  return items;
}

/** Compact JSON of parsed arguments (`{}` when absent). */
export function serializeArguments(args: unknown): string {
  return args === undefined ? "{}" : JSON.stringify(args);
}
