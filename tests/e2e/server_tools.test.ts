// Spec §11 items 4 (event order), 15 (approvals), 16 (policies) and 28 (EOF mid-tool) against the real CLI.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { type FakeResponse, sse, textResponse, toolCallResponse } from "../support/fake_provider.ts";
import type { ServerClient } from "../support/server_client.ts";
import { terminal, useServerHarness } from "../support/server_harness.ts";
import { waitFor } from "../support/wait.ts";

// Tool rules through the protocol run in-process; the process-group and EOF tests spawn the CLI.
const harness = useServerHarness(undefined, { inProcess: true });

function startServer(script: FakeResponse[], extraArgs: string[] = [], spawned = false): Promise<ServerClient> {
  return harness.startServer(script, { extraArgs, spawned });
}

describe("turn event order (§6.4)", () => {
  it("writes per step [deltas] assistant.completed, then per call proposed → started → completed", async () => {
    await writeFile(path.join(harness.sandbox.workspace, "a.txt"), "alpha");
    const client = await startServer([
      {
        events: [
          sse.textDelta("Let me look."),
          ...sse.toolCall("c1", "read", { path: "a.txt" }, 1),
          ...sse.toolCall("c2", "nope", {}, 2),
          ...sse.toolCall("c3", "read", { path: "a.txt", bogus: 1 }, 3),
          sse.completed({ input_tokens: 5, output_tokens: 1 }),
        ],
      },
      textResponse(["done"], { input_tokens: 7, output_tokens: 3 }),
    ]);
    client.turn("go", "t");
    const end = await terminal(client);
    expect(end).toMatchObject({ type: "turn.completed", steps: 2, usage: { input_tokens: 12, output_tokens: 4 } });
    const turnEvents = client.events.filter((event) => event.turn_id === end.turn_id);
    expect(turnEvents.map((event) => `${event.type}${event.call_id ? `:${event.call_id}` : ""}`)).toEqual([
      "turn.started",
      "assistant.delta",
      "assistant.completed",
      "tool.proposed:c1",
      "tool.started:c1",
      "tool.completed:c1",
      "tool.proposed:c2",
      "tool.completed:c2",
      "tool.proposed:c3",
      "tool.completed:c3",
      "assistant.delta",
      "assistant.completed",
      "turn.completed",
    ]);
    const [proposed, started, completed] = turnEvents.slice(3, 6);
    expect(Object.keys(proposed!)).toEqual([
      "type",
      "request_id",
      "session_id",
      "turn_id",
      "seq",
      "call_id",
      "name",
      "arguments",
    ]);
    expect(proposed!.arguments).toEqual({ path: "a.txt" });
    expect(Object.keys(started!)).toEqual(["type", "request_id", "session_id", "turn_id", "seq", "call_id", "name"]);
    expect(Object.keys(completed!)).toEqual([
      "type",
      "request_id",
      "session_id",
      "turn_id",
      "seq",
      "call_id",
      "name",
      "success",
      "output",
      "truncated",
    ]);
    expect(completed!.success).toBe(true);
    expect(JSON.parse(completed!.output)).toMatchObject({ path: "a.txt", content: "alpha" });
    expect(turnEvents[7]).toMatchObject({
      success: false,
      output: "unknown tool: nope",
      truncated: false,
      error: "unknown_tool",
    });
    expect(turnEvents[9]).toMatchObject({ success: false, error: "invalid_arguments" });
    expect(turnEvents[9]!.output.startsWith("invalid arguments: ")).toBe(true);
    expect(turnEvents[2]!.content).toBe("Let me look.");
    await client.finish();
    // The second request replays the assistant text, three calls and three results in order.
    const input = harness.provider.requests[1]!.body.input;
    expect(input.map((item: Record<string, unknown>) => item.type ?? item.role)).toEqual([
      "user",
      "assistant",
      "function_call",
      "function_call",
      "function_call",
      "function_call_output",
      "function_call_output",
      "function_call_output",
    ]);
  });

  it("writes an empty assistant.completed for a call-only response", async () => {
    const client = await startServer([
      toolCallResponse([{ call_id: "c1", name: "read", arguments: { path: "missing.txt" } }]),
      textResponse([]),
    ]);
    client.turn("go");
    const end = await terminal(client);
    expect(end.type).toBe("turn.completed");
    const completions = client.events.filter((event) => event.type === "assistant.completed");
    expect(completions.map((event) => event.content)).toEqual(["", ""]);
    const failedRead = client.events.find((event) => event.type === "tool.completed")!;
    expect(failedRead).toMatchObject({ success: false, error: "failed" });
    await client.finish();
  });
});

