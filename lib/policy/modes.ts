// The approval modes: the one list every surface takes its names, texts and order from (flags, the config schema,
// `session.configure`, chat's `/approvals`, ACP's session modes).

export type ApprovalMode = "on-risk" | "always" | "never" | "accept-edits" | "plan" | "auto";

export type ModeInfo = {
  id: ApprovalMode;
  /** A short title (ACP shows it in the mode picker). */
  name: string;
  /** One sentence: what the mode does when no rule decides. */
  description: string;
  /**
   * How strict the mode is: the workspace's `.scv/config.toml` may only pick a mode at least as strict as the
   * user's. Modes of equal rank may replace each other.
   */
  strictness: number;
};

export const APPROVAL_MODES: readonly ModeInfo[] = [
  {
    id: "on-risk",
    name: "Ask on risk",
    description: "Read-only calls run; anything else asks first",
    strictness: 1,
  },
  {
    id: "accept-edits",
    name: "Accept edits",
    description: "Reads and file changes inside the workspace run; commands and fetches ask first",
    strictness: 0,
  },
  {
    id: "auto",
    name: "Auto (sandboxed)",
    description: "Reads, file changes inside the workspace and commands the sandbox contains run; anything more asks",
    strictness: -1,
  },
  {
    id: "plan",
    name: "Plan",
    description: "Reads run; every tool that writes, runs or fetches is refused while the agent plans",
    strictness: 3,
  },
  {
    id: "always",
    name: "Ask always",
    description: "Every tool call asks first, reads included",
    strictness: 2,
  },
  {
    id: "never",
    name: "Never ask",
    description: "Read-only calls run; anything else is denied without asking",
    strictness: 3,
  },
];

export const APPROVAL_MODE_IDS: readonly ApprovalMode[] = APPROVAL_MODES.map((mode) => mode.id);

/** The default mode when nothing sets one. */
export const DEFAULT_APPROVAL_MODE: ApprovalMode = "on-risk";

export function isApprovalMode(value: unknown): value is ApprovalMode {
  return typeof value === "string" && (APPROVAL_MODE_IDS as readonly string[]).includes(value);
}

export function modeInfo(mode: ApprovalMode): ModeInfo {
  return APPROVAL_MODES.find((info) => info.id === mode)!;
}

/** `on-risk, accept-edits, auto, plan, always or never`: the modes as a sentence names them. */
export function modeList(conjunction = "or"): string {
  const ids = [...APPROVAL_MODE_IDS];
  return `${ids.slice(0, -1).join(", ")} ${conjunction} ${ids.at(-1)}`;
}

/** The message for a mode name that is not one. */
export function unknownModeMessage(value: string, what = "approval policy"): string {
  return `unknown ${what} ${JSON.stringify(value)}; use ${modeList()}`;
}
