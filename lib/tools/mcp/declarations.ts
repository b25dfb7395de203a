// TypeScript-style declarations of MCP tools for the `exec` tool's description, generated from each tool's JSON
// Schema, so a model writes `await tools.mcp__s__t({...})` without guessing the arguments.
import type { McpTool } from "./tool.ts";

const MAX_DEPTH = 4;
const MAX_DECLARATION_CHARS = 2000;

export function mcpDeclarations(tools: readonly McpTool[]): string {
  if (tools.length === 0) return "";
  const lines = tools.map((tool) => {
    const doc = tool.description.replace(/\s+/g, " ").replace(/\*\//g, "* /").trim();
    const name = cellName(tool.name);
    const declaration = `declare function ${name}(args: ${schemaType(tool.inputSchema, 0)}): Promise<unknown>;`;
    const bounded = declaration.length > MAX_DECLARATION_CHARS
      ? `declare function ${name}(args: object): Promise<unknown>;`
      : declaration;
    return `/** ${doc} */\n${bounded}`;
  });
  return ["MCP tools, each `tools.<name>(args)` in a cell (`-` in a name becomes `_`):", "```ts", ...lines, "```"].join(
    "\n",
  );
}

/** The name a cell's `tools` object uses (the sandbox runtime makes every tool name an identifier). */
function cellName(name: string): string {
  return name.replace(/[^A-Za-z0-9_$]/g, "_").replace(/^[0-9]/, "_");
}

/** A JSON Schema as a TypeScript type: objects, arrays, enums, consts, unions, primitives; else `unknown`. */
export function schemaType(schema: unknown, depth: number): string {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return "unknown";
  const s = schema as Record<string, unknown>;
  if (depth > MAX_DEPTH) return "unknown";
  if (Array.isArray(s.enum)) return s.enum.map((value) => JSON.stringify(value)).join(" | ") || "never";
  if ("const" in s) return JSON.stringify(s.const);
  for (const key of ["anyOf", "oneOf"]) {
    const options = s[key];
    if (Array.isArray(options) && options.length > 0)
      return options.map((option) => schemaType(option, depth + 1)).join(" | ");
  }
  const type = s.type;
  if (Array.isArray(type)) return type.map((one) => schemaType({ ...s, type: one }, depth)).join(" | ");
  switch (type) {
    case "string":
      return "string";
    case "number":
    case "integer":
      return "number";
    case "boolean":
      return "boolean";
    case "null":
      return "null";
    case "array": {
      const item = schemaType(s.items, depth + 1);
      return item.includes(" ") ? `Array<${item}>` : `${item}[]`;
    }
    case "object":
    case undefined: {
      const properties = s.properties;
      if (typeof properties !== "object" || properties === null)
        return type === "object" ? "Record<string, unknown>" : "unknown";
      const required = new Set(Array.isArray(s.required) ? s.required : []);
      const fields = Object.entries(properties as Record<string, unknown>).map(([key, value]) => {
        const name = /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? key : JSON.stringify(key);
        const description = (value as { description?: unknown })?.description;
        const comment = typeof description === "string"
          ? ` /* ${description.replace(/\s+/g, " ").replace(/\*\//g, "* /").slice(0, 120)} */`
          : "";
        return `${name}${required.has(key) ? "" : "?"}: ${schemaType(value, depth + 1)};${comment}`;
      });
      return fields.length === 0 ? "{}" : `{ ${fields.join(" ")} }`;
    }
    default:
      return "unknown";
  }
}
