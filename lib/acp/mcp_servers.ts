// The MCP servers an ACP client declares in session/new or session/load, as the engine's `[mcp_servers.<name>]`
// entries for that session only: stdio servers and streamable HTTP servers, which is what scv's MCP client speaks.
// SSE (the older MCP transport) is refused, as initialize does not offer it.
import { isAbsolute } from "node:path";
import { type McpServer, RequestError } from "@agentclientprotocol/sdk";
import { MCP_SERVER_DEFAULTS, type McpServerConfig } from "../config/index.ts";

/** What the engine's configuration accepts as a server name (it becomes part of the tools' names). */
const SERVER_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The session's servers by name; throws `-32602` naming the entry and what is wrong with it. */
export function sessionMcpServers(servers: readonly McpServer[]): Record<string, McpServerConfig> | undefined {
  if (servers.length === 0) return undefined;
  const result: Record<string, McpServerConfig> = {};
  for (const server of servers) {
    const name = serverName(server.name);
    const refuse = (reason: string) =>
      RequestError.invalidParams({ mcpServer: server.name }, `MCP server ${JSON.stringify(server.name)}: ${reason}`);
    if (Object.hasOwn(result, name)) throw refuse("another server of this session has the same name");
    if ("type" in server && server.type === "sse") {
      throw refuse("scv does not speak the SSE transport (mcpCapabilities.sse is false); use stdio or http");
    }
    if ("type" in server && server.type === "http") {
      let url: URL | undefined;
      try {
        url = new URL(server.url);
      } catch {
        url = undefined;
      }
      if (url === undefined || (url.protocol !== "http:" && url.protocol !== "https:"))
        throw refuse("url must be an http or https URL");
      result[name] = {
        ...MCP_SERVER_DEFAULTS,
        url: server.url,
        http_headers: Object.fromEntries(server.headers.map((header) => [header.name, header.value])),
      };
      continue;
    }
    const stdio = server as Extract<McpServer, { command: string }>;
    if (!isAbsolute(stdio.command)) throw refuse("command must be an absolute path");
    const env: Record<string, string> = {};
    for (const variable of stdio.env) {
      if (!ENV_NAME.test(variable.name))
        throw refuse(`${JSON.stringify(variable.name)} is not an environment variable name`);
      env[variable.name] = variable.value;
    }
    result[name] = { ...MCP_SERVER_DEFAULTS, command: stdio.command, args: [...stdio.args], env };
  }
  return result;
}

/** An editor's display name ("My files") as a server name the engine takes: other characters become `_`. */
function serverName(name: string): string {
  if (SERVER_NAME.test(name)) return name;
  const cleaned = name.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64);
  return cleaned === "" ? "mcp" : cleaned;
}
