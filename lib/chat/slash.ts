// Slash commands typed at the chat prompt.
import { COMMANDS } from "./commands/index.ts";

/** Every command's name, usage and help, in /help's order (lib/chat/commands/ holds one file each). */
export const SLASH_COMMANDS: ReadonlyArray<{ name: string; usage: string; help: string }> = COMMANDS;

export type TypedCommand = { name: string; argument: string };

/**
 * A slash command, or undefined when the text is a prompt: it does not start with "/", or its first word holds
 * another "/" (a pasted absolute path such as `/home/me/shot.png` is no command).
 */
export function parseSlash(text: string): TypedCommand | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith("/") || trimmed.startsWith("//")) return undefined;
  const match = /^\/(\S*)\s*([\s\S]*)$/.exec(trimmed)!;
  if (match[1]!.includes("/")) return undefined;
  const name = match[1]!.toLowerCase();
  return { name: name === "quit" ? "exit" : name, argument: match[2]!.trim() };
}

/**
 * The path in `text` when it looks like a pasted file path of an image: one line, ending in an image extension,
 * maybe quoted or with backslash-escaped spaces (as terminals paste dropped files). Undefined otherwise.
 */
export function pastedPath(text: string): string | undefined {
  let candidate = text.trim();
  if (candidate === "" || candidate.includes("\n")) return undefined;
  const quoted = /^(['"])(.*)\1$/.exec(candidate);
  if (quoted) candidate = quoted[2]!;
  else candidate = candidate.replace(/\\ /g, " ");
  if (!/\.(png|jpe?g|gif|webp)$/i.test(candidate)) return undefined;
  if (/\s/.test(candidate) && !quoted && !/\\ /.test(text)) return undefined;
  return candidate;
}
