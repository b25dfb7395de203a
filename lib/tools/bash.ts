// The `bash` tool: one `/bin/bash -c` command (`-lc` with `tools.login_shell`) in the workspace, in its own process
// group, bounded by a timeout and an output limit, and inside the session's command sandbox when one holds
// (lib/confine). A command on the read-only list (safe_command.ts) is `read_only` risk, so `on-risk` runs it without
// asking. When the sandbox denied a failed command something, the result says what and offers the turn loop the same
// command outside the sandbox, which the approval gate asks about; `sandbox_permissions: "require_escalated"` asks
// for that up front.
import type { ChildProcess } from "node:child_process";
import { type CommandSandbox, type ConfinedLaunch, layoutIdentity } from "../confine/index.ts";
import { type StandbyLaunch, StandbyShell, waiterProgram } from "./standby_shell.ts";

import { cancelledOutcome, failure } from "./outcome.ts";
import {
  type CapturedOutput,
  ProcessGroups,
  type ProcessTimings,
  runProcessGroup,
  toolEnvironment,
} from "./process_group.ts";
import { scvOwnPaths } from "./file_guard.ts";
import { createProgressReporter } from "./progress.ts";
import { commandAccess, readOnlyVerdict, type SandboxUse } from "../policy/index.ts";
import type { ObjectSchema } from "./schema.ts";
import { timeoutSecondsProperty, validateArguments } from "./schema.ts";
import { completeUtf8Length } from "../util/text_bounds.ts";
import type { PreparedCall, Tool, ToolContext, ToolOutcome } from "./types.ts";

type BashArgs = {
  command: string;
  timeout_seconds?: number;
  sandbox_permissions?: "use_default" | "require_escalated";
  justification?: string;
};

export type BashSettings = {
  commandTimeoutSeconds: number;
  maxTimeoutSeconds: number;
  outputLimitBytes: number;
  /** `tools.login_shell`: run `bash -lc` (the user's profile files run on every call). */
  loginShell?: boolean;
  /** The shell to run; tests point it elsewhere to exercise `unavailable`. */
  shell?: string;
  timings?: ProcessTimings;
  /** The session's running process groups (its shutdown kills them); a tool of its own when absent. */
  processGroups?: ProcessGroups;
  /** Minimum interval between progress lines (spec: at most 2 per second). */
  progressIntervalMs?: number;
  /** The session's command sandbox; commands run unconfined without one. */
  sandbox?: CommandSandbox;
};

/** The longest command that is still shown whole for approval; a longer one is refused (issue 12). */
export const MAX_COMMAND_CHARS = 16384;
/** Just over 500 ms, so a caller that also enforces 2 per second never drops our latest line. */
const PROGRESS_INTERVAL_MS = 510;
const utf8 = new TextDecoder("utf-8");

