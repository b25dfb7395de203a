// The MCP SDK's client side in one module: loaded on a session's first MCP server only, and shipped by the
// bundle as its own part (scv-mcp.cjs), so scv's start-up never parses the SDK and its zod.
export { Client } from "@modelcontextprotocol/sdk/client/index.js";
export { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
export { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
