// A typed prompt that runs a custom command (issue 30): `/name arguments`, where `name` is one the session lists.
// Clients turn it into `turn.start.command`; a prompt that starts with `/` but names no command is sent as typed.
import type { CommandRef } from "./client.ts";

export function slashCommand(prompt: string, names: readonly string[]): CommandRef | undefined {
  const match = /^\/(\S+)(?:[ \t]+([\s\S]*))?$/.exec(prompt.trim());
  if (!match || !names.includes(match[1]!)) return undefined;
  return { name: match[1]!, arguments: (match[2] ?? "").trim() };
}