describe("approvals (§6.5)", () => {
  it("runs an approved bash call and refuses a reused approval id", async () => {
    const client = await startServer([
      toolCallResponse([{
        call_id: "call_1",
        name: "bash",
        arguments: { command: "echo approved > out.txt; echo ok" },
      }]),
      textResponse(["done"]),
    ]);
    client.turn("run it", "t");
    const proposed = await client.next("tool.proposed");
    const approval = await client.next();
    expect(approval.type).toBe("approval.requested");
    expect(Object.keys(approval)).toEqual([
      "type",
      "request_id",
      "session_id",
      "turn_id",
      "seq",
      "approval_id",
      "call_id",
      "name",
      "risk",
      "cwd",
      "summary",
      "detail",
      "reason",
    ]);
    expect(approval).toMatchObject({
      request_id: "t",
      turn_id: proposed.turn_id,
      call_id: "call_1",
      name: "bash",
      risk: "process",
      cwd: harness.sandbox.workspace,
      summary: "Run with /bin/bash -c: echo approved > out.txt; echo ok",
      detail: "echo approved > out.txt; echo ok",
    });
    expect(approval.approval_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(existsSync(path.join(harness.sandbox.workspace, "out.txt"))).toBe(false);
    client.send({
      type: "approval.resolve",
      request_id: "yes",
      session_id: client.sessionId,
      approval_id: approval.approval_id,
      approved: true,
    });
    expect(await client.next()).toMatchObject({ type: "tool.started", call_id: "call_1", name: "bash" });
    const completed = await client.next("tool.completed");
    expect(completed).toMatchObject({ call_id: "call_1", success: true, truncated: false });
    expect(completed).not.toHaveProperty("error");
    expect(JSON.parse(completed.output)).toMatchObject({ exit_code: 0, timed_out: false });
    expect(await readFile(path.join(harness.sandbox.workspace, "out.txt"), "utf8")).toBe("approved\n");
    expect((await terminal(client)).type).toBe("turn.completed");
    client.send({
      type: "approval.resolve",
      request_id: "again",
      session_id: client.sessionId,
      approval_id: approval.approval_id,
      approved: true,
    });
    expect(await client.next("error")).toEqual({
      type: "error",
      request_id: "again",
      code: "approval_not_found",
      message: "approval was not found or already resolved",
      fatal: false,
    });
    await client.finish();
  });

  it("completes a denied write with the exact denial and no tool.started", async () => {
    const client = await startServer([
      toolCallResponse([{
        call_id: "w1",
        name: "write",
        arguments: { path: "x.txt", content: "data", mode: "create" },
      }]),
      textResponse(["ok"]),
    ]);
    client.turn("write it");
    const approval = await client.next("approval.requested");
    expect(approval).toMatchObject({ name: "write", risk: "filesystem", summary: "Create x.txt (4 bytes)" });
    client.send({
      type: "approval.resolve",
      request_id: "no",
      session_id: client.sessionId,
      approval_id: approval.approval_id,
      approved: false,
    });
    const completed = await client.next();
    expect(completed).toMatchObject({
      type: "tool.completed",
      call_id: "w1",
      name: "write",
      success: false,
      output: "tool call denied by policy or user",
      truncated: false,
      error: "denied",
    });
    expect((await terminal(client)).type).toBe("turn.completed");
    expect(client.events.some((event) => event.type === "tool.started")).toBe(false);
    expect(existsSync(path.join(harness.sandbox.workspace, "x.txt"))).toBe(false);
    await client.finish();
    expect(harness.provider.requests[1]!.body.input.at(-1)).toEqual({
      type: "function_call_output",
      call_id: "w1",
      output: "tool call denied by policy or user",
    });
  });

  it("asks for reads of secret-like paths", async () => {
    await writeFile(path.join(harness.sandbox.workspace, ".env"), "TOKEN=1");
    const client = await startServer([
      toolCallResponse([{ call_id: "r1", name: "read", arguments: { path: ".env" } }]),
      textResponse(["ok"]),
    ]);
    client.turn("read env");
    const approval = await client.next("approval.requested");
    expect(approval).toMatchObject({ name: "read", risk: "filesystem", summary: "Read .env" });
    client.send({
      type: "approval.resolve",
      request_id: "no",
      session_id: client.sessionId,
      approval_id: approval.approval_id,
      approved: false,
    });
    expect(await client.next("tool.completed")).toMatchObject({ error: "denied" });
    await terminal(client);
    await client.finish();
  });
});

describe("policies (§6.5, §7.3)", () => {
  it("under never, denies bash unasked but still runs reads", async () => {
    await writeFile(path.join(harness.sandbox.workspace, "a.txt"), "alpha");
    const client = await startServer(
      [
        toolCallResponse([
          { call_id: "b1", name: "bash", arguments: { command: "touch ran" } },
          { call_id: "r1", name: "read", arguments: { path: "a.txt" } },
        ]),
        textResponse(["ok"]),
      ],
      ["--approval-policy", "never"],
    );
    client.turn("go");
    expect((await terminal(client)).type).toBe("turn.completed");
    const completed = client.events.filter((event) => event.type === "tool.completed");
    // Changed (issue 28): a denial by policy names what denied it.
    expect(completed[0]).toMatchObject({
      call_id: "b1",
      output:
        "tool call denied by policy or user: the approval policy never denies every call that is not read-only: " +
        "this command runs touch, which is not on the read-only list",
      error: "denied",
    });
    expect(completed[1]).toMatchObject({ call_id: "r1", success: true });
    expect(client.events.some((event) => event.type === "approval.requested")).toBe(false);
    expect(existsSync(path.join(harness.sandbox.workspace, "ran"))).toBe(false);
    await client.finish();
  });

  it("under always, asks even for a read", async () => {
    await writeFile(path.join(harness.sandbox.workspace, "a.txt"), "alpha");
    await harness.sandbox.writeUserConfig('[tools]\napproval_policy = "always"\n');
    const client = await startServer([
      toolCallResponse([{ call_id: "r1", name: "read", arguments: { path: "a.txt" } }]),
      textResponse(["ok"]),
    ]);
    client.turn("go");
    const approval = await client.next("approval.requested");
    expect(approval).toMatchObject({ name: "read", risk: "read_only", summary: "Read a.txt" });
    client.send({
      type: "approval.resolve",
      request_id: "y",
      session_id: client.sessionId,
      approval_id: approval.approval_id,
      approved: true,
    });
    expect(await client.next("tool.completed")).toMatchObject({ success: true });
    await terminal(client);
    await client.finish();
  });

  it("refuses a project file that weakens the policy", async () => {
    await harness.sandbox.writeUserConfig('[tools]\napproval_policy = "always"\n');
    await harness.sandbox.writeProjectConfig('[tools]\napproval_policy = "on-risk"\n');
    const client = harness.server({ env: harness.sandbox.env({ OPENAI_API_KEY: "test-only" }) });
    await client.initialize();
    client.send({ type: "session.start", request_id: "s", cwd: harness.sandbox.workspace });
    expect(await client.next()).toEqual({
      type: "error",
      request_id: "s",
      code: "invalid_request",
      message: "project configuration cannot weaken tools.approval_policy",
      fatal: false,
    });
    await client.finish();
  });
});

describe("running tools", () => {
  it("streams bounded tool.progress between tool.started and tool.completed", async () => {
    const command = "for i in 1 2 3 4 5 6 7 8; do echo line$i; sleep 0.15; done";
    const client = await startServer([
      toolCallResponse([{ call_id: "b1", name: "bash", arguments: { command } }]),
      textResponse(["ok"]),
    ]);
    client.turn("progress");
    const approval = await client.next("approval.requested");
    client.send({
      type: "approval.resolve",
      request_id: "y",
      session_id: client.sessionId,
      approval_id: approval.approval_id,
      approved: true,
    });
    const started = await client.next("tool.started");
    const completed = await client.next("tool.completed");
    expect(completed).toMatchObject({ success: true });
    const between = client.events.slice(client.events.indexOf(started) + 1, client.events.indexOf(completed));
    expect(between.length).toBeGreaterThan(0);
    for (const event of between) {
      expect(event.type).toBe("tool.progress");
      expect(Object.keys(event)).toEqual(["type", "request_id", "session_id", "turn_id", "seq", "call_id", "text"]);
      expect(event.call_id).toBe("b1");
      expect(event.text).toMatch(/^line[1-8]$/);
    }
    // At most one per line. How many per second (at most 2) depends on how long the command runs, which a busy
    // machine stretches: that rate is tested on a fake clock (tests/util/text_bounds.test.ts).
    expect(between.length).toBeLessThanOrEqual(8);
    await terminal(client);
    await client.finish();
  });

  it("cancels a running bash call: the group is killed, turn.cancelled, history restored", async () => {
    // Longer than the hang deadline: only the cancel can end it in time.
    const marker = `sleep 1040.${process.pid}${Date.now() % 100000}`;
    const client = await startServer(
      [
        toolCallResponse([{ call_id: "b1", name: "bash", arguments: { command: `${marker}; true` } }]),
        textResponse(["next"]),
      ],
      [],
      true,
    );
    client.turn("sleep", "t1");
    const approval = await client.next("approval.requested");
    client.send({
      type: "approval.resolve",
      request_id: "y",
      session_id: client.sessionId,
      approval_id: approval.approval_id,
      approved: true,
    });
    const started = await client.next("tool.started");
    await waitFor(() => processesMatching(marker) > 0, { what: `a process matching ${marker}` });
    client.send({ type: "turn.cancel", request_id: "c", session_id: client.sessionId, turn_id: started.turn_id });
    expect(await client.next(["turn.cancelled", "turn.failed", "turn.completed"])).toMatchObject({
      type: "turn.cancelled",
      request_id: "t1",
    });
    await waitFor(() => processesMatching(marker) === 0, { what: `no process matching ${marker}` });
    client.turn("after", "t2");
    expect((await terminal(client)).type).toBe("turn.completed");
    expect(harness.provider.requests[1]!.body.input).toEqual([{ role: "user", content: "after" }]);
    await client.finish();
  });
});

describe("EOF mid-tool (§6.7)", () => {
  it("kills the running process group and exits 0", async () => {
    // Longer than the hang deadline: only the EOF can end it in time.
    const marker = `sleep 1030.${process.pid}${Date.now() % 100000}`;
    const client = await startServer(
      [toolCallResponse([{ call_id: "b1", name: "bash", arguments: { command: `${marker}; true` } }])],
      ["--approval-policy", "on-risk"],
      true,
    );
    client.turn("sleep");
    const approval = await client.next("approval.requested");
    client.send({
      type: "approval.resolve",
      request_id: "y",
      session_id: client.sessionId,
      approval_id: approval.approval_id,
      approved: true,
    });
    await client.next("tool.started");
    await waitFor(() => processesMatching(marker) > 0, { what: `a process matching ${marker}` });
    client.closeStdin();
    expect((await client.exit()).code).toBe(0);
    await waitFor(() => processesMatching(marker) === 0, { what: `no process matching ${marker}` });
  });
});

function processesMatching(marker: string): number {
  try {
    return execFileSync("pgrep", ["-f", marker], { encoding: "utf8" }).trim().split("\n").filter(Boolean).length;
  } catch {
    return 0;
  }
}
