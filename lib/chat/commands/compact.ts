// `/compact [focus]`: the model summarises the conversation but its newest turns (session.compact), keeping what
// `focus` names in particular; the transcript shows the summary when it is done.
import type { SlashCommand } from "./command.ts";
import { engineRequest } from "./engine_request.ts";

export const compactCommand: SlashCommand = {
  name: "compact",
  usage: "/compact [focus]",
  help: "have the model summarise the older conversation (focus: what to keep in particular)",
  async run(chat, argument) {
    chat.note(["compacting the conversation…"]);
    await engineRequest(chat, {
      type: "session.compact",
      ...(argument === "" ? {} : { focus: argument }),
    });
    return false;
  },
};
