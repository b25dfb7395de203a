// What a hook's run means (issue 30), with Claude Code's semantics, event by event: exit 0 with JSON or plain
// stdout, exit 2 blocking with stderr as the reason, other exits, timeouts and failed starts as user-facing errors.
import { describe, expect, it } from "vitest";
import type { HookEvent } from "../../lib/config/index.ts";
import { type HookProcessResult, hookVerdict, MAX_HOOK_TEXT_CHARS } from "../../lib/hooks/index.ts";

const ran = (fields: Partial<HookProcessResult>): HookProcessResult => ({
  exitCode: 0,
  timedOut: false,
  cancelled: false,
  stdout: "",
  stderr: "",
  durationMs: 1,
  ...fields,
});

const verdict = (event: HookEvent, fields: Partial<HookProcessResult>) => hookVerdict(event, ran(fields), 30);
const json = (value: unknown) => ({ stdout: `${JSON.stringify(value)}\n` });

describe("hookVerdict", () => {
  it("reads PreToolUse's permissionDecision and its reason", () => {
    for (const decision of ["allow", "deny", "ask"] as const) {
      expect(verdict(
        "PreToolUse",
        json({
          hookSpecificOutput: {
            hookEventName: "PreToolUse",
            permissionDecision: decision,
            permissionDecisionReason: `because ${decision}`,
          },
        }),
      )).toEqual({ decision, reason: `because ${decision}` });
    }
  });

  it("reads the older decision approve / block of PreToolUse", () => {
    expect(verdict("PreToolUse", json({ decision: "block", reason: "no" }))).toEqual({
      decision: "deny",
      reason: "no",
    });
    expect(verdict("PreToolUse", json({ decision: "approve" }))).toEqual({ decision: "allow" });
  });

  it("blocks with exit 2 and stderr as the reason, per event", () => {
    const stderr = "rm -rf is not allowed here\n";
    expect(verdict("PreToolUse", { exitCode: 2, stderr })).toEqual({
      decision: "deny",
      reason: "rm -rf is not allowed here",
    });
    for (const event of ["UserPromptSubmit", "PostToolUse", "Stop"] as const) {
      expect(verdict(event, { exitCode: 2, stderr })).toEqual({
        decision: "block",
        reason: "rm -rf is not allowed here",
      });
    }
    // Nothing to block at a session's start or end: the user is told.
    expect(verdict("SessionStart", { exitCode: 2, stderr })).toEqual({ message: "rm -rf is not allowed here" });
  });

  it("reads decision block of UserPromptSubmit, PostToolUse and Stop, and additionalContext", () => {
    expect(verdict("Stop", json({ decision: "block", reason: "tests fail: fix them" }))).toEqual({
      decision: "block",
      reason: "tests fail: fix them",
    });
    expect(verdict("PostToolUse", json({ hookSpecificOutput: { additionalContext: "lint: 2 warnings" } }))).toEqual({
      context: "lint: 2 warnings",
    });
    expect(verdict("UserPromptSubmit", json({ decision: "block", reason: "no secrets in prompts" }))).toEqual({
      decision: "block",
      reason: "no secrets in prompts",
    });
  });

  it("takes plain stdout as context for UserPromptSubmit and SessionStart only", () => {
    expect(verdict("UserPromptSubmit", { stdout: "branch: main\n" })).toEqual({ context: "branch: main" });
    expect(verdict("SessionStart", { stdout: "today is Monday\n" })).toEqual({ context: "today is Monday" });
    expect(verdict("PreToolUse", { stdout: "just logging\n" })).toEqual({});
    expect(verdict("UserPromptSubmit", { stdout: "{not json\n" })).toEqual({ context: "{not json" });
  });

  it("makes other exits, timeouts and failed starts messages for the user, never decisions", () => {
    expect(verdict("PreToolUse", { exitCode: 1, stderr: "jq: not found\n" })).toEqual({ message: "jq: not found" });
    expect(verdict("PreToolUse", { exitCode: 7 })).toEqual({ message: "the hook failed (exit 7)" });
    expect(verdict("PreToolUse", { exitCode: null, timedOut: true })).toEqual({
      message: "the hook was stopped at its timeout (30 s)",
    });
    expect(verdict("Stop", { spawnError: "spawn /bin/sh ENOENT" })).toEqual({
      message: "the hook could not start: spawn /bin/sh ENOENT",
    });
  });

  it("bounds what a hook adds", () => {
    const long = "x".repeat(MAX_HOOK_TEXT_CHARS + 50);
    expect(verdict("SessionStart", { stdout: long }).context).toHaveLength(MAX_HOOK_TEXT_CHARS + 1);
  });
});
