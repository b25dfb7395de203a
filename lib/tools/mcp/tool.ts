// An MCP tool as a scv tool: `mcp__<server>__<tool>`, the server's input schema and description, risk from
// `readOnlyHint`, and a run that maps the result (and a timeout or cancellation) to a tool outcome.
import { cutToBytes } from "../../util/text_bounds.ts";
import { failure } from "../outcome.ts";
import type { Risk, Tool } from "../types.ts";
import { mcpToolName } from "./names.ts";
import { type McpCallResult, mcpOutcome } from "./result.ts";
import { type McpServer, McpToolError, type McpToolInfo } from "./server.ts";

const MAX_SUMMARY_ARGUMENT_BYTES = 2048;

export type McpTool = Tool & { server: string; tool: string; inputSchema: Record<string, unknown> };

export function createMcpTool(server: McpServer, info: McpToolInfo): McpTool {
  const parameters = toolParameters(info.inputSchema);
  const readOnly = info.annotations?.readOnlyHint === true;
  // A local server acts with the user's rights; a remote one is reached over the network.
  const risk: Risk = readOnly ? "read_only" : server.config.url === undefined ? "process" : "network";
  const description = info.description ?? info.title ?? info.annotations?.title ?? "";
  return {
    name: mcpToolName(server.name, info.name),
    server: server.name,
    tool: info.name,
    inputSchema: parameters,
    description: `${description}${description === "" ? "" : " "}(MCP server ${server.name}, tool ${info.name})`.trim(),
    parameters,
    prepare(args) {
      const value = args ?? {};
      if (typeof value !== "object" || Array.isArray(value)) return { error: "invalid arguments: expected an object" };
      const record = value as Record<string, unknown>;
      const required = Array.isArray(parameters.required) ? (parameters.required as unknown[]) : [];
      const missing = required.filter((key) => typeof key === "string" && !Object.hasOwn(record, key));
      if (missing.length > 0) return { error: `invalid arguments: missing field \`${String(missing[0])}\`` };
      const shown = cutToBytes(JSON.stringify(record), MAX_SUMMARY_ARGUMENT_BYTES);
      return {
        risk,
        access: { effect: readOnly ? "read" : server.config.url === undefined ? "run" : "fetch", server: server.name },
        summary: `MCP server ${server.name}, tool ${info.name}${readOnly ? " (read-only)" : ""}: ${shown}`,
        async run(context) {
          try {
            const result = await server.call(info.name, record, {
              signal: context.signal,
              onProgress: context.progress,
            });
            return mcpOutcome(result as McpCallResult, context.config.tools.output_limit_bytes);
          } catch (error) {
            if (error instanceof McpToolError) return failure(error.message, error.code);
            return failure(error instanceof Error ? error.message : String(error));
          }
        },
      };
    },
  };
}

/** The server's schema as the model gets it: always an object schema, without a `$schema` the providers reject. */
function toolParameters(schema: Record<string, unknown> | undefined): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = schema ?? {};
  return { ...rest, type: "object", properties: isRecord(rest.properties) ? rest.properties : {} };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
