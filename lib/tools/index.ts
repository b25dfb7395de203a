// The tool registry: which tools a session sees (spec §9), sorted by name.

import type { EditTools, ResolvedConfig, WireApi } from "../config/index.ts";
import type { FunctionToolSchema } from "../provider/index.ts";
import { createApplyPatchTool } from "./apply_patch/index.ts";
import { createBashTool } from "./bash.ts";
import type { CommandSandbox } from "../confine/index.ts";
import { createEditTool } from "./edit.ts";
import { ProcessGroups } from "./process_group.ts";
import { createExecTool, EXEC_TOOL_NAME, type ExecSandbox } from "./exec/index.ts";
import type { McpManager } from "./mcp/index.ts";
import { createReadTool } from "./read.ts";
import { createGlobTool } from "./search/glob.ts";
import { createGrepTool } from "./search/grep.ts";
import { createListTool } from "./search/list.ts";
import { withRedaction } from "./redacted_tool.ts";
import { createRedactor } from "../util/redact.ts";
import { createReadSkillTool, type Skill } from "./skills/index.ts";
import type { Tool, ToolRegistry } from "./types.ts";
import { createWebTools } from "./web/index.ts";
import { createWriteTool } from "./write.ts";

export type {
  ApprovalAnswer,
  DeclaredAccess,
  Escalation,
  NestedCalls,
  PreparedCall,
  Risk,
  Tool,
  ToolContext,
  ToolErrorCode,
  ToolOutcome,
  ToolRegistry,
} from "./types.ts";
export { discoverSkills, skillsPromptSection } from "./skills/index.ts";
export { killEveryProcessGroup, ProcessGroups, toolEnvironment } from "./process_group.ts";
export { ExecSandbox, shutdownProcessSandbox } from "./exec/index.ts";
export { withRedaction } from "./redacted_tool.ts";
export { boundDiff } from "./text_diff.ts";
export { type CommandSandboxPlace, openCommandSandbox } from "./command_sandbox.ts";
export type { CommandSandbox } from "../confine/index.ts";
export { McpManager, type McpServerState, type McpStatus, mcpToolName } from "./mcp/index.ts";

export type RegistryOptions = {
  noTools: boolean;
  /** Discovered beforehand (discovery is asynchronous); `read_skill` serves them. */
  skills?: Skill[];
  /** The session's running process groups; its shutdown kills them (a registry of its own when absent). */
  processGroups?: ProcessGroups;
  /** The session's own exec sandbox (shut down with the session); without one, the process-wide sandbox. */
  execSandbox?: ExecSandbox;
  /** The session's MCP servers: their tools join the registry while they run (and exec's description lists them). */
  mcp?: McpManager;
  /** The session's command sandbox (`bash` runs inside it where it holds); without one, commands run as is. */
  commandSandbox?: CommandSandbox;
};

/**
 * The session's tools (spec §9): none for tool-free sessions; otherwise bash, exec when `tools.code_mode`, read,
 * grep, glob, list, edit and/or apply_patch (`provider.edit_tools`), read_skill, write, web_fetch when
 * `web.enabled`, and web_search for a usable searxng or brave backend.
 */
export function buildToolRegistry(config: ResolvedConfig, options: RegistryOptions): ToolRegistry {
  if (options.noTools) return createRegistry([]);
  const redact = createRedactor(config.secrets.values);
  const mcp = options.mcp;
  const builtin = [
    ...createFileAndShellTools(
      config,
      options.processGroups ?? new ProcessGroups(),
      options.execSandbox,
      options.commandSandbox,
    ),
    createReadSkillTool(options.skills ?? [], config),
    ...createWebTools(config),
  ].map((tool) => withRedaction(tool, redact));
  if (mcp === undefined || mcp.size === 0) return createRegistry(builtin);
  // The declarations wrap outside the redaction, whose copy of the description would freeze it.
  return createRegistry(
    builtin.map((tool) => (tool.name === EXEC_TOOL_NAME ? withMcpDeclarations(tool, mcp) : tool)),
    () => mcp.tools().map((tool) => withRedaction(tool, redact)),
  );
}

