// The slash commands of `scv chat`, one file each, in /help's order.
import { approvalsCommand } from "./approvals.ts";
import { clearCommand } from "./clear.ts";
import { compactCommand } from "./compact.ts";
import type { SlashCommand } from "./command.ts";
import { exitCommand } from "./exit.ts";
import { forkCommand } from "./fork.ts";
import { helpCommand } from "./help.ts";
import { imageCommand } from "./image.ts";
import { initCommand } from "./init.ts";
import { mcpCommand } from "./mcp.ts";
import { modelCommand } from "./model.ts";
import { resumeCommand } from "./resume.ts";
import { rewindCommand } from "./rewind.ts";
import { undoCommand } from "./undo.ts";
import { statusCommand } from "./status.ts";
import { trustCommand } from "./trust.ts";
import { usageCommand } from "./usage.ts";

export type { CommandChat, SlashCommand } from "./command.ts";
export { statusLines } from "./status.ts";

export const COMMANDS: readonly SlashCommand[] = [
  helpCommand,
  modelCommand,
  clearCommand,
  resumeCommand,
  forkCommand,
  approvalsCommand,
  imageCommand,
  mcpCommand,
  usageCommand,
  undoCommand,
  rewindCommand,
  compactCommand,
  statusCommand,
  initCommand,
  trustCommand,
  exitCommand,
];

export function findCommand(name: string): SlashCommand | undefined {
  return COMMANDS.find((command) => command.name === name);
}
