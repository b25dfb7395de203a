// MCP servers as scv tools (issue 18): the per-session manager, tool naming and the exec declarations.
export { McpManager, type McpManagerOptions } from "./manager.ts";
export { MCP_TOOL_PREFIX, mcpToolName } from "./names.ts";
export type { McpServerState, McpStatus } from "./server.ts";
export { schemaType } from "./declarations.ts";
