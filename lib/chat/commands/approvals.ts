// `/approvals [mode]`: the approval mode and permission rules in force (as the engine reports them, each with
// where it came from), or a switch to another mode (session.configure; the conversation continues).
import { isApprovalMode, modeList, unknownModeMessage } from "../../policy/index.ts";
import type { CommandChat, SlashCommand } from "./command.ts";

export const approvalsCommand: SlashCommand = {
  name: "approvals",
  usage: "/approvals [policy]",
  help: `show the approval policy and rules, or switch: ${modeList()}`,
  async run(chat, argument) {
    if (argument === "") {
      chat.note(policyLines(chat));
      return false;
    }
    if (!isApprovalMode(argument)) {
      chat.note([unknownModeMessage(argument)]);
      return false;
    }
    const before = chat.flags;
    const ended = await chat.configure(
      { approval_policy: argument },
      { ...chat.flags, approvalPolicy: argument },
      `approvals ${argument}`,
    );
    // configure replaces the flags only when the engine took the new mode.
    if (chat.flags !== before) chat.policySetHere = true;
    return ended;
  },
};

/** `approval policy: on-risk (project file /w/.scv/config.toml)` and each rule in force with its origin. */
function policyLines(chat: CommandChat): string[] {
  if (chat.policySetHere) return [`approval policy: ${chat.flags.approvalPolicy} (set with /approvals in this chat)`];
  const policy = chat.controller.session?.policy;
  if (!policy) return [`approval policy: ${chat.flags.approvalPolicy ?? "on-risk"} (the session is not running)`];
  const origin = policy.mode_origin === "session.configure" ? "set with /approvals in this chat" : policy.mode_origin;
  return [
    `approval policy: ${policy.mode} (${origin})`,
    ...(policy.rules.length === 0
      ? ["permission rules: none ([permissions] in the configuration adds them)"]
      : policy.rules.map((rule) => `${rule.list} ${rule.rule} (${rule.origin})`)),
  ];
}
