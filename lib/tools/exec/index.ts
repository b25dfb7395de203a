// The `exec` tool (code mode, spec §9): JavaScript run as one cell of the session's process sandbox, whose
// `await tools.<name>(args)` calls go through the turn loop's own call path (gate, events) as nested calls.
import type { NestedToolCall, SandboxSession, ToolDefinition } from "../../sandbox/index.ts";
import { failure } from "../outcome.ts";
import type { ObjectSchema } from "../schema.ts";
import { timeoutSecondsProperty, validateArguments } from "../schema.ts";
import type { NestedCalls, Tool, ToolContext, ToolOutcome } from "../types.ts";
import { execOutput } from "./output.ts";
import { type ExecSandbox, processSandbox } from "./process_sandbox.ts";
import { runCell } from "./run_cell.ts";

export type { NestedCallRequest, NestedCalls } from "../types.ts";
export { ExecSandbox, shutdownProcessSandbox } from "./process_sandbox.ts";

export const EXEC_TOOL_NAME = "exec";

export type ExecSettings = {
  commandTimeoutSeconds: number;
  maxTimeoutSeconds: number;
  outputLimitBytes: number;
};

type ExecArgs = { code: string; timeout_seconds?: number };

const DESCRIPTION = [
  "Run JavaScript in a sandbox (an ES module with top-level await; no console, require, process, fetch or file access).",
  "Inside, `await tools.<name>(args)` calls this session's other tools (each approved by its own risk) and",
  "resolves to the tool's output parsed as JSON (else the text), or rejects with the output text on failure.",
  "`text(value)` adds a line to this tool's output; `notify(text)` reports progress; `exit()` ends the script.",
  "Use it to chain many tool calls or to compute over their results in one step.",
].join(" ");

/**
 * `owner` is the sandbox of the session the tool belongs to (shut down with that session); without
 * one, the process-wide sandbox is used.
 */
export function createExecTool(settings: ExecSettings, owner?: ExecSandbox): Tool {
  const defaultTimeout = Math.min(settings.commandTimeoutSeconds, settings.maxTimeoutSeconds);
  const parameters: ObjectSchema = {
    type: "object",
    properties: {
      code: { type: "string", description: "The JavaScript module source to run" },
      timeout_seconds: timeoutSecondsProperty(defaultTimeout, settings.maxTimeoutSeconds, "the script is terminated"),
    },
    required: ["code"],
    additionalProperties: false,
  };
  // One sandbox session per scv session (this tool is built once per session), opened on the first call.
  let session: Promise<SandboxSession> | undefined;
  const sandbox = () => (owner === undefined ? processSandbox() : owner.get());
  const openSession = () => (session ??= sandbox().then((opened) => opened.openSession()));
  return {
    name: EXEC_TOOL_NAME,
    description: DESCRIPTION,
    parameters,
    prepare(args) {
      const checked = validateArguments<ExecArgs>(parameters, args, {
        "timeout_seconds.minimum": "timeout_seconds must be positive",
        "timeout_seconds.maximum": `timeout_seconds must be at most ${settings.maxTimeoutSeconds}`,
      });
      if (!checked.ok) return { error: checked.error };
      const { code } = checked.value;
      const timeoutSeconds = checked.value.timeout_seconds ?? defaultTimeout;
      return {
        risk: "read_only",
        access: { effect: "run" },
        summary: `Run ${
          Buffer.byteLength(code)
        } bytes of JavaScript in the exec sandbox; nested tool calls are approved one by one`,
        run: (context) => runExec(code, timeoutSeconds, settings, context, openSession),
      };
    },
  };
}

async function runExec(
  code: string,
  timeoutSeconds: number,
  settings: ExecSettings,
  context: ToolContext,
  openSession: () => Promise<SandboxSession>,
): Promise<ToolOutcome> {
  let session: SandboxSession;
  try {
    session = await openSession();
  } catch (error) {
    return failure(`start the exec sandbox: ${error instanceof Error ? error.message : String(error)}`, "unavailable");
  }
  const nested = context.nested;
  const tools = (nested?.tools ?? []).filter((tool) => tool.name !== EXEC_TOOL_NAME).map(toDefinition);
  const calls = nestedCallQueue(nested);
  let result;
  try {
    result = await runCell({
      session,
      source: code,
      tools,
      timeoutSeconds,
      signal: context.signal,
      callbacks: {
        callTool: calls.call,
        notify: async (text) => context.progress(text),
      },
    });
  } finally {
    // Every nested call completes (its tool.completed written) before exec's own.
    await calls.settled();
  }
  const { text, truncated } = execOutput(result.items, result.end, settings.outputLimitBytes);
  switch (result.end.kind) {
    case "timed_out":
      return failure(text, "limit", truncated);
    case "cancelled":
      return failure(text, "cancelled", truncated);
    case "result":
      return result.end.errorText === null
        ? { success: true, output: text, truncated }
        : failure(text, "failed", truncated);
  }
}

/**
 * A cell's nested calls, run one at a time in the order the cell made them (like a response's calls).
 * Each resolves to the output parsed as JSON (else the text) and rejects with the output text on failure.
 */
function nestedCallQueue(nested: NestedCalls | undefined) {
  let chain: Promise<unknown> = Promise.resolve();
  const running = new Set<Promise<unknown>>();
  return {
    call(call: NestedToolCall, cellSignal: AbortSignal): Promise<unknown> {
      if (nested === undefined) return Promise.reject(`unknown tool: ${call.tool.name}`);
      // `cellSignal` is the cell's, shared by its calls: each tool run gets a signal of its own that
      // aborts only while it is unanswered.
      const own = new AbortController();
      const signal = own.signal;
      const abort = (): void => own.abort();
      if (cellSignal.aborted) own.abort();
      else cellSignal.addEventListener("abort", abort, { once: true });
      const outcome = chain.then(() => {
        // The cell stopped waiting before this call's turn came: it is never proposed.
        if (signal.aborted) return undefined;
        return nested.run({ suffix: call.runtimeToolCallId, name: call.tool.name, arguments: call.input }, signal);
      });
      const settled = outcome.then(
        () => cellSignal.removeEventListener("abort", abort),
        () => cellSignal.removeEventListener("abort", abort),
      );
      chain = settled;
      running.add(settled);
      void settled.then(() => running.delete(settled));
      return outcome.then((result) => {
        if (result === undefined) throw "tool call cancelled";
        if (!result.success) throw result.output;
        return result.structured !== undefined ? result.structured : parseOutput(result.output);
      });
    },
    async settled(): Promise<void> {
      await Promise.all([...running]);
    },
  };
}

function parseOutput(output: string): unknown {
  try {
    return JSON.parse(output) as unknown;
  } catch {
    return output;
  }
}

function toDefinition(tool: { name: string; description: string }): ToolDefinition {
  return {
    name: tool.name,
    tool_name: { name: tool.name, namespace: null },
    description: tool.description,
    kind: "function",
  };
}
