// `/trust [no]`: whether the user trusts the workspace (issue 30). A project's hooks (`.scv/config.toml`) are code
// from the checkout: they run only in a trusted folder. The answer goes to the user file, as `scv trust` writes it.
import type { SlashCommand } from "./command.ts";

export const trustCommand: SlashCommand = {
  name: "trust",
  usage: "/trust [no]",
  help: "trust this folder (its project hooks run) or, with no, keep them off",
  async run(chat, argument) {
    const word = argument.trim().toLowerCase();
    if (word !== "" && word !== "yes" && word !== "no") {
      chat.note(["usage: /trust (run this folder's project hooks) or /trust no (never run them)"]);
      return false;
    }
    const level = word === "no" ? "untrusted" : "trusted";
    try {
      const reply = await chat.controller.trust(level);
      if (reply.type === "error") {
        chat.note([`could not record the trust: ${reply.message}`]);
        return false;
      }
      const hooks = chat.controller.started?.hooks.filter((hook) => hook.origin === "project") ?? [];
      chat.note([
        level === "trusted"
          ? `trusted ${chat.controller.started?.cwd ?? "the workspace"}: its ${hooks.length} project hook(s) run`
          : `not trusted: this folder's project hooks stay off (/trust to change it)`,
      ]);
    } catch (error) {
      chat.note([`could not record the trust: ${(error as Error).message}`]);
    }
    return false;
  },
};
