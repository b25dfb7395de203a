// The tool registry: which tools a session sees (spec §9), sorted by name.

import type { ResolvedConfig } from "../config/index.ts";
import type { FunctionToolSchema } from "../provider/index.ts";
import { createBashTool } from "./bash.ts";
import { ProcessGroups } from "./process_group.ts";
import { createExecTool, type ExecSandbox } from "./exec/index.ts";
import { createReadTool } from "./read.ts";
import { withRedaction } from "./redacted_tool.ts";
import { createRedactor } from "../util/redact.ts";
import { createReadSkillTool, type Skill } from "./skills/index.ts";
import type { Tool, ToolRegistry } from "./types.ts";
import { createWebTools } from "./web/index.ts";
import { createWriteTool } from "./write.ts";

export type {
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
export { killEveryProcessGroup, ProcessGroups } from "./process_group.ts";
export { ExecSandbox, shutdownProcessSandbox } from "./exec/index.ts";
export { isSecretLikePath } from "./secret_paths.ts";
export { withRedaction } from "./redacted_tool.ts";

export type RegistryOptions = {
  noTools: boolean;
  /** Discovered beforehand (discovery is asynchronous); `read_skill` serves them. */
  skills?: Skill[];
  /** The session's running process groups; its shutdown kills them (a registry of its own when absent). */
  processGroups?: ProcessGroups;
  /** The session's own exec sandbox (shut down with the session); without one, the process-wide sandbox. */
  execSandbox?: ExecSandbox;
};

/**
 * The session's tools (spec §9): none for tool-free sessions; otherwise bash, exec when `tools.code_mode`, read,
 * read_skill, write, web_fetch when `web.enabled`, and web_search for a usable searxng or brave backend.
 */
export function buildToolRegistry(config: ResolvedConfig, options: RegistryOptions): ToolRegistry {
  if (options.noTools) return createRegistry([]);
  const redact = createRedactor(config.secrets.values);
  return createRegistry(
    [
      ...createFileAndShellTools(config, options.processGroups ?? new ProcessGroups(), options.execSandbox),
      createReadSkillTool(options.skills ?? [], config),
      ...createWebTools(config),
    ].map((tool) => withRedaction(tool, redact)),
  );
}

function createFileAndShellTools(config: ResolvedConfig, processGroups: ProcessGroups, execSandbox?: ExecSandbox): Tool[] {
  const limits = config.tools;
  const timeouts = {
    commandTimeoutSeconds: limits.command_timeout_seconds,
    maxTimeoutSeconds: limits.max_timeout_seconds,
    outputLimitBytes: limits.output_limit_bytes,
  };
  return [
    createBashTool({ ...timeouts, processGroups }),
    ...(limits.code_mode ? [createExecTool(timeouts, execSandbox)] : []),
    createReadTool({ maxReadBytes: limits.max_read_bytes }),
    createWriteTool({ maxWriteBytes: limits.max_write_bytes }),
  ];
}

/** A registry over `tools`, sorted by name (code-unit order, as upstream sorts). */
export function createRegistry(tools: Tool[]): ToolRegistry {
  const sorted = [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const byName = new Map(sorted.map((tool) => [tool.name, tool]));
  if (byName.size !== sorted.length) {
    const repeated = sorted.filter((tool, index) => index > 0 && sorted[index - 1]!.name === tool.name).map((tool) => tool.name);
    throw new Error(`Tool registry has duplicate tool names: ${[...new Set(repeated)].join(", ")}`);
  }
  return {
    list: () => [...sorted],
    get: (name) => byName.get(name),
    schemas: (): FunctionToolSchema[] =>
      sorted.map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.parameters })),
  };
}
