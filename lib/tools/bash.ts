// The `bash` tool: one `/bin/bash -c` command (`-lc` with `tools.login_shell`) in the workspace, in its own process
// group, bounded by a timeout and an output limit; not sandboxed (spec §9). A command on the read-only list
// (safe_command.ts) is `read_only` risk, so `on-risk` runs it without asking.

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
import { commandAccess, readOnlyVerdict } from "../policy/index.ts";
import type { ObjectSchema } from "./schema.ts";
import { timeoutSecondsProperty, validateArguments } from "./schema.ts";
import { completeUtf8Length } from "../util/text_bounds.ts";
import type { Tool, ToolContext, ToolOutcome } from "./types.ts";

type BashArgs = { command: string; timeout_seconds?: number };

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
  const parameters: ObjectSchema = {
    type: "object",
    properties: {
      command: { type: "string", description: `The command line, run with /bin/bash ${flag} in the workspace root` },
      timeout_seconds: timeoutSecondsProperty(
        defaultTimeout,
        settings.maxTimeoutSeconds,
        "the whole process group is killed",
      ),
    },
    required: ["command"],
    additionalProperties: false,
  };
  return {
    name: "bash",
    description:
      "Run a Bash command in the workspace (not sandboxed). Prefer read, grep, glob and list to look at files, and " +
      "edit or apply_patch to change them; use bash to build, test, run programs and use git. To search, use the " +
      "built-in grep and glob: they walk the whole workspace and skip secrets, while recursive or link-following " +
      "shell searches (grep -r, rg, find -L, ls -R) and git's path syntax (git show HEAD:file) need the user's " +
      "approval. A failing command's output keeps its beginning and its end.",
    parameters,
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
      const verdict = readOnlyVerdict(command, context.workspace, protectedRoots);
      const access = commandAccess(command, context.workspace, protectedRoots);
      return {
        risk: verdict.safe ? "read_only" : "process",
        access: { effect: "run", command: verdict.safe ? access : { ...access, notReadOnly: verdict.reason } },
        // Whole, never cut: what is approved is all shown (the server escapes invisible characters).
        summary: `Run with /bin/bash ${flag}: ${command}`,
        detail: command,
        run: (context) => runBash(command, timeoutSeconds, settings, groups, context),
      };
    },
  };
}

async function runBash(
  command: string,
  timeoutSeconds: number,
  settings: BashSettings,
  groups: ProcessGroups,
  context: ToolContext,
): Promise<ToolOutcome> {
  const shell = settings.shell ?? "/bin/bash";
  const progress = createProgressReporter(context.progress, settings.progressIntervalMs ?? PROGRESS_INTERVAL_MS);
  let result;
  try {
    result = await runProcessGroup({
      file: shell,
      args: [settings.loginShell === true ? "-lc" : "-c", command],
      cwd: context.workspace,
      env: toolEnvironment(context.config),
      timeoutMs: timeoutSeconds * 1000,
      outputLimitBytes: settings.outputLimitBytes,
      signal: context.signal,
      groups,
      onOutput: (chunk, stream) => progress.push(chunk, stream),
      ...(settings.timings === undefined ? {} : { timings: settings.timings }),
    });
  } finally {
    progress.stop();
  }
  switch (result.kind) {
    case "spawn_failed":
      return failure(`launch ${shell}: ${result.error.message}`, "unavailable");
    case "cancelled":
      return cancelledOutcome("process cancelled");
    case "finished": {
      const failed = result.timedOut || result.exitCode !== 0;
      const output = JSON.stringify({
        exit_code: result.exitCode,
        timed_out: result.timedOut,
        output: failed && result.truncated ? headAndTail(result) : decodeOutput(result.output, result.truncated),
        truncated: result.truncated,
      });
      if (result.timedOut) return failure(output, "limit", result.truncated);
      if (result.exitCode !== 0) return failure(output, "failed", result.truncated);
      return { success: true, output, truncated: result.truncated };
    }
  }
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
