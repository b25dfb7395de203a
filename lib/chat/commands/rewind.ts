// `/rewind [N [code|conversation|both] [--force]]`: goes back to before turn N of the conversation (session.rewind);
// without a number it lists the turns and the next line picks one. The transcript shows the reply.
import { stripControls, truncateText } from "../../render/index.ts";
import type { ConversationTurn } from "../conversation_turns.ts";
import type { CommandChat, SlashCommand } from "./command.ts";
import { engineRequest } from "./engine_request.ts";

const MODES = ["code", "conversation", "both"] as const;
type Mode = typeof MODES[number];
type Choice = { index: number; mode: Mode; force: boolean };

export const rewindCommand: SlashCommand = {
  name: "rewind",
  usage: "/rewind [N]",
  help: "go back to before a turn: its code, the conversation or both (no N: pick from a list)",
  run(chat, argument) {
    const turns = [...chat.turns()];
    if (turns.length === 0) {
      chat.note(["nothing to rewind: this conversation has no turns yet"]);
      return false;
    }
    if (argument !== "") return answer(chat, turns, argument, false);
    chat.render(listRows(chat, turns));
    chat.note([PICK_HINT]);
    chat.askNext((text) => answer(chat, turns, text, true));
    return false;
  },
};

function listRows(chat: CommandChat, turns: readonly ConversationTurn[]): string[] {
  const width = chat.width - 6;
  return [
    "Turns of this conversation, oldest first:",
    ...turns.map((turn, index) => {
      // Stored prompts come back from the journal: no control character of them reaches the terminal.
      const prompt = stripControls(turn.prompt).replace(/\s+/g, " ").trim();
      return `${String(index + 1).padStart(3)}  ${
        prompt === "" ? chat.style.dim("(prompt not shown)") : truncateText(prompt, width)
      }`;
    }),
  ];
}

const PICK_HINT = "Type a number to go back to before that turn, then what to restore: code, conversation or both " +
  '(the default), e.g. "2 code"; add force to overwrite files changed since. Enter or Esc cancels.';

async function answer(
  chat: CommandChat,
  turns: readonly ConversationTurn[],
  text: string,
  picked: boolean,
): Promise<boolean> {
  if (text.trim() === "") {
    chat.note(["rewind cancelled"]);
    return false;
  }
  const choice = parseChoice(text, turns.length);
  if (choice === undefined) {
    chat.note([
      `type a turn number from 1 to ${turns.length}, then code, conversation or both, and maybe force (e.g. "2 code")`,
    ]);
    if (picked) chat.askNext((again) => answer(chat, turns, again, true));
    return false;
  }
  await engineRequest(chat, {
    type: "session.rewind",
    turn_id: turns[choice.index]!.turnId,
    restore: choice.mode,
    ...(choice.force ? { force: true } : {}),
  });
  return false;
}

function parseChoice(text: string, count: number): Choice | undefined {
  const words = text.trim().toLowerCase().split(/\s+/);
  const number = Number(words.shift());
  if (!Number.isInteger(number) || number < 1 || number > count) return undefined;
  let mode: Mode = "both";
  let force = false;
  let modeSeen = false;
  for (const word of words) {
    if (/^(--)?force$/.test(word) && !force) force = true;
    else if (MODES.includes(word as Mode) && !modeSeen) {
      mode = word as Mode;
      modeSeen = true;
    } else return undefined;
  }
  return { index: number - 1, mode, force };
}
