// `/usage`: the tokens and cost of the last turn and of the session (session.usage), the budget, the model's price,
// and the context window the engine budgets with.
import type { EventOf } from "../../protocol/index.ts";
import { formatUsage, formatUsageDetail, formatUsd } from "../../render/index.ts";
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

function spendingLines(usage: EventOf<"session.usage">): string[] {
  const unknown = `unknown: scv has no price for model ${usage.model}; add [model_prices."${usage.model}"]`;
  const cost = (value: number | null) => value === null ? unknown : formatUsd(value);
  const last = usage.last_turn;
  const lines = [
    `last turn: ${last ? `${formatUsageDetail(last.usage)} · ${cost(last.cost_usd)}` : "no turn yet"}`,
    `this session: ${formatUsageDetail(usage.usage)} · ${cost(usage.cost_usd)}`,
  ];
  if (usage.max_cost_usd !== null) {
    const spent = usage.cost_usd === null ? "an unknown amount" : formatUsd(usage.cost_usd);
    lines.push(`budget: ${spent} of ${formatUsd(usage.max_cost_usd)} spent (max_cost_usd)`);
  }
  const price = usage.price;
  if (price !== null) {
    const per = (value: number) => `$${Number(value.toPrecision(6))}`;
    const write = price.cache_write === undefined ? "" : `, ${per(price.cache_write)} cache writes`;
    lines.push(
      `price of ${usage.model} per million tokens: ${per(price.input)} in, ${per(price.cached_input)} cached, ` +
        `${per(price.output)} out${write}`,
    );
  }
  return lines;
}

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
