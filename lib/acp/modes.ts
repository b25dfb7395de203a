// The approval policies as ACP session modes, switched with `session/set_mode`. The engine runs with the policy
// `always` (it asks about every call) and the session decides each question by its current mode exactly as the
// engine's gate would (lib/server/approvals.ts): read-only calls run unless the mode is `always`; other calls are
// asked about, or denied under `never`. The first mode is the configured tools.approval_policy (flag, files).
import type { SessionMode, SessionModeState } from "@agentclientprotocol/sdk";
import { type ApprovalPolicy, configuredApprovalPolicy } from "../config/index.ts";
import type { ServerOptions } from "../server/index.ts";

export const MODES: readonly SessionMode[] = [
  { id: "on-risk", name: "Ask on risk", description: "Read-only calls run; anything else asks first" },
  { id: "always", name: "Ask always", description: "Every tool call asks first, reads included" },
  { id: "never", name: "Never ask", description: "Read-only calls run; anything else is denied without asking" },
];

export function isMode(id: string): id is ApprovalPolicy {
  return MODES.some((mode) => mode.id === id);
}

export function modeState(current: ApprovalPolicy): SessionModeState {
  return { currentModeId: current, availableModes: [...MODES] };
}

/** What the mode does with a call of `risk`: run it, deny it, or ask the user (spec §6.5's policy × risk). */
export function gate(mode: ApprovalPolicy, risk: string): "run" | "deny" | "ask" {
  if (mode === "always") return "ask";
  if (risk === "read_only") return "run";
  return mode === "never" ? "deny" : "ask";
}

/**
 * The tools.approval_policy a session in `workspace` is configured with, read the way the engine reads it (the
 * --approval-policy flag over the files); `on-risk` (the default) when the configuration cannot be read, in which
 * case the engine has already refused the session with the reason.
 */
export async function configuredPolicy(options: ServerOptions, workspace: string): Promise<ApprovalPolicy> {
  try {
    return (await configuredApprovalPolicy(options, workspace)).policy;
  } catch {
    return options.approvalPolicy ?? "on-risk";
  }
}