export function createBashTool(settings: BashSettings): Tool {
  const defaultTimeout = Math.min(settings.commandTimeoutSeconds, settings.maxTimeoutSeconds);
  const flag = settings.loginShell === true ? "-lc" : "-c";
  const groups = settings.processGroups ?? new ProcessGroups();
  const standby = new StandbyShell(groups);
  const sandbox = settings.sandbox;
  // What the configuration asks for; whether a back end holds here is known only after the first `ready()`.
  const confined = sandbox !== undefined && sandbox.mode !== "danger-full-access";
  const parameters: ObjectSchema = {
    type: "object",
    properties: {
      command: { type: "string", description: `The command line, run with /bin/bash ${flag} in the workspace root` },
      timeout_seconds: timeoutSecondsProperty(
        defaultTimeout,
        settings.maxTimeoutSeconds,
        "the whole process group is killed",
      ),
      ...(confined
        ? {
          sandbox_permissions: {
            type: "string",
            enum: ["use_default", "require_escalated"],
            description: "require_escalated asks the user to run this command outside the sandbox",
          },
          justification: {
            type: "string",
            description: "With require_escalated: why the command needs to run outside the sandbox (the user sees it)",
          },
        }
        : {}),
    },
    required: ["command"],
    additionalProperties: false,
  };
  const where = confined
    ? `inside a sandbox where one holds (${sandboxSummary(sandbox!)}). If the sandbox denies something the user is ` +
      "asked whether " +
      'to run it again outside; to ask first, pass sandbox_permissions "require_escalated" with a justification'
    : "(not sandboxed)";
  const prepared = (
    command: string,
    timeoutSeconds: number,
    use: SandboxUse | undefined,
    workspace: string,
    protectedRoots: readonly string[],
  ) => {
    const escalated = use?.state === "escalate";
    const verdict = readOnlyVerdict(command, workspace, protectedRoots);
    const access = commandAccess(command, workspace, protectedRoots);
    const call: PreparedCall = {
      risk: verdict.safe && !escalated ? "read_only" : "process",
      access: {
        effect: "run",
        command: verdict.safe ? access : { ...access, notReadOnly: verdict.reason },
        ...(use === undefined ? {} : { sandbox: use }),
      },
      // Whole, never cut: what is approved is all shown (the server escapes invisible characters).
      summary: `Run ${escalated ? "outside the sandbox " : ""}with /bin/bash ${flag}: ${command}`,
      detail: command,
      run: (context) =>
        runBash(command, timeoutSeconds, settings, groups, standby, context, {
          sandbox: use?.state === "inside" ? sandbox : undefined,
          escalation: (why, args) => ({
            arguments: { ...args, command, timeout_seconds: timeoutSeconds },
            prepared: prepared(command, timeoutSeconds, { state: "escalate", why }, workspace, protectedRoots),
          }),
        }),
    };
    return call;
  };
  return {
    name: "bash",
    description:
      `Run a Bash command in the workspace ${where}. Prefer read, grep, glob and list to look at files, and ` +
      "edit or apply_patch to change them; use bash to build, test, run programs and use git. To search, use the " +
      "built-in grep and glob: they walk the whole workspace and skip secrets, while recursive or link-following " +
      "shell searches (grep -r, rg, find -L, ls -R) and git's path syntax (git show HEAD:file) need the user's " +
      "approval. A failing command's output keeps its beginning and its end.",
    parameters,
    ...(sandbox === undefined ? {} : { ready: () => sandbox.ready() }),
    prepare(args, context) {
      const checked = validateArguments<BashArgs>(parameters, args, {
        "timeout_seconds.minimum": "timeout_seconds must be positive",
        "timeout_seconds.maximum": `timeout_seconds must be at most ${settings.maxTimeoutSeconds}`,
      });
      if (!checked.ok) return { error: checked.error };
      const { command } = checked.value;
      if (command.trim().length === 0) return { error: "command or prompt must be non-empty" };
      const chars = codePoints(command);
      if (chars > MAX_COMMAND_CHARS) {
        return {
          error:
            `command is ${chars} characters, longer than the ${MAX_COMMAND_CHARS} that can be shown for approval; ` +
            "write the script to a file and run that instead",
        };
      }
      const timeoutSeconds = checked.value.timeout_seconds ?? defaultTimeout;
      const protectedRoots = scvOwnPaths(context.config);
      const use = sandbox?.use();
      if (checked.value.sandbox_permissions === "require_escalated" && use?.state === "inside") {
        const justification = checked.value.justification?.trim() ?? "";
        if (justification === "") {
          return { error: "invalid arguments: require_escalated needs a justification the user can read" };
        }
        const why = `the model asks: ${justification}`;
        return prepared(command, timeoutSeconds, { state: "escalate", why }, context.workspace, protectedRoots);
      }
      return prepared(command, timeoutSeconds, use, context.workspace, protectedRoots);
    },
  };
}

/** What the sandbox allows, in a few words for the model. */
function sandboxSummary(sandbox: CommandSandbox): string {
  const writes = sandbox.mode === "read-only"
    ? "it writes nothing but its private /tmp"
    : "it writes only the workspace (and configured folders) and its private /tmp; .git stays read-only";
  return `${writes}; secrets are hidden; ${sandbox.settings.network ? "the network is open" : "there is no network"}`;
}

type Confinement = {
  /** Run inside this sandbox (undefined: as is). */
  sandbox: CommandSandbox | undefined;
  /** The same call outside the sandbox: what the escalation offers, with the arguments it is declared under. */
  escalation(why: string, args: Record<string, unknown>): { arguments: unknown; prepared: PreparedCall };
};

