// `/undo [--force]`: takes back the conversation's last turn, its files and its place in the conversation
// (session.undo); a file changed since the turn is left alone unless forced. The transcript shows the reply.
import { forceFlag } from "../../client/index.ts";
import type { SlashCommand } from "./command.ts";
import { engineRequest } from "./engine_request.ts";

export const undoCommand: SlashCommand = {
  name: "undo",
  usage: "/undo [--force]",
  help: "take back the last turn: its file changes and its place in the conversation",
  async run(chat, argument) {
    const force = forceFlag(argument);
    if (force === undefined) {
      chat.note(["usage: /undo, or /undo --force to also overwrite files changed since the turn"]);
      return false;
    }
    await engineRequest(chat, { type: "session.undo", ...(force ? { force } : {}) });
    return false;
  },
};
