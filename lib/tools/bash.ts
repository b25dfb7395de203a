// The `bash` tool: one `/bin/bash -lc` command in the workspace, in its own process group,
// bounded by a timeout and an output limit; not sandboxed (spec §9).

import { cancelledOutcome, failure } from "./outcome.ts";
import { ProcessGroups, runProcessGroup, toolEnvironment, type ProcessTimings } from "./process_group.ts";
import { createProgressReporter } from "./progress.ts";
import type { ObjectSchema } from "./schema.ts";
import { timeoutSecondsProperty, validateArguments } from "./schema.ts";
import { completeUtf8Length } from "../util/text_bounds.ts";
import type { Tool, ToolContext, ToolOutcome } from "./types.ts";

type BashArgs = { command: string; timeout_seconds?: number };

export type BashSettings = {
  commandTimeoutSeconds: number;
  maxTimeoutSeconds: number;
  outputLimitBytes: number;
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
  const groups = settings.processGroups ?? new ProcessGroups();
  const parameters: ObjectSchema = {
    type: "object",
    properties: {
      command: { type: "string", description: "The command line, run with /bin/bash -lc in the workspace root" },
      timeout_seconds: timeoutSecondsProperty(defaultTimeout, settings.maxTimeoutSeconds, "the whole process group is killed"),
    },
    required: ["command"],
    additionalProperties: false,
  };
  return {
    name: "bash",
    description: "Run a Bash command in the workspace (not sandboxed)",
    parameters,
    prepare(args) {
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
      return {
        risk: "process",
        // Whole, never cut: what is approved is all shown (the server escapes invisible characters).
        summary: `Run with /bin/bash -lc: ${command}`,
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
      args: ["-lc", command],
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
      const output = JSON.stringify({
        exit_code: result.exitCode,
        timed_out: result.timedOut,
        output: decodeOutput(result.output, result.truncated),
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
