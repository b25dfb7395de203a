// The approval modes as ACP session modes, switched with `session/set_mode`: the engine's own list
// (lib/policy/modes.ts). A switch is the engine's `session.configure`; the engine decides every call, and the
// editor sees a permission request only when the engine asks.
import type { SessionMode, SessionModeState } from "@agentclientprotocol/sdk";
import { APPROVAL_MODES, type ApprovalMode, isApprovalMode } from "../policy/index.ts";

export const MODES: readonly SessionMode[] = APPROVAL_MODES.map((mode) => ({
  id: mode.id,
  name: mode.name,
  description: mode.description,
}));

export function isMode(id: string): id is ApprovalMode {
  return isApprovalMode(id);
}

export function modeState(current: ApprovalMode): SessionModeState {
  return { currentModeId: current, availableModes: [...MODES] };
}
