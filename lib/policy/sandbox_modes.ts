// The command sandbox's modes, with Codex's names (`sandbox_mode`): what a command may write, decided here and
// enforced by the operating system (lib/confine). One list for the config schema, the flags and the decision.

export type SandboxMode = "read-only" | "workspace-write" | "danger-full-access";

export const SANDBOX_MODE_IDS: readonly SandboxMode[] = ["read-only", "workspace-write", "danger-full-access"];

/** The mode when nothing sets one (where a sandbox holds; elsewhere commands run as they always did). */
export const DEFAULT_SANDBOX_MODE: SandboxMode = "workspace-write";

export function isSandboxMode(value: unknown): value is SandboxMode {
  return typeof value === "string" && (SANDBOX_MODE_IDS as readonly string[]).includes(value);
}

/** How strict a mode is: the workspace's `.scv/config.toml` may only pick one at least as strict as the user's. */
export function sandboxStrictness(mode: SandboxMode): number {
  return mode === "read-only" ? 2 : mode === "workspace-write" ? 1 : 0;
}

/**
 * How the sandbox stands for one `bash` call, as the tool declares it:
 * - `inside`: the call runs confined by a sandbox whose self-test held (`mode` says how much it may write);
 * - `escalate`: the call asks to run outside the sandbox (the model asked, or the sandbox denied something), `why`
 *   says so;
 * - `unavailable`: the user asked for a sandbox but no layer holds here; `why` names what is missing.
 * Absent: no sandbox applies (`danger-full-access`, or none was asked for and none is available).
 */
export type SandboxUse =
  | { state: "inside"; mode: SandboxMode }
  | { state: "escalate"; why: string }
  | { state: "unavailable"; why: string };
