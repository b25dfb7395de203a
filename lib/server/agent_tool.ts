// The `agent` tool (issue 20, upstream's nested scv): hands a self-contained task to a sub-agent, an in-process
// session of the same engine with its own empty history, in a directory inside the workspace, and returns its
// final answer. Its calls go through the parent turn's approval gate, labelled with the sub-agent; its activity
// shows as progress of the `agent` call; the parent's cancellation cancels it.
import { realpath, stat } from "node:fs/promises";
import path from "node:path";
import { runTurn, type TurnSink } from "../agent/index.ts";
import type { ResolvedConfig } from "../config/index.ts";
import type { ProviderClient } from "../provider/index.ts";
import {
  buildToolRegistry,
  type CommandSandbox,
  createRegistry,
  type ExecSandbox,
  type PreparedCall,
  type ProcessGroups,
  type Risk,
  type Tool,
  type ToolContext,
  type ToolOutcome,
  withRedaction,
} from "../tools/index.ts";
import { createRedactor } from "../util/redact.ts";
import { isInside } from "../util/path.ts";
import { buildSystemPrompt } from "./system_prompt.ts";

/** Upstream's `agent.max_delegation_depth` default: a direct session may delegate, and its sub-agent once more. */
export const DEFAULT_MAX_DELEGATION_DEPTH = 2;
const RISK_ORDER: Risk[] = ["read_only", "filesystem", "network", "process"];

export type AgentToolOptions = {
  config: ResolvedConfig;
  /** The parent session's workspace (canonical). */
  workspace: string;
  /** The depth of the session that offers the tool (0 for a direct client). */
  depth: number;
  provider: () => ProviderClient;
  processGroups: ProcessGroups;
  /** The session's exec sandbox, shared so its shutdown also stops the sub-agents' cells. */
  execSandbox?: ExecSandbox;
  /** The project instructions' section for a sub-agent working in `folder` (the parent's AGENTS.md chain to it). */
  instructionsFor?(folder: string): Promise<string>;
  /** The parent session's command sandbox: a sub-agent's commands are confined the same way. */
  commandSandbox?: CommandSandbox;
};

let handles = 0;

/** Whether a session at `depth` offers `agent` under `config`. */
export function offersAgent(config: ResolvedConfig, depth: number): boolean {
  return depth < (config.agent.max_delegation_depth ?? DEFAULT_MAX_DELEGATION_DEPTH);
}

/** The tools a sub-agent at `depth` gets: the session's own, and `agent` again while the depth allows. */
export function subAgentTools(options: AgentToolOptions, depth: number): Tool[] {
  const tools = buildToolRegistry(options.config, {
    noTools: false,
    processGroups: options.processGroups,
    ...(options.execSandbox ? { execSandbox: options.execSandbox } : {}),
    ...(options.commandSandbox ? { commandSandbox: options.commandSandbox } : {}),
  }).list();
  if (offersAgent(options.config, depth)) tools.push(createAgentTool({ ...options, depth }));
  return tools;
}

export function createAgentTool(options: AgentToolOptions): Tool {
  const childDepth = options.depth + 1;
  const childTools = () => subAgentTools(options, childDepth);
  // The call may do whatever its most dangerous tool may: that is what approving it allows.
  const risk = maxRisk(childTools().map((tool) => toolRisk(tool.name)));
  // The reply may quote what the sub-agent read: known secret values are kept out of it like any tool output.
  return withRedaction(agentTool(options, childDepth, risk, childTools), createRedactor(options.config.secrets.values));
}

function agentTool(options: AgentToolOptions, childDepth: number, risk: Risk, childTools: () => Tool[]): Tool {
  return {
    name: "agent",
    description:
      "Hand a self-contained task to a sub-agent with its own fresh context (it cannot see this conversation), " +
      "optionally in a directory inside the workspace; returns its final answer.",
    parameters: {
      type: "object",
      properties: {
        prompt: { type: "string", description: "the complete task, with everything the sub-agent needs to know" },
        cwd: { type: "string", description: "a directory inside the workspace to run in (default: the workspace)" },
      },
      required: ["prompt"],
      additionalProperties: false,
    },
    prepare(args): PreparedCall | { error: string } {
      const fields = args as { prompt?: unknown; cwd?: unknown } | null;
      if (
        typeof fields !== "object" || fields === null || typeof fields.prompt !== "string" ||
        fields.prompt.trim() === ""
      ) {
        return { error: "invalid arguments: prompt must be a non-empty string" };
      }
      if (fields.cwd !== undefined && typeof fields.cwd !== "string")
        return { error: "invalid arguments: cwd must be a string" };
      const prompt = fields.prompt;
      const cwd = typeof fields.cwd === "string" && fields.cwd.trim() !== "" ? fields.cwd : undefined;
      return {
        risk,
        access: { effect: "delegate" },
        summary: `Delegate to a sub-agent (depth ${childDepth}, may ${describeRisk(risk)})${cwd ? ` in ${cwd}` : ""}: ${
          firstLine(prompt)
        }`,
        detail: prompt,
        run: (context) => runSubAgent(options, childDepth, prompt, cwd, context, childTools),
      };
    },
  };
}

