// Pure parts of the MCP tools (issue 18): tool names, declarations from JSON Schema, results as outcomes.
import { describe, expect, it } from "vitest";
import { mcpToolName, schemaType } from "../../../lib/tools/mcp/index.ts";
import { mcpOutcome } from "../../../lib/tools/mcp/result.ts";

describe("mcpToolName", () => {
  it("joins server and tool and replaces characters outside [A-Za-z0-9_-]", () => {
    expect(mcpToolName("fs", "read_file")).toBe("mcp__fs__read_file");
    expect(mcpToolName("my.server", "get sum/v2")).toBe("mcp__my_server__get_sum_v2");
    expect(mcpToolName("s", "ünïcode-ok")).toBe("mcp__s___n_code-ok");
  });

  it("cuts long names to 64 characters with a hash suffix that keeps them distinct", () => {
    const long = "t".repeat(80);
    const a = mcpToolName("server", `${long}a`);
    const b = mcpToolName("server", `${long}b`);
    expect(a).toHaveLength(64);
    expect(b).toHaveLength(64);
    expect(a).not.toBe(b);
    expect(a).toMatch(/^mcp__server__t+_[0-9a-f]{8}$/);
    // Two tools that sanitise alike but differ are told apart once cut.
    expect(mcpToolName("s", `${long}.x`)).not.toBe(mcpToolName("s", `${long}/x`));
    expect(mcpToolName("server", "t".repeat(51))).toHaveLength(64);
  });
});

describe("schemaType", () => {
  it("renders objects, optional fields, arrays, enums and unions", () => {
    const schema = {
      type: "object",
      properties: {
        path: { type: "string", description: "Where" },
        mode: { enum: ["a", "b"] },
        lines: { type: "array", items: { type: "integer" } },
        head: { type: ["number", "null"] },
        nested: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
      },
      required: ["path"],
    };
    expect(schemaType(schema, 0)).toBe(
      '{ path: string; /* Where */ mode?: "a" | "b"; lines?: number[]; head?: number | null; nested?: { ok: boolean; }; }',
    );
    expect(schemaType({ type: "object" }, 0)).toBe("Record<string, unknown>");
    expect(schemaType({ anyOf: [{ type: "string" }, { const: 3 }] }, 0)).toBe("string | 3");
  });
});

describe("mcpOutcome", () => {
  it("keeps text, names an image's type and size, and keeps structured content", () => {
    const outcome = mcpOutcome(
      {
        content: [
          { type: "text", text: "hello" },
          { type: "image", mimeType: "image/png", data: Buffer.alloc(10).toString("base64") },
        ],
        structuredContent: { n: 1 },
      },
      1000,
    );
    expect(outcome).toEqual({
      success: true,
      output: "hello\n[image: image/png, 10 bytes]",
      truncated: false,
      structured: { n: 1 },
    });
    expect(mcpOutcome({ content: [], structuredContent: { n: 2 } }, 1000).output).toBe('{"n":2}');
  });

  it("marks isError as failed and cuts output at the limit", () => {
    expect(mcpOutcome({ content: [{ type: "text", text: "bad" }], isError: true }, 1000)).toEqual({
      success: false,
      output: "bad",
      truncated: false,
      error: "failed",
    });
    const cut = mcpOutcome({ content: [{ type: "text", text: "x".repeat(50) }] }, 10);
    expect(cut).toMatchObject({ output: "x".repeat(10), truncated: true });
  });
});
