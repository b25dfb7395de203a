// A session's hooks (issue 30), at each moment they run: SessionStart (its context joins the system prompt),
// UserPromptSubmit (context joins the prompt; a block ends the turn unsent), PreToolUse (an opinion in the one
// approval gate: it cannot override a deny rule), PostToolUse (what it says joins the call's output), Stop (a block
// sends the model back to work) and SessionEnd. Every run becomes a `hook.completed` event.
import type { TrustLevel } from "../config/index.ts";
import { setTrust } from "../config/index.ts";
import { hookBlock, hookContext, type HookRun, HookRunner } from "../hooks/index.ts";
import type { Opinion } from "../policy/index.ts";
import { events, type HookInfo, type TurnScope } from "../protocol/index.ts";
import type { ToolCallRecord } from "../provider/index.ts";
import { type ProcessGroups, toolEnvironment, type ToolOutcome } from "../tools/index.ts";
import type { Logger } from "../util/log.ts";
import type { SessionParts } from "./session_start.ts";
import type { EventWriter } from "./writer.ts";

/** What a tool's output carries of the tool for a PostToolUse hook, at most. */
const MAX_TOOL_RESPONSE_CHARS = 65_536;

export type HookSessionOptions = {
  parts: SessionParts;
  writer: EventWriter;
  log: Logger;
  sessionId: string;
  /** The approval mode now (hooks get it as `permission_mode`). */
  mode(): string;
};

export class SessionHooks {
  readonly #runner: HookRunner;
  readonly #writer: EventWriter;
  readonly #log: Logger;
  readonly #sessionId: string;
  #trust: TrustLevel | undefined;
  /** SessionStart's context for the system prompt, once its hooks ended. */
  #context: Promise<string> = Promise.resolve("");

  constructor(options: HookSessionOptions) {
    const { parts } = options;
    this.#writer = options.writer;
    this.#log = options.log;
    this.#sessionId = options.sessionId;
    this.#trust = parts.workspaceTrust;
    const groups: ProcessGroups = parts.processGroups;
    this.#runner = new HookRunner({
      hooks: parts.config.hooks,
      trusted: parts.workspaceTrust === "trusted",
      cwd: parts.workingFolder,
      // The tool environment's rules: the variables scv reads keys from are not passed on.
      env: { ...toolEnvironment(parts.config), SCV_PROJECT_DIR: parts.workspace, CLAUDE_PROJECT_DIR: parts.workspace },
      common: () => ({ session_id: this.#sessionId, permission_mode: options.mode() }),
      track: (pgid) => groups.track(pgid),
      untrack: (pgid) => groups.untrack(pgid),
    });
  }

  /** Every configured hook with whether it runs, as `session.started` lists them. */
  get listed(): HookInfo[] {
    return this.#runner.listed;
  }

  /** What the user file says of the workspace. */
  get workspaceTrust(): TrustLevel | "unknown" {
    return this.#trust ?? "unknown";
  }

  /** SessionStart (`startup`, `resume`, `clear`): runs in the background; the next turn waits for its context. */
  start(source: "startup" | "resume" | "clear"): void {
    if (!this.#runner.has("SessionStart", source)) {
      this.#context = Promise.resolve("");
      return;
    }
    this.#context = this.#runner
      .run("SessionStart", { source }, { subject: source, report: (run) => this.#report(run) })
      .then((results) => {
        const context = hookContext(results);
        return context === undefined ? "" : `\n# Context from SessionStart hooks\n${context}\n`;
      })
      .catch((error: unknown) => {
        this.#log.warn(`SessionStart hooks: ${String(error)}`);
        return "";
      });
  }

  /** `session.clear`: SessionEnd (`clear`), then SessionStart (`clear`), in the background. */
  cleared(): void {
    this.#context = this.end("clear").then(() => {
      this.start("clear");
      return this.#context;
    });
  }

  /** The system prompt's part from SessionStart hooks ("" without any). */
  context(): Promise<string> {
    return this.#context;
  }

