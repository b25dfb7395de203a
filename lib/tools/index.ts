// The tool registry: which tools a session sees (spec §9), sorted by name.

import type { ResolvedConfig } from "../config/types.ts";
import type { FunctionToolSchema } from "../provider/types.ts";
import { createBashTool } from "./bash.ts";
import { createReadTool } from "./read.ts";
import type { Tool, ToolRegistry } from "./types.ts";
import { createWriteTool } from "./write.ts";

export type { PreparedCall, Risk, Tool, ToolContext, ToolErrorCode, ToolOutcome, ToolRegistry } from "./types.ts";
export { killAllProcessGroups } from "./process_group.ts";

export type RegistryOptions = { noTools: boolean };

/**
 * The session's tools. `workspace` is the canonical workspace; it is kept for the tools that
 * will need it at build time (skills discovery, issue 6).
 * Still to come with issue 6: `exec` (tools.code_mode), `read_skill`, `web_fetch` (web.enabled),
 * `web_search` (web.search searxng/brave).
 */
export function buildToolRegistry(config: ResolvedConfig, _workspace: string, options: RegistryOptions): ToolRegistry {
  const tools: Tool[] = options.noTools ? [] : createFileAndShellTools(config);
  return createRegistry(tools);
}

function createFileAndShellTools(config: ResolvedConfig): Tool[] {
  const limits = config.tools;
  return [
    createBashTool({
      commandTimeoutSeconds: limits.command_timeout_seconds,
      maxTimeoutSeconds: limits.max_timeout_seconds,
      outputLimitBytes: limits.output_limit_bytes,
    }),
    createReadTool({ maxReadBytes: limits.max_read_bytes }),
    createWriteTool({ maxWriteBytes: limits.max_write_bytes }),
  ];
}

/** A registry over `tools`, sorted by name (code-unit order, as upstream sorts). */
export function createRegistry(tools: Tool[]): ToolRegistry {
  const sorted = [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const byName = new Map(sorted.map((tool) => [tool.name, tool]));
  if (byName.size !== sorted.length) throw new Error("Tool registry has duplicate tool names");
  return {
    list: () => [...sorted],
    get: (name) => byName.get(name),
    schemas: (): FunctionToolSchema[] =>
      sorted.map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.parameters })),
  };
}
