// `/resume [id]`: continues a stored session (without an id: a picker of this workspace's sessions).
import type { SlashCommand } from "./command.ts";

export const resumeCommand: SlashCommand = {
  name: "resume",
  usage: "/resume [id]",
  help: "continue a stored session (no id: pick from a list)",
  run: (chat, argument) => chat.switchSession("resume", argument),
};
