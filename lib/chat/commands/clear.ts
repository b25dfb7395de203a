// `/clear`: forgets the conversation so far (session.clear), only while no turn runs.
import type { SlashCommand } from "./command.ts";

export const clearCommand: SlashCommand = {
  name: "clear",
  usage: "/clear",
  help: "forget the conversation so far",
  async run(chat) {
    if (chat.controller.busy) {
      chat.note(["cancel the running turn before clearing (Esc)"]);
      return false;
    }
    await chat.controller.clear();
    return false;
  },
};
