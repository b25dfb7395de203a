// What a hook's run means, with Claude Code's semantics: exit 0 continues (stdout may carry JSON: PreToolUse's
// `hookSpecificOutput.permissionDecision`, `decision: "block"` for UserPromptSubmit, PostToolUse and Stop,
// `additionalContext`; plain stdout of UserPromptSubmit and SessionStart is context); exit 2 blocks with stderr as
// the reason; any other exit, a timeout or a failed start is an error shown to the user, and the session goes on.
import type { HookEvent } from "../config/index.ts";
import type { HookProcessResult } from "./run_hook.ts";

/** Context and reasons a hook gives are cut to this many characters (Claude Code's cap). */
export const MAX_HOOK_TEXT_CHARS = 10_000;

export type HookDecision = "allow" | "deny" | "ask" | "block";

export type HookVerdict = {
  /** PreToolUse: allow, deny or ask; UserPromptSubmit, PostToolUse and Stop: block. */
  decision?: HookDecision;
  /** Why: to the model for PreToolUse deny, PostToolUse and Stop; to the user for a blocked prompt. */
  reason?: string;
  /** Text that joins the model's context (SessionStart, UserPromptSubmit, PreToolUse, PostToolUse). */
  context?: string;
  /** A message for the user: a failed hook's stderr, a timeout, the JSON's `systemMessage`. */
  message?: string;
};

const CONTEXT_EVENTS = new Set<HookEvent>(["SessionStart", "UserPromptSubmit"]);

export function hookVerdict(event: HookEvent, run: HookProcessResult, timeoutSec: number): HookVerdict {
  if (run.spawnError !== undefined) return { message: `the hook could not start: ${run.spawnError}` };
  if (run.timedOut) return { message: `the hook was stopped at its timeout (${timeoutSec} s)` };
  if (run.cancelled) return { message: "the hook was stopped: the turn was cancelled" };
  if (run.exitCode === 2) return blocked(event, bounded(run.stderr.trim()));
  if (run.exitCode !== 0) {
    const stderr = bounded(run.stderr.trim());
    return { message: stderr === "" ? `the hook failed (exit ${run.exitCode})` : stderr };
  }
  const json = jsonObject(run.stdout);
  if (json === undefined) {
    const text = bounded(run.stdout.trim());
    return CONTEXT_EVENTS.has(event) && text !== "" ? { context: text } : {};
  }
  return fromJson(event, json);
}

/** Exit 2: what blocking means for each event (nothing to block at a session's start or end). */
function blocked(event: HookEvent, stderr: string): HookVerdict {
  const reason = stderr === "" ? `a ${event} hook blocked it (exit 2)` : stderr;
  switch (event) {
    case "PreToolUse":
      return { decision: "deny", reason };
    case "UserPromptSubmit":
    case "PostToolUse":
    case "Stop":
      return { decision: "block", reason };
    case "SessionStart":
    case "SessionEnd":
      return { message: reason };
  }
}

function fromJson(event: HookEvent, json: Record<string, unknown>): HookVerdict {
  const verdict: HookVerdict = {};
  const specific = isObject(json.hookSpecificOutput) ? json.hookSpecificOutput : {};
  const text = (
    value: unknown,
  ) => (typeof value === "string" && value.trim() !== "" ? bounded(value.trim()) : undefined);
  const message = text(json.systemMessage);
  if (message !== undefined) verdict.message = message;
  const context = text(specific.additionalContext);
  if (context !== undefined && event !== "Stop" && event !== "SessionEnd") verdict.context = context;
  if (event === "PreToolUse") {
    const permission = specific.permissionDecision;
    // The older top-level form: `decision: "approve" | "block"` with `reason`.
    const legacy = json.decision === "approve" ? "allow" : json.decision === "block" ? "deny" : undefined;
    const decision = permission === "allow" || permission === "deny" || permission === "ask" ? permission : legacy;
    if (decision !== undefined) {
      verdict.decision = decision;
      const reason = text(specific.permissionDecisionReason) ?? text(json.reason);
      if (reason !== undefined) verdict.reason = reason;
    }
  } else if (json.decision === "block" && event !== "SessionStart" && event !== "SessionEnd") {
    verdict.decision = "block";
    verdict.reason = text(json.reason) ?? `a ${event} hook blocked it`;
  }
  return verdict;
}

function jsonObject(stdout: string): Record<string, unknown> | undefined {
  const trimmed = stdout.trim();
  if (!trimmed.startsWith("{")) return undefined;
  try {
    const value: unknown = JSON.parse(trimmed);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function bounded(text: string): string {
  const characters = Array.from(text);
  return characters.length > MAX_HOOK_TEXT_CHARS ? `${characters.slice(0, MAX_HOOK_TEXT_CHARS).join("")}…` : text;
}
