// The compact replay a resumed session's client redraws (`session.replay`): the newest turns since the last clear,
// each text cut, as many as fit in `budgetBytes`; older ones are counted in `omitted_turns`.
import type { ReplayTurn } from "./read.ts";

const PROMPT_CHARS = 4000;
const ANSWER_CHARS = 16000;
const MAX_TOOLS = 64;
const OUTPUT_CHARS = 4000;
const ARGUMENTS_BYTES = 4096;

function cut(text: string, chars: number): string {
  if (text.length <= chars) return text;
  const kept = Array.from(text);
  return kept.length <= chars ? text : `${kept.slice(0, chars - 1).join("")}…`;
}

/** A tool of the replay with its output cut and large arguments left out. */
function compactTool(tool: ReplayTurn["tools"][number]): ReplayTurn["tools"][number] {
  const compact: ReplayTurn["tools"][number] = { name: tool.name, success: tool.success };
  if (tool.call_id !== undefined) compact.call_id = tool.call_id;
  if (tool.arguments !== undefined && Buffer.byteLength(JSON.stringify(tool.arguments)) <= ARGUMENTS_BYTES) {
    compact.arguments = tool.arguments;
  }
  if (tool.output !== undefined) compact.output = cut(tool.output, OUTPUT_CHARS);
  return compact;
}

export function compactReplay(
  turns: readonly ReplayTurn[],
  budgetBytes: number,
): { turns: ReplayTurn[]; omitted_turns: number } {
  const kept: ReplayTurn[] = [];
  let used = 0;
  for (let index = turns.length - 1; index >= 0; index -= 1) {
    const turn = turns[index]!;
    const compact: ReplayTurn = {
      turn_id: turn.turn_id,
      prompt: cut(turn.prompt, PROMPT_CHARS),
      answer: cut(turn.answer, ANSWER_CHARS),
      tools: turn.tools.slice(0, MAX_TOOLS).map(compactTool),
      status: turn.status,
    };
    const bytes = Buffer.byteLength(JSON.stringify(compact)) + 1;
    if (used + bytes > budgetBytes) break;
    used += bytes;
    kept.push(compact);
  }
  kept.reverse();
  return { turns: kept, omitted_turns: turns.length - kept.length };
}