/** `exec` whose description ends with TypeScript declarations of the MCP tools running at the time. */
function withMcpDeclarations(exec: Tool, mcp: McpManager): Tool {
  return {
    name: exec.name,
    parameters: exec.parameters,
    prepare: (args, context) => exec.prepare(args, context),
    get description() {
      const declarations = mcp.declarations();
      return declarations === "" ? exec.description : `${exec.description}\n\n${declarations}`;
    },
  };
}

function createFileAndShellTools(
  config: ResolvedConfig,
  processGroups: ProcessGroups,
  execSandbox?: ExecSandbox,
  commandSandbox?: CommandSandbox,
): Tool[] {
  const limits = config.tools;
  const timeouts = {
    commandTimeoutSeconds: limits.command_timeout_seconds,
    maxTimeoutSeconds: limits.max_timeout_seconds,
    outputLimitBytes: limits.output_limit_bytes,
  };
  const editing = editToolNames(config.provider.edit_tools ?? "auto", config.provider.wire_api);
  const files = { maxWriteBytes: limits.max_write_bytes };
  return [
    createBashTool({
      ...timeouts,
      processGroups,
      loginShell: limits.login_shell,
      ...(commandSandbox === undefined ? {} : { sandbox: commandSandbox }),
    }),
    ...(limits.code_mode ? [createExecTool(timeouts, execSandbox)] : []),
    createReadTool({ maxReadBytes: limits.max_read_bytes }),
    createWriteTool(files),
    ...(editing.includes("edit") ? [createEditTool(files)] : []),
    ...(editing.includes("apply_patch") ? [createApplyPatchTool(files)] : []),
    createGrepTool(),
    createGlobTool(),
    createListTool(),
  ];
}

/** GPT models are trained on apply_patch: the Responses wire offers it by default; edit is offered everywhere. */
export function editToolNames(choice: EditTools, wire: WireApi): Array<"edit" | "apply_patch"> {
  switch (choice) {
    case "edit":
      return ["edit"];
    case "apply_patch":
      return ["apply_patch"];
    case "both":
      return ["apply_patch", "edit"];
    case "auto":
      return wire === "responses" ? ["apply_patch", "edit"] : ["edit"];
  }
}

/**
 * A registry over `tools`, sorted by name (code-unit order, as upstream sorts). `dynamic` adds tools that come and
 * go (MCP servers starting and exiting); a dynamic tool never shadows a fixed one.
 */
export function createRegistry(tools: Tool[], dynamic?: () => readonly Tool[]): ToolRegistry {
  const fixed = fixedRegistry(tools);
  if (dynamic === undefined) return fixed;
  const current = () => {
    const extra = dynamic().filter((tool) => fixed.get(tool.name) === undefined);
    return extra.length === 0 ? fixed : fixedRegistry([...tools, ...extra]);
  };
  return {
    list: () => current().list(),
    get: (name) => fixed.get(name) ?? dynamic().find((tool) => tool.name === name),
    schemas: () => current().schemas(),
  };
}

function fixedRegistry(tools: Tool[]): ToolRegistry {
  const sorted = [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const byName = new Map(sorted.map((tool) => [tool.name, tool]));
  if (byName.size !== sorted.length) {
    const repeated = sorted.filter((tool, index) => index > 0 && sorted[index - 1]!.name === tool.name).map((tool) =>
      tool.name
    );
    throw new Error(`Tool registry has duplicate tool names: ${[...new Set(repeated)].join(", ")}`);
  }
  return {
    list: () => [...sorted],
    get: (name) => byName.get(name),
    schemas: (): FunctionToolSchema[] =>
      sorted.map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.parameters })),
  };
}
