// Tool names of MCP tools as scv and the model see them: `mcp__<server>__<tool>`, within the 64 characters and
// the `[A-Za-z0-9_-]` alphabet providers accept.
import { createHash } from "node:crypto";

export const MCP_TOOL_PREFIX = "mcp__";
const MAX_NAME_LENGTH = 64;
const HASH_LENGTH = 8;

/**
 * `mcp__<server>__<tool>` with every character outside `[A-Za-z0-9_-]` replaced by `_`; a longer name is cut and
 * ends in `_` plus 8 hex digits of the SHA-256 of the unsanitised pair, so two long names stay distinct.
 */
export function mcpToolName(server: string, tool: string): string {
  const name = `${MCP_TOOL_PREFIX}${server}__${tool}`.replace(/[^A-Za-z0-9_-]/g, "_");
  if (name.length <= MAX_NAME_LENGTH) return name;
  const hash = createHash("sha256").update(`${server}\0${tool}`).digest("hex").slice(0, HASH_LENGTH);
  return `${name.slice(0, MAX_NAME_LENGTH - HASH_LENGTH - 1)}_${hash}`;
}
