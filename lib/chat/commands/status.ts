// `/status`: the session at a glance (issue 30): model and mode, the workspace and working folder, the instruction
// files loaded (with their sizes), the custom commands and the hooks with whether they run.
import type { EventOf } from "../../protocol/index.ts";
import type { SlashCommand } from "./command.ts";

export const statusCommand: SlashCommand = {
  name: "status",
  usage: "/status",
  help: "show the session: model, folders, instruction files, commands, hooks",
  run(chat) {
    const started = chat.controller.started;
    chat.note(started === undefined ? ["the session is not open"] : statusLines(started));
    return false;
  },
};

export function statusLines(started: EventOf<"session.started">): string[] {
  const lines = [
    `model ${started.model} · approvals ${started.approval_policy}`,
    `workspace ${started.cwd}`,
  ];
  if (started.working_folder !== started.cwd) lines.push(`working folder ${started.working_folder}`);
  if (started.instructions.length === 0) lines.push("instructions: none (no AGENTS.md found; /init writes one)");
  else {
    lines.push("instructions:");
    for (const file of started.instructions) {
      const cut = file.truncated ? ` (cut to ${file.bytes} of ${file.size} bytes)` : "";
      lines.push(`  ${file.path} · ${file.bytes} bytes${cut}`);
    }
  }
  if (started.commands.length > 0) {
    lines.push(`custom commands: ${started.commands.map((command) => `/${command.name}`).join(" ")}`);
  }
  if (started.hooks.length > 0) {
    lines.push(`hooks (folder ${started.workspace_trust}):`);
    for (const hook of started.hooks) {
      const matcher = hook.matcher === undefined ? "" : ` [${hook.matcher}]`;
      const skipped = hook.status === "skipped" ? " · skipped: the folder is not trusted (/trust)" : "";
      lines.push(`  ${hook.event}${matcher} ${hook.command} · ${hook.origin}${skipped}`);
    }
  }
  return lines;
}