async function runBash(
  command: string,
  timeoutSeconds: number,
  settings: BashSettings,
  groups: ProcessGroups,
  standby: StandbyShell,
  context: ToolContext,
  confinement: Confinement,
): Promise<ToolOutcome> {
  const shell = settings.shell ?? "/bin/bash";
  const flag = settings.loginShell === true ? "-lc" : "-c";
  const shellArgs = [flag, command];
  const { sandbox } = confinement;
  // Planned only to compare with a standby that waits: without one, the launch below is the only plan.
  const waiting = sandbox === undefined || context.signal.aborted || !standby.waiting
    ? undefined
    : standbyFor(sandbox, shell, flag, context);
  const handover = waiting === undefined ? undefined : standby.take(waiting.launch, waiting.identity, command);
  let launch: ConfinedLaunch | undefined = handover !== undefined ? waiting!.confined : sandbox?.launch({
    file: shell,
    args: shellArgs,
    ownSession: true,
  });
  const progress = createProgressReporter(context.progress, settings.progressIntervalMs ?? PROGRESS_INTERVAL_MS);
  const run = (running: ChildProcess | undefined) =>
    runProcessGroup({
      file: launch?.file ?? shell,
      args: launch?.args ?? shellArgs,
      cwd: context.workspace,
      env: { ...toolEnvironment(context.config), ...launch?.env },
      timeoutMs: timeoutSeconds * 1000,
      outputLimitBytes: settings.outputLimitBytes,
      signal: context.signal,
      groups,
      onOutput: (chunk, stream) => progress.push(chunk, stream),
      ...(settings.timings === undefined ? {} : { timings: settings.timings }),
      ...(running === undefined ? {} : { running }),
    });
  let result;
  try {
    handover?.begin();
    result = await run(handover?.child);
    if (handover !== undefined && result.kind === "finished" && !result.timedOut && !await handover.acknowledged) {
      // The standby had died while waiting and ran nothing: the command gets a sandbox set up now.
      launch = sandbox!.launch({ file: shell, args: shellArgs, ownSession: true });
      result = await run(undefined);
    }
  } finally {
    progress.stop();
    // The next command's sandbox is set up while the model reads this one's output (after this outcome is on its
    // way), planned again, since this command may have changed what is hidden.
    if (sandbox !== undefined && !context.signal.aborted) {
      setTimeout(() => {
        try {
          const next = standbyFor(sandbox, shell, flag, context);
          if (next !== undefined) standby.prepare(next.launch, next.identity);
        } catch {
          // Only speed depends on it: the next command plans its sandbox itself and reports what fails.
        }
      }, 0);
    }
  }
  switch (result.kind) {
    case "spawn_failed":
      return failure(`launch ${shell}: ${result.error.message}`, "unavailable");
    case "cancelled":
      return cancelledOutcome("process cancelled");
    case "finished": {
      const failed = result.timedOut || result.exitCode !== 0;
      const text = failed && result.truncated ? headAndTail(result) : decodeOutput(result.output, result.truncated);
      const fields: Record<string, unknown> = {
        exit_code: result.exitCode,
        timed_out: result.timedOut,
        output: text,
        truncated: result.truncated,
      };
      if (result.timedOut) return failure(JSON.stringify(fields), "limit", result.truncated);
      if (result.exitCode === 0) return { success: true, output: JSON.stringify(fields), truncated: result.truncated };
      const denied = launch === undefined ? [] : confinement.sandbox!.denials(text, launch);
      if (denied.length === 0) return failure(JSON.stringify(fields), "failed", result.truncated);
      fields.sandbox_denied = denied;
      const why = `the sandbox denied ${denied.join(", ")}`;
      return {
        ...failure(JSON.stringify(fields), "failed", result.truncated),
        escalation: {
          ...confinement.escalation(why, { sandbox_permissions: "require_escalated", justification: why }),
          declined: (reason) =>
            failure(JSON.stringify({ ...fields, outside_sandbox: `not run: ${reason}` }), "failed", result.truncated),
        },
      };
    }
  }
}

/** The sandboxed waiter a standby runs for the session's shell now, and the identity of the layout it mounts. */
function standbyFor(
  sandbox: CommandSandbox,
  shell: string,
  flag: string,
  context: ToolContext,
): { confined: ConfinedLaunch; launch: StandbyLaunch; identity: string } | undefined {
  const confined = sandbox.launch({ ...waiterProgram(shell, flag), ownSession: true });
  if (confined === undefined) return undefined;
  return {
    confined,
    launch: {
      file: confined.file,
      args: confined.args,
      cwd: context.workspace,
      env: { ...toolEnvironment(context.config), ...confined.env },
    },
    identity: layoutIdentity(confined.layout),
  };
}

function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

/** Lossy UTF-8; a character cut by the byte limit is dropped rather than mangled. */
function decodeOutput(bytes: Buffer, truncated: boolean): string {
  return utf8.decode(truncated ? bytes.subarray(0, completeUtf8Length(bytes)) : bytes);
}

/**
 * A failing command's output cut in the middle: its first and last `limit / 2` bytes with a marker between, since
 * the error is usually at the end.
 */
function headAndTail(result: CapturedOutput): string {
  const half = result.tail.length;
  const head = result.output.subarray(0, Math.min(result.output.length, half));
  const headText = utf8.decode(head.subarray(0, completeUtf8Length(head)));
  // Skip continuation bytes at the tail's start: it may begin mid-character.
  let start = 0;
  while (start < result.tail.length && start < 3 && (result.tail[start]! & 0xc0) === 0x80) start += 1;
  const tailText = utf8.decode(result.tail.subarray(start));
  const omitted = result.totalBytes - head.length - (result.tail.length - start);
  return `${headText}\n… [${omitted} bytes of output omitted] …\n${tailText}`;
}
