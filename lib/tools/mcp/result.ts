// An MCP `tools/call` result as a scv tool outcome: text becomes the output, images a placeholder naming their
// type and size (no provider here takes image items in tool results), `structuredContent` is kept, `isError` fails.
import { cutToBytes } from "../../util/text_bounds.ts";
import type { ToolOutcome } from "../types.ts";

type ContentItem = {
  type?: unknown;
  text?: unknown;
  data?: unknown;
  mimeType?: unknown;
  uri?: unknown;
  resource?: unknown;
  name?: unknown;
};

export type McpCallResult = { content?: unknown; structuredContent?: unknown; isError?: unknown; toolResult?: unknown };

export function mcpOutcome(result: McpCallResult, outputLimitBytes: number): ToolOutcome {
  const parts: string[] = [];
  const content = Array.isArray(result.content) ? (result.content as ContentItem[]) : [];
  for (const item of content) parts.push(describeItem(item));
  // Servers repeat structured content as text: it becomes the output only when there is no other content,
  // and is kept whole for exec cells (their nested call resolves to it).
  const hasStructured = result.structuredContent !== undefined && result.structuredContent !== null;
  if (hasStructured && parts.length === 0) parts.push(JSON.stringify(result.structuredContent));
  // Older servers answer with `toolResult` (protocol 2024-10-07).
  if (content.length === 0 && result.toolResult !== undefined) parts.push(JSON.stringify(result.toolResult));
  const text = parts.join("\n");
  const cut = cutToBytes(text, outputLimitBytes);
  const truncated = cut.length < text.length;
  if (result.isError === true) return { success: false, output: cut, truncated, error: "failed" };
  const structured = result.structuredContent;
  return {
    success: true,
    output: cut,
    truncated,
    ...(structured === undefined || structured === null ? {} : { structured }),
  };
}

function describeItem(item: ContentItem): string {
  switch (item.type) {
    case "text":
      return typeof item.text === "string" ? item.text : "";
    case "image":
    case "audio": {
      const bytes = typeof item.data === "string" ? base64Bytes(item.data) : 0;
      return `[${item.type}: ${typeof item.mimeType === "string" ? item.mimeType : "unknown type"}, ${bytes} bytes]`;
    }
    case "resource_link":
      return `[resource link: ${String(item.uri ?? "")}${typeof item.name === "string" ? ` (${item.name})` : ""}]`;
    case "resource": {
      const resource = (item.resource ?? {}) as { uri?: unknown; text?: unknown; blob?: unknown; mimeType?: unknown };
      if (typeof resource.text === "string") return resource.text;
      const bytes = typeof resource.blob === "string" ? base64Bytes(resource.blob) : 0;
      return `[resource: ${String(resource.uri ?? "")}, ${
        String(resource.mimeType ?? "unknown type")
      }, ${bytes} bytes]`;
    }
    default:
      return `[${String(item.type)} content]`;
  }
}

function base64Bytes(data: string): number {
  const clean = data.replace(/\s+/g, "");
  const padding = clean.endsWith("==") ? 2 : clean.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - padding);
}
