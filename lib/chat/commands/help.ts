// `/help`: the commands and the keys.
import type { SlashCommand } from "./command.ts";

export const helpCommand: SlashCommand = {
  name: "help",
  usage: "/help",
  help: "show the commands and keys",
  run(chat) {
    chat.note([
      "Commands:",
      ...chat.commands.map((command) => `  ${command.usage.padEnd(20)} ${command.help}`),
      "Keys: Enter sends · Ctrl-J adds a line · Up/Down browse history · Ctrl-R searches it",
      "      Tab completes a /command · Esc or Ctrl-C cancels a turn · Ctrl-C twice or Ctrl-D exits",
      "      an approval takes y, yes, n, no, a or always (this session), k or keep (for good), then Enter",
    ]);
    return false;
  },
};
