// The `agent` tool (issue 20): a sub-agent with its own context in a directory of the workspace, through
// `node main.ts server --stdio` against the fake provider, which sees the sub-agent's own request stream.
// deno-lint-ignore-file no-explicit-any -- reads untyped wire JSON (request bodies, JSON-RPC messages)
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { textResponse, toolCallResponse } from "../support/fake_provider.ts";
import { resolveApproval, terminal, useServerHarness } from "../support/server_harness.ts";

const harness = useServerHarness();
const toolNames = (body: any): string[] => (body.tools ?? []).map((tool: any) => tool.name);

describe("agent tool", () => {
  it("runs a sub-agent in cwd with its own context, its approvals labelled through the parent, and returns its answer", async () => {
    await mkdir(path.join(harness.sandbox.workspace, "sub"));
    await writeFile(path.join(harness.sandbox.workspace, "sub", "a.txt"), "a");
    const client = await harness.startServer([
      toolCallResponse([{
        call_id: "call_a",
        name: "agent",
        arguments: { prompt: "How many files are here?", cwd: "sub" },
      }]),
      toolCallResponse([{ call_id: "call_b", name: "bash", arguments: { command: "touch counted.txt" } }]),
      textResponse(["One file."]),
      textResponse(["The sub-agent counted one file."]),
    ]);
    client.turn("delegate the count");
    const outer = await client.next("approval.requested");
    expect(outer).toMatchObject({ call_id: "call_a", name: "agent", risk: "process" });
    expect(outer.summary).toBe(
      "Delegate to a sub-agent (depth 1, may run commands, change files and read the workspace) in sub: How many files are here?",
    );
    resolveApproval(client, outer.approval_id, true);
    const inner = await client.next("approval.requested");
    expect(inner).toMatchObject({ call_id: "agent-1:call_b", name: "bash", risk: "process" });
    expect(inner.summary.startsWith("[agent-1 depth 1] ")).toBe(true);
    resolveApproval(client, inner.approval_id, true);
    expect(await terminal(client, 10_000)).toMatchObject({ type: "turn.completed" });
    await client.finish();

    const [parent, child1, child2, parent2] = harness.provider.requests;
    const sub = path.join(harness.sandbox.workspace, "sub");
    expect(parent!.body.instructions).toContain(`Current working directory: ${harness.sandbox.workspace}\n`);
    expect(toolNames(parent!.body)).toContain("agent");
    // The sub-agent's own stream: its instructions name its directory, its history starts with the task alone.
    expect(child1!.body.instructions).toContain(`Current working directory: ${sub}\n`);
    expect(child1!.body.input).toEqual([{ role: "user", content: "How many files are here?" }]);
    expect(child2!.body.input[1]).toMatchObject({ type: "function_call", name: "bash" });
    expect(JSON.stringify(child2!.body.input)).not.toContain("delegate the count");
    const output = parent2!.body.input.find((item: any) =>
      item.type === "function_call_output" && item.call_id === "call_a"
    );
    expect(JSON.parse(output.output)).toMatchObject({ agent: "scv", status: "completed", reply: "One file." });
    // Default max_delegation_depth 2: the depth-1 sub-agent may delegate once more.
    expect(toolNames(child1!.body)).toContain("agent");
    const completed = client.events.find((event) => event.type === "tool.completed" && event.call_id === "call_a");
    expect(completed).toMatchObject({ success: true });
    const progress = client.events.filter((event) => event.type === "tool.progress" && event.call_id === "call_a");
    expect(progress.length).toBeGreaterThan(0);
    for (const event of progress) expect(event.text).toMatch(/^\[agent-1 depth 1\] /);
    // The sub-agent's own calls are not the parent's tool events.
    expect(client.events.some((event) => event.type === "tool.proposed" && event.name === "bash")).toBe(false);
  });

  it("bounds nesting by delegation_depth and [agent] max_delegation_depth", async () => {
    const atLimit = await harness.startServer([textResponse(["ok"])], { start: { delegation_depth: 2 } });
    atLimit.turn("hi");
    await terminal(atLimit);
    await atLimit.finish();
    expect(toolNames(harness.provider.requests[0]!.body)).not.toContain("agent");

    const configured = await harness.startServer(
      [
        toolCallResponse([{ call_id: "c1", name: "agent", arguments: { prompt: "say ok" } }]),
        textResponse(["ok"]),
        textResponse(["done"]),
      ],
      { toml: "[agent]\nmax_delegation_depth = 1\n", extraArgs: ["--approval-policy", "on-risk"] },
    );
    configured.turn("go");
    resolveApproval(configured, (await configured.next("approval.requested")).approval_id, true);
    expect(await terminal(configured, 10_000)).toMatchObject({ type: "turn.completed" });
    await configured.finish();
    const [parent, child] = harness.provider.requests;
    expect(toolNames(parent!.body)).toContain("agent");
    expect(toolNames(child!.body)).not.toContain("agent");
  });

  it("refuses a cwd outside the workspace without starting a sub-agent", async () => {
    const client = await harness.startServer([
      toolCallResponse([{ call_id: "c1", name: "agent", arguments: { prompt: "look", cwd: ".." } }]),
      textResponse(["gave up"]),
    ]);
    client.turn("go");
    resolveApproval(client, (await client.next("approval.requested")).approval_id, true);
    expect(await terminal(client, 10_000)).toMatchObject({ type: "turn.completed" });
    await client.finish();
    const completed = client.events.find((event) => event.type === "tool.completed")!;
    expect(completed).toMatchObject({
      success: false,
      output: "agent cwd ..: resolves outside the workspace; path must remain within workspace",
    });
    expect(harness.provider.requests).toHaveLength(2);
  });

  it("cancelling the parent turn cancels the sub-agent's request", async () => {
    const client = await harness.startServer([
      toolCallResponse([{ call_id: "c1", name: "agent", arguments: { prompt: "take your time" } }]),
      { events: [], headerDelayMs: 60_000 },
    ]);
    client.turn("go", "t1");
    const started = await client.next("turn.started");
    resolveApproval(client, (await client.next("approval.requested")).approval_id, true);
    await harness.provider.waitForRequests(2, 5000);
    client.send({ type: "turn.cancel", request_id: "c", session_id: client.sessionId, turn_id: started.turn_id });
    expect(await terminal(client, 5000)).toMatchObject({ type: "turn.cancelled" });
    await client.finish();
    expect(harness.provider.requests).toHaveLength(2);
  });
});

describe("agent tool configuration", () => {
  it("a project file may lower [agent] max_delegation_depth but never raise it", async () => {
    await harness.sandbox.writeProjectConfig("[agent]\nmax_delegation_depth = 3\n");
    await harness.startProvider([]);
    const { spawnServer } = await import("../support/server_client.ts");
    const client = spawnServer({ args: harness.flags(harness.provider.url), env: harness.env() });
    await client.initialize();
    client.send({ type: "session.start", request_id: "s", cwd: harness.sandbox.workspace });
    expect(await client.next(["session.started", "error"])).toMatchObject({
      type: "error",
      message: expect.stringContaining("project configuration cannot raise agent.max_delegation_depth"),
    });
    await client.finish();

    await harness.sandbox.writeProjectConfig("[agent]\nmax_delegation_depth = 0\n");
    const lowered = await harness.startServer([textResponse(["ok"])]);
    lowered.turn("hi");
    await terminal(lowered);
    await lowered.finish();
    expect(toolNames(harness.provider.requests[0]!.body)).not.toContain("agent");
  });
});