async function runSubAgent(
  options: AgentToolOptions,
  depth: number,
  prompt: string,
  cwd: string | undefined,
  context: ToolContext,
  tools: () => Tool[],
): Promise<ToolOutcome> {
  const fail = (output: string): ToolOutcome => ({ success: false, output, truncated: false, error: "failed" });
  const directory = await resolveDirectory(options.workspace, cwd);
  if ("error" in directory) return fail(directory.error);
  const handle = `agent-${++handles}`;
  const label = `[${handle} depth ${depth}]`;
  const instructions = buildSystemPrompt({
    systemPrompt: options.config.agent.system_prompt,
    workspace: directory.path,
    instructionsSection: await options.instructionsFor?.(directory.path) ?? "",
  });
  let reply = "";
  const progress = (text: string) => context.progress(`${label} ${text}`);
  const sink: TurnSink = {
    delta: async () => {},
    assistantCompleted: async (text) => {
      if (text !== "") {
        reply = text;
        progress(firstLine(text));
      }
    },
    toolProposed: async () => {},
    approve: async (call, prepared, signal) => {
      if (!context.approve) return false;
      return context.approve(
        { call_id: `${handle}:${call.call_id}`, name: call.name, arguments: call.arguments },
        { ...prepared, summary: `${label} ${prepared.summary}` },
        signal ?? context.signal,
      );
    },
    toolStarted: async (call) => progress(`${call.name} …`),
    toolProgress: async () => {},
    toolCompleted: async (call, outcome) => progress(`${call.name} ${outcome.success ? "done" : "failed"}`),
    contextCompacted: async () => {},
    sessionTrimmed: async () => {},
  };
  const outcome = await runTurn({
    prompt,
    history: [],
    provider: options.provider(),
    tools: createRegistry(tools()),
    config: options.config,
    workspace: directory.path,
    instructions,
    signal: context.signal,
    sink,
    ...(context.fileWillChange ? { fileWillChange: context.fileWillChange } : {}),
    ...(context.hides === undefined ? {} : { hides: context.hides }),
  });
  // The sub-agent's requests are the parent turn's: its usage, cost and budget count them.
  context.spent?.(outcome.usage);
  if (outcome.kind === "cancelled") {
    return {
      success: false,
      output: JSON.stringify({ agent: "scv", status: "cancelled", reply }),
      truncated: false,
      error: "cancelled",
    };
  }
  if (outcome.kind === "failed") {
    return fail(
      JSON.stringify({ agent: "scv", status: "failed", reply, error: `${outcome.code}: ${outcome.message}` }),
    );
  }
  return {
    success: true,
    output: JSON.stringify({ agent: "scv", status: "completed", reply, usage: outcome.usage, steps: outcome.steps }),
    truncated: false,
  };
}

/** `cwd` (relative to the workspace, or absolute) as an existing directory that resolves inside the workspace. */
async function resolveDirectory(
  workspace: string,
  cwd: string | undefined,
): Promise<{ path: string } | { error: string }> {
  if (cwd === undefined) return { path: workspace };
  let real: string;
  try {
    real = await realpath(path.resolve(workspace, cwd));
  } catch {
    return { error: `agent cwd ${cwd}: no such directory; it must be a directory inside the workspace` };
  }
  if (!isInside(workspace, real))
    return { error: `agent cwd ${cwd}: resolves outside the workspace; path must remain within workspace` };
  if (!(await stat(real)).isDirectory()) return { error: `agent cwd ${cwd}: not a directory` };
  return { path: real };
}

/** The most a call of the named tool may do; a tool not known here counts as running processes. */
function toolRisk(name: string): Risk {
  if (["read", "read_skill", "glob", "grep", "list", "web_search"].includes(name)) return "read_only";
  if (["write", "edit", "apply_patch"].includes(name)) return "filesystem";
  if (name === "web_fetch") return "network";
  return "process";
}

function maxRisk(risks: Risk[]): Risk {
  return risks.reduce<Risk>(
    (worst, risk) => (RISK_ORDER.indexOf(risk) > RISK_ORDER.indexOf(worst) ? risk : worst),
    "read_only",
  );
}

function describeRisk(risk: Risk): string {
  switch (risk) {
    case "process":
      return "run commands, change files and read the workspace";
    case "network":
      return "fetch from the network and read the workspace";
    case "filesystem":
      return "change files and read the workspace";
    case "read_only":
      return "read the workspace";
  }
}

function firstLine(text: string): string {
  const line = text.trim().split("\n")[0] ?? "";
  return line.length > 120 ? `${line.slice(0, 120)}…` : line;
}
