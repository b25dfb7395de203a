// `/model [name]`: shows the model, or switches the running session to another (the conversation continues).
import type { SlashCommand } from "./command.ts";

export const modelCommand: SlashCommand = {
  name: "model",
  usage: "/model [name]",
  help: "show the model, or switch to another (the conversation continues)",
  run(chat, argument) {
    if (argument === "") {
      chat.note([`model: ${chat.controller.session?.model ?? "unknown"}`]);
      return false;
    }
    return chat.configure({ model: argument }, { ...chat.flags, model: argument }, `model ${argument}`);
  },
};
