// `/fork`: copies this session into a new one and goes on there (the original stays as it was).
import type { SlashCommand } from "./command.ts";

export const forkCommand: SlashCommand = {
  name: "fork",
  usage: "/fork",
  help: "copy this session into a new one and go on there",
  run: (chat, argument) => chat.switchSession("fork", argument),
};
