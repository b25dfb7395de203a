// `/image PATH`: attaches an image to the next prompt (a pasted path of an image does the same).
import type { SlashCommand } from "./command.ts";

export const imageCommand: SlashCommand = {
  name: "image",
  usage: "/image PATH",
  help: "attach an image to your next prompt (or paste its path)",
  async run(chat, argument) {
    if (argument === "") {
      const staged = chat.stagedImages().join(", ");
      chat.note([
        staged === "" ? "usage: /image PATH (a PNG, JPEG, GIF or WebP file)" : `next prompt attaches: ${staged}`,
      ]);
      return false;
    }
    await chat.stageImage(argument);
    return false;
  },
};
