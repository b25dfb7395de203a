// scv's own commands in `scv acp` (issue 31: undo, compaction and usage where the protocol allows): advertised with
// `available_commands_update` beside the session's custom commands, and run when a prompt is `/name arguments`.
// They win a clash of names, as chat's do. Each answers in the agent's message and ends the prompt without a model
// turn (a compaction asks the model for its summary).
import type { AvailableCommand } from "@agentclientprotocol/sdk";
import { forceFlag, type SessionController } from "../client/index.ts";
import type { ClientEvent } from "../protocol/index.ts";
import { compactedLines, createStyle, rewoundLines, spendingLines } from "../render/index.ts";

export const BUILTIN_COMMANDS: readonly AvailableCommand[] = [
  {
    name: "undo",
    description: "Take back the last turn: its file changes and its place in the conversation",
    input: { hint: "--force to also overwrite files changed since" },
  },
  {
    name: "compact",
    description: "Have the model summarise the older conversation",
    input: { hint: "what to keep in particular" },
  },
  { name: "usage", description: "Tokens and cost of the last turn and of this session, and the budget" },
];

export function isBuiltinCommand(name: string): boolean {
  return BUILTIN_COMMANDS.some((command) => command.name === name);
}

/** The built-in command a prompt's text runs (`/name` or `/name arguments`), or undefined. */
export function builtinCommand(text: string): { name: string; argument: string } | undefined {
  const match = /^\/([a-z]+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match || !isBuiltinCommand(match[1]!)) return undefined;
  return { name: match[1]!, argument: (match[2] ?? "").trim() };
}

/** Runs `name` against the engine and returns what the agent says about it (the engine's refusal included). */
export async function runBuiltin(controller: SessionController, name: string, argument: string): Promise<string> {
  let reply: ClientEvent;
  switch (name) {
    case "undo": {
      const force = forceFlag(argument);
      if (force === undefined) return "Usage: /undo, or /undo --force to also overwrite files changed since the turn.";
      reply = await controller.longSessionRequest({ type: "session.undo", ...(force ? { force } : {}) });
      break;
    }
    case "compact":
      reply = await controller.longSessionRequest({
        type: "session.compact",
        ...(argument === "" ? {} : { focus: argument }),
      });
      break;
    default:
      reply = await controller.longSessionRequest({ type: "session.usage" });
  }
  return replyText(name, reply);
}

function replyText(name: string, reply: ClientEvent): string {
  switch (reply.type) {
    case "session.rewound":
      return rewoundLines(reply, createStyle(false)).map((line) => line.text).join("\n");
    case "session.compacted":
      return compactedLines(reply).join("\n");
    case "session.usage":
      return spendingLines(reply).join("\n");
    case "error":
      return `/${name} failed: ${reply.message}`;
    default:
      return `/${name}: the engine answered ${reply.type}`;
  }
}
