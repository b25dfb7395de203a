// The hooks of a session (issue 30): which hooks an event runs (its matcher), each run with its JSON input, every
// run reported (event, command, exit code, duration, decision) and its verdict returned. A project's hooks are code
// from a checkout: they run only in a folder the user trusts, and are listed as skipped otherwise.
import type { HookConfig, HookEvent } from "../config/index.ts";
import { hookMatcher } from "../config/index.ts";
import { type HookDecision, type HookVerdict, hookVerdict } from "./hook_output.ts";
import { type HookProcessResult, runHookProcess } from "./run_hook.ts";

/** A hook as the session lists it: `skipped` is a project hook in a folder the user has not trusted. */
export type ListedHook = {
  event: HookEvent;
  matcher?: string;
  command: string;
  origin: HookConfig["origin"];
  timeout_sec: number;
  status: "active" | "skipped";
};

/** One run, as the `hook.completed` event reports it. */
export type HookRun = {
  event: HookEvent;
  command: string;
  origin: HookConfig["origin"];
  /** The tool call a PreToolUse or PostToolUse hook ran for. */
  callId?: string;
  exitCode: number | null;
  durationMs: number;
  timedOut: boolean;
  decision?: HookDecision;
  reason?: string;
  message?: string;
  /** Characters of context the hook added. */
  contextChars?: number;
};

export type HookResult = { hook: HookConfig; verdict: HookVerdict; run: HookRun };

export type HookRunnerOptions = {
  hooks: readonly HookConfig[];
  /** Whether the workspace is a trusted folder: only then do project hooks run. */
  trusted: boolean;
  /** The working folder: hooks run there, and it is their input's `cwd`. */
  cwd: string;
  /** The tool environment (no API keys), with `SCV_PROJECT_DIR` and `CLAUDE_PROJECT_DIR` added. */
  env: NodeJS.ProcessEnv;
  /** The fields every input carries besides `hook_event_name` and `cwd` (`session_id`, `permission_mode`, …). */
  common(): Record<string, unknown>;
  /** Every run, once it ended (the caller writes `hook.completed`). */
  onRun?(run: HookRun): Promise<void> | void;
  track?(pgid: number): void;
  untrack?(pgid: number): void;
  /** The shell (tests only). */
  shell?: string;
};

export class HookRunner {
  readonly #options: HookRunnerOptions;
  #trusted: boolean;

  constructor(options: HookRunnerOptions) {
    this.#options = options;
    this.#trusted = options.trusted;
  }

  get trusted(): boolean {
    return this.#trusted;
  }

  /** Trusting the folder mid-session lets its project hooks run from the next event on. */
  set trusted(trusted: boolean) {
    this.#trusted = trusted;
  }

  /** Every configured hook, with whether it runs. */
  get listed(): ListedHook[] {
    return this.#options.hooks.map((hook) => ({
      event: hook.event,
      ...(hook.matcher === undefined ? {} : { matcher: hook.matcher }),
      command: hook.command,
      origin: hook.origin,
      timeout_sec: hook.timeout_sec,
      status: this.#runs(hook) ? "active" : "skipped",
    }));
  }

  /** True when `event` would run at least one hook (for `subject`, when the event matches one). */
  has(event: HookEvent, subject?: string): boolean {
    return this.#matching(event, subject).length > 0;
  }

  /**
   * Runs the hooks of `event` that match `subject` (the tool name, a session's source or end reason), side by side;
   * resolves with each one's verdict once all have ended and been reported.
   */
  async run(
    event: HookEvent,
    fields: Record<string, unknown>,
    options: { subject?: string; callId?: string; signal?: AbortSignal; report?(run: HookRun): Promise<void> } = {},
  ): Promise<HookResult[]> {
    const hooks = this.#matching(event, options.subject);
    if (hooks.length === 0) return [];
    const input = `${
      JSON.stringify({ ...this.#options.common(), cwd: this.#options.cwd, hook_event_name: event, ...fields })
    }\n`;
    return Promise.all(hooks.map((hook) => this.#runOne(hook, input, options)));
  }

  async #runOne(
    hook: HookConfig,
    input: string,
    options: { callId?: string; signal?: AbortSignal; report?(run: HookRun): Promise<void> },
  ): Promise<HookResult> {
    const process: HookProcessResult = await runHookProcess({
      command: hook.command,
      cwd: this.#options.cwd,
      env: this.#options.env,
      input,
      timeoutMs: hook.timeout_sec * 1000,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...(this.#options.track === undefined ? {} : { track: this.#options.track }),
      ...(this.#options.untrack === undefined ? {} : { untrack: this.#options.untrack }),
      ...(this.#options.shell === undefined ? {} : { shell: this.#options.shell }),
    });
    const verdict = projectLimits(hook, hookVerdict(hook.event, process, hook.timeout_sec));
    const run: HookRun = {
      event: hook.event,
      command: hook.command,
      origin: hook.origin,
      ...(options.callId === undefined ? {} : { callId: options.callId }),
      exitCode: process.exitCode,
      durationMs: process.durationMs,
      timedOut: process.timedOut,
      ...(verdict.decision === undefined ? {} : { decision: verdict.decision }),
      ...(verdict.reason === undefined ? {} : { reason: verdict.reason }),
      ...(verdict.message === undefined ? {} : { message: verdict.message }),
      ...(verdict.context === undefined ? {} : { contextChars: verdict.context.length }),
    };
    await (options.report ?? this.#options.onRun)?.(run);
    return { hook, verdict, run };
  }

  #runs(hook: HookConfig): boolean {
    return hook.origin !== "project" || this.#trusted;
  }

  #matching(event: HookEvent, subject: string | undefined): HookConfig[] {
    return this.#options.hooks.filter((hook) => {
      if (hook.event !== event || !this.#runs(hook)) return false;
      if (subject === undefined) return true;
      return hookMatcher(hook.matcher)?.(subject) ?? false;
    });
  }
}

/** The hooks' additional context, in run order, or undefined when none gave any. */
export function hookContext(results: readonly HookResult[]): string | undefined {
  const texts = results.map((result) => result.verdict.context).filter((text): text is string => text !== undefined);
  return texts.length === 0 ? undefined : texts.join("\n\n");
}

/** The first `block` among the results, with its reason. */
export function hookBlock(results: readonly HookResult[]): { reason: string; command: string } | undefined {
  const found = results.find((result) => result.verdict.decision === "block" || result.verdict.decision === "deny");
  return found === undefined ? undefined : { reason: found.verdict.reason ?? "", command: found.hook.command };
}

/**
 * A project's hook may deny or ask, never allow: as the workspace file may add `ask` and `deny` rules only, code from
 * a checkout cannot wave a call past the user's questions (trusting the folder lets it run, not loosen the policy).
 */
function projectLimits(hook: HookConfig, verdict: HookVerdict): HookVerdict {
  if (hook.origin !== "project" || verdict.decision !== "allow") return verdict;
  const { decision: _allow, reason: _reason, ...rest } = verdict;
  return { ...rest, message: "a project hook cannot allow a call: the permission rules and the mode decide" };
}
