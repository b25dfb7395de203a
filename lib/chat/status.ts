// The status line under the prompt: model, what the engine is doing, last turn and session token usage.
import { formatUsage, type Style, truncateText } from "../client/index.ts";
import type { Usage } from "../protocol/index.ts";

export type StatusInfo = {
  model: string;
  state: "idle" | "working" | "approval" | "cancelling" | "starting";
  lastUsage: Usage | undefined;
  totalUsage: Usage;
  width: number;
};

const STATE_TEXT: Record<StatusInfo["state"], string> = {
  idle: "ready",
  working: "working (Esc or Ctrl-C cancels)",
  approval: "waiting for approval",
  cancelling: "cancelling",
  starting: "starting",
};

export function formatStatus(info: StatusInfo, style: Style): string {
  const parts = [
    info.model || "no model",
    STATE_TEXT[info.state],
    `last turn ${usageOrDash(info.lastUsage)}`,
    `session ${usageOrDash(info.totalUsage)}`,
  ];
  return style.dim(truncateText(parts.join(" · "), Math.max(10, info.width - 1)));
}

function usageOrDash(usage: Usage | undefined): string {
  return usage && (usage.input_tokens !== undefined || usage.output_tokens !== undefined) ? formatUsage(usage) : "–";
}
