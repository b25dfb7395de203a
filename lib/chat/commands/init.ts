// `/init`: asks the model to write an AGENTS.md for the project (issue 30), as Codex's and Claude Code's /init do.
import type { SlashCommand } from "./command.ts";

export const INIT_PROMPT = "Write an AGENTS.md file at the root of this workspace for agents that work on this " +
  "project. Look around first: the README, the build and test setup, the folder layout, the style the code " +
  "follows. Keep it short and concrete: how to build, test, lint and run the project; where things live; the " +
  "conventions a newcomer would get wrong. If an AGENTS.md exists already, improve it rather than replace it.";

export const initCommand: SlashCommand = {
  name: "init",
  usage: "/init",
  help: "ask the model to write an AGENTS.md for this project",
  async run(chat) {
    await chat.prompt(INIT_PROMPT);
    return false;
  },
};
