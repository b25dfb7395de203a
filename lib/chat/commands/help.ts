// `/help`: the commands and the keys.
import type { CommandChat, SlashCommand } from "./command.ts";

export const helpCommand: SlashCommand = {
  name: "help",
  usage: "/help",
  help: "show the commands and keys",
  run(chat) {
    chat.note([
      "Commands:",
      ...chat.commands.map((command) => `  ${command.usage.padEnd(20)} ${command.help}`),
      ...customCommands(chat),
      "Keys: Enter sends · Ctrl-J adds a line · Up/Down browse history · Ctrl-R searches it",
      "      Tab completes a /command · Esc or Ctrl-C cancels a turn · Ctrl-C twice or Ctrl-D exits",
      "      an approval takes y, yes, n, no, a or always (this session), k or keep (for good), then Enter",
    ]);
    return false;
  },
};

/** The session's custom commands (issue 30): name and hint, description, origin; a project's that hides a user's. */
function customCommands(chat: CommandChat): string[] {
  const commands = chat.controller.commands;
  if (commands.length === 0) return [];
  const builtIn = new Set(chat.commands.map((command) => command.name));
  return [
    "Custom commands ($SCV_HOME/commands/, .scv/commands/):",
    ...commands.map((command) => {
      const usage = `/${command.name}${command.argument_hint === undefined ? "" : ` ${command.argument_hint}`}`;
      const notes = [
        command.origin,
        ...(command.overrides ? ["overrides the user command of that name"] : []),
        ...(builtIn.has(command.name) ? ["hidden by the built-in command"] : []),
      ];
      const description = command.description === undefined ? "" : `${command.description} `;
      return `  ${usage.padEnd(20)} ${description}(${notes.join(", ")})`;
    }),
  ];
}
