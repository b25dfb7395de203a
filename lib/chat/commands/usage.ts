// `/usage`: token usage of the last turn and of this chat, and the context window the engine budgets with.
import { formatUsage } from "../../render/index.ts";
import type { SlashCommand } from "./command.ts";

export const usageCommand: SlashCommand = {
  name: "usage",
  usage: "/usage",
  help: "token usage of the last turn and of this chat",
  run(chat) {
    const { last, total } = chat.usage();
    chat.note([
      `last turn: ${last ? formatUsage(last) : "no turn yet"}`,
      `this chat: ${formatUsage(total)}`,
      ...contextWindowLines(chat.controller.session?.context_window),
    ]);
    return false;
  },
};

/** The budget's window and where it came from (session.started.context_window, issue 14). */
function contextWindowLines(window: { tokens: number; source: string; warning?: string } | undefined): string[] {
  if (!window) return [];
  const sources: Record<string, string> = {
    config: "[context] max_tokens",
    default: "the default; the server did not tell",
    known_model: "known for this model",
    server: "reported by the server",
  };
  const lines = [
    `context window: ${window.tokens} tokens (${sources[window.source] ?? `reported by ${window.source}`})`,
  ];
  if (window.warning) lines.push(`warning: ${window.warning}`);
  return lines;
}
