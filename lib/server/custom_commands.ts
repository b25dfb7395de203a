// `turn.start.command` (issue 30): the prompt a custom command of the session becomes with its arguments.
import { type CustomCommand, expandCommand } from "../commands/index.ts";
import type { CommandRef } from "../protocol/index.ts";

export function commandPrompt(
  commands: readonly CustomCommand[],
  command: CommandRef,
): { prompt: string } | { rejected: string } {
  const found = commands.find((candidate) => candidate.name === command.name);
  if (found === undefined) {
    return {
      rejected: `unknown command ${JSON.stringify(command.name)}: session.started lists this session's commands`,
    };
  }
  return { prompt: expandCommand(found.body, command.arguments) };
}
