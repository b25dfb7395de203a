// `/mcp`: the session's MCP servers as their last `mcp.server_status` events left them.
import type { EventOf } from "../protocol/index.ts";

export type McpStatusEvent = EventOf<"mcp.server_status">;

export function mcpLines(statuses: ReadonlyMap<string, McpStatusEvent>): string[] {
  if (statuses.size === 0) return ["no MCP servers in this session ([mcp_servers.<name>] in the user config)"];
  const lines: string[] = [];
  for (const status of [...statuses.values()].sort((a, b) => (a.server < b.server ? -1 : 1))) {
    const count = status.tools.length;
    lines.push(`${status.server} (${status.transport}): ${status.state}${status.reason ? ` (${status.reason})` : ""}`);
    if (count > 0) lines.push(`  ${count} tool${count === 1 ? "" : "s"}: ${status.tools.join(", ")}`);
  }
  return lines;
}