  /** UserPromptSubmit: a block's reason (the prompt is not sent), or the context that joins the prompt. */
  async promptSubmitted(
    scope: TurnScope,
    prompt: string,
    signal: AbortSignal,
  ): Promise<{ blocked: string } | { context?: string }> {
    if (!this.#runner.has("UserPromptSubmit")) return {};
    const results = await this.#runner.run("UserPromptSubmit", { prompt }, {
      signal,
      report: (run) => this.#report(run, scope, signal),
    });
    const block = hookBlock(results);
    if (block !== undefined) {
      return { blocked: `a UserPromptSubmit hook blocked the prompt: ${block.reason || block.command}` };
    }
    const context = hookContext(results);
    return context === undefined ? {} : { context };
  }

  /** PreToolUse: each hook's decision as an opinion for the approval gate. */
  async preToolUse(scope: TurnScope, call: ToolCallRecord, signal: AbortSignal): Promise<Opinion[]> {
    if (!this.#runner.has("PreToolUse", call.name)) return [];
    const results = await this.#runner.run(
      "PreToolUse",
      { tool_name: call.name, tool_input: call.arguments ?? {}, tool_use_id: call.call_id },
      { subject: call.name, callId: call.call_id, signal, report: (run) => this.#report(run, scope, signal) },
    );
    const opinions: Opinion[] = [];
    for (const { hook, verdict } of results) {
      const decision = verdict.decision;
      if (decision !== "allow" && decision !== "deny" && decision !== "ask") continue;
      const said = decision === "allow" ? "allows" : decision === "deny" ? "denies" : "asks about";
      opinions.push({
        verdict: decision,
        source: `PreToolUse hook ${hook.command}`,
        reason: verdict.reason ?? `the PreToolUse hook ${hook.command} ${said} it`,
      });
    }
    return opinions;
  }

  /** PostToolUse (after a call that succeeded): what the hooks said, for the model, or undefined. */
  async postToolUse(
    scope: TurnScope,
    call: ToolCallRecord,
    outcome: ToolOutcome,
    signal: AbortSignal,
  ): Promise<string | undefined> {
    if (!outcome.success || !this.#runner.has("PostToolUse", call.name)) return undefined;
    const response = {
      success: outcome.success,
      output: outcome.output.length > MAX_TOOL_RESPONSE_CHARS
        ? outcome.output.slice(0, MAX_TOOL_RESPONSE_CHARS)
        : outcome.output,
      truncated: outcome.truncated || outcome.output.length > MAX_TOOL_RESPONSE_CHARS,
    };
    const results = await this.#runner.run(
      "PostToolUse",
      { tool_name: call.name, tool_input: call.arguments ?? {}, tool_response: response, tool_use_id: call.call_id },
      { subject: call.name, callId: call.call_id, signal, report: (run) => this.#report(run, scope, signal) },
    );
    const notes = results.flatMap(({ hook, verdict }) => {
      const lines: string[] = [];
      if (verdict.decision === "block") lines.push(`PostToolUse hook ${hook.command}: ${verdict.reason ?? ""}`);
      if (verdict.context !== undefined) lines.push(verdict.context);
      return lines;
    });
    return notes.length === 0 ? undefined : `\n\n${notes.join("\n\n")}`;
  }

  /** Stop: a block's reason (the model goes on with it as the next message), or undefined. */
  async stop(scope: TurnScope, continued: boolean, signal: AbortSignal): Promise<string | undefined> {
    if (!this.#runner.has("Stop")) return undefined;
    const results = await this.#runner.run("Stop", { stop_hook_active: continued }, {
      signal,
      report: (run) => this.#report(run, scope, signal),
    });
    const block = hookBlock(results);
    return block === undefined ? undefined : `A Stop hook asks you to continue: ${block.reason}`;
  }

  /** SessionEnd (`clear`, `prompt_input_exit`): nothing to decide; waits for the hooks, bounded by their timeouts. */
  async end(reason: "clear" | "prompt_input_exit"): Promise<void> {
    if (!this.#runner.has("SessionEnd", reason)) return;
    await this.#runner.run("SessionEnd", { reason }, { subject: reason, report: (run) => this.#report(run) })
      .catch((error: unknown) => this.#log.warn(`SessionEnd hooks: ${String(error)}`));
  }

  /** `session.trust`: records the workspace's trust in the user file; its project hooks run from now on, or stop. */
  async trust(level: TrustLevel, userFile: string, workspace: string): Promise<void> {
    await setTrust(userFile, workspace, level);
    this.#trust = level;
    this.#runner.trusted = level === "trusted";
  }

  async #report(run: HookRun, scope?: TurnScope, signal?: AbortSignal): Promise<void> {
    const info = {
      event: run.event,
      command: run.command,
      origin: run.origin,
      ...(run.callId === undefined ? {} : { call_id: run.callId }),
      exit_code: run.exitCode,
      duration_ms: run.durationMs,
      timed_out: run.timedOut,
      ...(run.decision === undefined ? {} : { decision: run.decision }),
      ...(run.reason === undefined ? {} : { reason: run.reason }),
      ...(run.message === undefined ? {} : { message: run.message }),
      ...(run.contextChars === undefined ? {} : { context_chars: run.contextChars }),
    };
    if (run.message !== undefined) this.#log.warn(`${run.event} hook ${run.command}: ${run.message}`);
    try {
      if (scope === undefined || signal === undefined) {
        await this.#writer.control(events.hookCompleted(scope ?? { session_id: this.#sessionId }, info));
      } else {
        await this.#writer.turn(events.hookCompleted(scope, info), signal);
      }
    } catch (error) {
      this.#log.warn(`write hook.completed: ${String(error)}`);
    }
  }
}
