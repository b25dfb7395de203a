// `/usage`: the tokens and cost of the last turn and of the session (session.usage), the budget, the model's price,
// and the context window the engine budgets with.
import { formatUsage, spendingLines } from "../../render/index.ts";
import type { CommandChat, SlashCommand } from "./command.ts";

export const usageCommand: SlashCommand = {
  name: "usage",
  usage: "/usage",
  help: "tokens and cost of the last turn and of this session, and the budget",
  async run(chat) {
    let reply;
    try {
      reply = await chat.controller.longSessionRequest({ type: "session.usage" });
    } catch {
      reply = undefined;
    }
    const context = contextWindowLines(chat.controller.session?.context_window);
    if (reply?.type === "session.usage") chat.note([...spendingLines(reply), ...context]);
    else chat.note([...localLines(chat), ...context]);
    return false;
  },
};

/** What the chat counted itself, when the engine could not answer. */
function localLines(chat: CommandChat): string[] {
  const { last, total } = chat.usage();
  return [`last turn: ${last ? formatUsage(last) : "no turn yet"}`, `this chat: ${formatUsage(total)}`];
}

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
