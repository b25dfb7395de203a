// `/exit` (and `/quit`): leaves scv chat.
import type { SlashCommand } from "./command.ts";

export const exitCommand: SlashCommand = {
  name: "exit",
  usage: "/exit",
  help: "leave scv chat (also Ctrl-D, or Ctrl-C twice)",
  run(chat) {
    chat.exit(0);
    return true;
  },
};
