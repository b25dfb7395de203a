// MCP servers in `scv exec` (issue 27 item 1): the one and only turn waits for the servers still starting, so its
// first request offers their tools and a cell can call them; a server whose name has a dot works under its
// sanitised name. Against the real @modelcontextprotocol/server-everything.
// deno-lint-ignore-file no-explicit-any -- reads untyped request bodies
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useCliHarness } from "../support/cli_harness.ts";
import { textResponse, toolCallResponse } from "../support/fake_provider.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const EVERYTHING = path.join(ROOT, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");

const harness = useCliHarness();

// A generous startup_timeout_sec: the turn waits for the server however busy the machine; the deadline only catches
// a hang.
const server = (key: string) =>
  `[mcp_servers.${key}]\ncommand = ${JSON.stringify(process.execPath)}\nargs = ${JSON.stringify([EVERYTHING])}\n` +
  "startup_timeout_sec = 120\n";

describe("scv exec with an MCP server", () => {
  it("offers the server's tools in its first request and a cell calls one", async () => {
    await harness.sandbox.writeUserConfig(server("everything"));
    const code = 'const r = await tools.mcp__everything__echo({ message: "from a cell" });\ntext(JSON.stringify(r));';
    harness.provider.push(
      toolCallResponse([{ call_id: "x1", name: "exec", arguments: { code } }]),
      textResponse(["done"]),
    );
    const result = await harness.start(["exec", "--json", "go"]).done;
    expect(result.code, result.stderr).toBe(0);
    const names = harness.provider.requests[0]!.body.tools.map((tool: any) => tool.name);
    expect(names).toContain("mcp__everything__echo");
    const exec = harness.provider.requests[0]!.body.tools.find((tool: any) => tool.name === "exec");
    expect(exec.description).toContain("declare function mcp__everything__echo(");
    const events = result.stdout.trim().split("\n").map((line) => JSON.parse(line));
    const done = events.find((event) => event.type === "tool.completed" && event.call_id === "x1");
    expect(done).toMatchObject({ success: true });
    expect(done.output).toContain("Echo: from a cell");
  });

  it("offers and calls the tools of a server named with a dot under their sanitised names", async () => {
    await harness.sandbox.writeUserConfig(server('"my.mock"'));
    harness.provider.push(
      toolCallResponse([{ call_id: "e1", name: "mcp__my_mock__echo", arguments: { message: "dotted" } }]),
      textResponse(["done"]),
    );
    const result = await harness.start(["exec", "--json", "go"]).done;
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const names = harness.provider.requests[0]!.body.tools.map((tool: any) => tool.name);
    expect(names).toContain("mcp__my_mock__echo");
    const events = result.stdout.trim().split("\n").map((line) => JSON.parse(line));
    expect(events.find((event) => event.type === "tool.completed" && event.call_id === "e1")).toMatchObject({
      success: true,
      output: "Echo: dotted",
    });
  });
});
