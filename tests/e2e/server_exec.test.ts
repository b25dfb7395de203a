// The exec tool (code mode, spec §9 `exec`, §11 item 27) through the real CLI against the fake provider: nested
// calls through the same gate and events as top-level calls, denial, timeout, cancellation, errors, registration.
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { type FakeResponse, textResponse, toolCallResponse } from "../support/fake_provider.ts";
import type { ServerClient, ServerEvent } from "../support/server_client.ts";
import { resolveApproval, terminal, useServerHarness } from "../support/server_harness.ts";

// The exec tool's protocol rules: the server runs in-process (its cells still run in the real worker sandbox).
const harness = useServerHarness(
  async (harness) => {
    await writeFile(path.join(harness.sandbox.workspace, "a.txt"), "alpha");
  },
  { inProcess: true },
);

function startServer(
  script: FakeResponse[],
  options: { extraArgs?: string[]; start?: Record<string, unknown> } = {},
): Promise<ServerClient> {
  return harness.startServer(script, options);
}

/** A response calling exec once with `code` (and optional timeout), then a closing text reply. */
function execScript(code: string, timeoutSeconds?: number, callId = "x1"): FakeResponse[] {
  const args = timeoutSeconds === undefined ? { code } : { code, timeout_seconds: timeoutSeconds };
  return [toolCallResponse([{ call_id: callId, name: "exec", arguments: args }]), textResponse(["done"])];
}

const label = (event: ServerEvent) => `${event.type}${event.call_id ? `:${event.call_id}` : ""}`;
const turnLabels = (client: ServerClient, turnId: string) =>
  client.events.filter((event) => event.turn_id === turnId).map(label);
const resolve = resolveApproval;

describe("exec nested calls (§11 item 27)", () => {
  it("runs a nested read unasked, reports it nested, resolves with parsed JSON and keeps it out of the history", async () => {
    const code = 'const r = await tools.read({ path: "a.txt" });\ntext(r.content + ":" + r.total_bytes);';
    const client = await startServer(execScript(code));
    client.turn("go");
    const end = await terminal(client);
    expect(end.type).toBe("turn.completed");
    expect(turnLabels(client, end.turn_id)).toEqual([
      "turn.started",
      "assistant.completed",
      "tool.proposed:x1",
      "tool.started:x1",
      "tool.proposed:x1:tool-1",
      "tool.started:x1:tool-1",
      "tool.completed:x1:tool-1",
      "tool.completed:x1",
      "assistant.delta",
      "assistant.completed",
      "turn.completed",
    ]);
    const nested = client.events.find((event) => event.type === "tool.proposed" && event.call_id === "x1:tool-1")!;
    expect(nested).toMatchObject({ name: "read", arguments: { path: "a.txt" } });
    const nestedDone = client.events.find((event) => event.type === "tool.completed" && event.call_id === "x1:tool-1")!;
    expect(JSON.parse(nestedDone.output)).toMatchObject({ content: "alpha" });
    const execDone = client.events.find((event) => event.type === "tool.completed" && event.call_id === "x1")!;
    expect(execDone).toMatchObject({ name: "exec", success: true, output: "alpha:5", truncated: false });
    expect(execDone).not.toHaveProperty("error");
    expect(client.events.some((event) => event.type === "approval.requested")).toBe(false);
    await client.finish();
    // The replay has exec's call and output only: the nested call is not part of the history.
    const input = harness.provider.requests[1]!.body.input;
    expect(input.map((item: Record<string, unknown>) => item.type ?? item.role)).toEqual([
      "user",
      "function_call",
      "function_call_output",
    ]);
    expect(input[2]).toEqual({ type: "function_call_output", call_id: "x1", output: "alpha:5" });
    // Request 1 offers exec, sorted among the other tools, with the spec's schema.
    const tools = harness.provider.requests[0]!.body.tools;
    // `agent` (issue 20) is offered too.
    expect(tools.map((tool: { name?: string; type?: string }) => tool.name)).toEqual([
      "agent",
      "apply_patch",
      "bash",
      "edit",
      "exec",
      "glob",
      "grep",
      "list",
      "read",
      "read_skill",
      "web_fetch",
      "write",
    ]);
    const exec = tools.find((tool: { name?: string; type?: string }) => tool.name === "exec");
    expect(exec.parameters).toMatchObject({
      required: ["code"],
      additionalProperties: false,
      properties: { timeout_seconds: { minimum: 1, maximum: 14400 } },
    });
  });

  it("asks for a nested bash with <id>:tool-1 and its own risk; the denial rejects inside the cell, which catches it", async () => {
    const code = [
      "try {",
      '  await tools.bash({ command: "echo nope > bash.txt" });',
      '  text("ran");',
      "} catch (error) {",
      '  text("caught " + typeof error + ": " + error);',
      "}",
    ].join("\n");
    const client = await startServer(execScript(code, undefined, "call_9"));
    client.turn("go");
    const approval = await client.next("approval.requested");
    expect(approval).toMatchObject({
      call_id: "call_9:tool-1",
      name: "bash",
      risk: "process",
      cwd: harness.sandbox.workspace,
      summary: "Run with /bin/bash -c: echo nope > bash.txt",
    });
    resolve(client, approval.approval_id, false);
    const end = await terminal(client);
    expect(end.type).toBe("turn.completed");
    expect(turnLabels(client, end.turn_id).slice(2, 8)).toEqual([
      "tool.proposed:call_9",
      "tool.started:call_9",
      "tool.proposed:call_9:tool-1",
      "approval.requested:call_9:tool-1",
      "tool.completed:call_9:tool-1",
      "tool.completed:call_9",
    ]);
    const completions = client.events.filter((event) => event.type === "tool.completed");
    expect(completions[0]).toMatchObject({
      call_id: "call_9:tool-1",
      success: false,
      output: "tool call denied by policy or user",
      error: "denied",
    });
    expect(completions[1]).toMatchObject({
      call_id: "call_9",
      success: true,
      output: "caught string: tool call denied by policy or user",
    });
    expect(existsSync(path.join(harness.sandbox.workspace, "bash.txt"))).toBe(false);
    await client.finish();
  });

  it("runs a read then a write that waits for approval and is approved", async () => {
    const code = [
      'const source = await tools.read({ path: "a.txt" });',
      'const written = await tools.write({ path: "b.txt", content: source.content.toUpperCase(), mode: "create" });',
      'text("wrote " + written.bytes);',
    ].join("\n");
    const client = await startServer(execScript(code));
    client.turn("go");
    const approval = await client.next("approval.requested");
    expect(approval).toMatchObject({
      call_id: "x1:tool-2",
      name: "write",
      risk: "filesystem",
      summary: "Create b.txt (5 bytes)",
    });
    // Nothing is written while the approval is pending, and the cell waits.
    expect(existsSync(path.join(harness.sandbox.workspace, "b.txt"))).toBe(false);
    expect((await client.quiet(150)).length).toBe(0);
    resolve(client, approval.approval_id, true);
    const end = await terminal(client);
    expect(end.type).toBe("turn.completed");
    expect(turnLabels(client, end.turn_id).slice(2, 11)).toEqual([
      "tool.proposed:x1",
      "tool.started:x1",
      "tool.proposed:x1:tool-1",
      "tool.started:x1:tool-1",
      "tool.completed:x1:tool-1",
      "tool.proposed:x1:tool-2",
      "approval.requested:x1:tool-2",
      "tool.started:x1:tool-2",
      "tool.completed:x1:tool-2",
    ]);
    expect(client.events.find((event) => event.type === "tool.completed" && event.call_id === "x1")).toMatchObject({
      success: true,
      output: "wrote 5",
    });
    expect(await readFile(path.join(harness.sandbox.workspace, "b.txt"), "utf8")).toBe("ALPHA");
    await client.finish();
  });

  it("completes unknown tools and invalid arguments unasked, and rejects with their text", async () => {
    const code = [
      "const results = [];",
      'for (const call of [() => tools.read({}), () => tools.read({ path: "../x" })]) {',
      "  try { await call(); } catch (error) { results.push(error); }",
      "}",
      "text(results.join(' | '));",
      "text(typeof tools.exec);",
    ].join("\n");
    const client = await startServer(execScript(code));
    client.turn("go");
    const end = await terminal(client);
    expect(end.type).toBe("turn.completed");
    const nested = client.events.filter((event) => event.type === "tool.completed" && event.call_id.startsWith("x1:"));
    expect(nested.map((event) => [event.call_id, event.error])).toEqual([
      ["x1:tool-1", "invalid_arguments"],
      ["x1:tool-2", "invalid_arguments"],
    ]);
    const output = client.events.find((event) => event.type === "tool.completed" && event.call_id === "x1")!
      .output as string;
    expect(output.startsWith("invalid arguments: ")).toBe(true);
    expect(output).toContain(" | parent traversal and absolute paths are not allowed");
    // exec does not offer itself inside a cell.
    expect(output.endsWith("\nundefined")).toBe(true);
    await client.finish();
  });

  it("turns notify into tool.progress of the exec call", async () => {
    const client = await startServer(execScript('notify("halfway there");\ntext("ok");'));
    client.turn("go");
    const end = await terminal(client);
    expect(end.type).toBe("turn.completed");
    expect(turnLabels(client, end.turn_id).slice(2, 5)).toEqual([
      "tool.proposed:x1",
      "tool.started:x1",
      "tool.progress:x1",
    ]);
    expect(client.events.find((event) => event.type === "tool.progress")).toMatchObject({
      call_id: "x1",
      text: "halfway there",
    });
    await client.finish();
  });
});

describe("exec failures", () => {
  it("times out a busy loop: the cell is terminated and the output ends with the timeout line", async () => {
    // A first cell boots the session's sandbox process, so that the 1 s timeout (counted from the call) is not
    // spent booting one on a busy machine.
    const client = await startServer([
      ...execScript('text("warm")', undefined, "x0"),
      ...execScript('text("before");\nwhile (true) {}', 1),
    ]);
    client.turn("warm up", "t0");
    expect((await terminal(client)).type).toBe("turn.completed");
    client.turn("go");
    const completed = await client.next("tool.completed");
    expect(completed).toMatchObject({
      call_id: "x1",
      name: "exec",
      success: false,
      output: "before\nScript terminated: timed out after 1 seconds",
      truncated: false,
      error: "limit",
    });
    expect((await terminal(client)).type).toBe("turn.completed");
    // The sandbox still serves the session afterwards.
    harness.provider.push(...execScript('text("again")', undefined, "x2"));
    client.turn("again", "t2");
    const second = await client.next("tool.completed", 5000);
    expect(second).toMatchObject({ call_id: "x2", success: true, output: "again" });
    await terminal(client);
    await client.finish();
  });

  it("reports an uncaught error after the text items, and fails", async () => {
    const client = await startServer(execScript('text("one");\ntext("two");\nthrow new Error("boom");'));
    client.turn("go");
    const completed = await client.next("tool.completed", 5000);
    expect(completed).toMatchObject({ call_id: "x1", success: false, truncated: false, error: "failed" });
    expect(completed.output).toMatch(/^one\ntwo\nScript error:\nError: boom\n {4}at exec_main\.mjs:3:\d+$/);
    await terminal(client);
    await client.finish();
  });

  it("cancels a running cell and its pending nested approval on turn.cancel", async () => {
    const code = 'await tools.bash({ command: "echo late > late.txt" });\ntext("unreachable");';
    // Cancelled turns take no closing reply.
    const client = await startServer([toolCallResponse([{ call_id: "x1", name: "exec", arguments: { code } }])]);
    client.turn("go");
    const approval = await client.next("approval.requested");
    client.send({ type: "turn.cancel", request_id: "c", session_id: client.sessionId, turn_id: approval.turn_id });
    const end = await terminal(client);
    expect(end.type).toBe("turn.cancelled");
    resolve(client, approval.approval_id, true);
    expect(await client.next("error")).toMatchObject({ code: "approval_not_found" });
    expect(existsSync(path.join(harness.sandbox.workspace, "late.txt"))).toBe(false);
    // A busy cell is terminated too; the next turn's cell runs. (Its hour-long timeout leaves only the cancel to
    // end it before the hang deadline.)
    harness.provider.push(
      toolCallResponse([{
        call_id: "x2",
        name: "exec",
        arguments: { code: "notify('spinning'); while (true) {}", timeout_seconds: 3600 },
      }]),
    );
    client.turn("spin", "t2");
    const started = await client.next("tool.progress");
    client.send({ type: "turn.cancel", request_id: "c2", session_id: client.sessionId, turn_id: started.turn_id });
    expect((await terminal(client)).type).toBe("turn.cancelled");
    harness.provider.push(...execScript('text("fresh")', undefined, "x3"));
    client.turn("after", "t3");
    expect(await client.next("tool.completed", 5000)).toMatchObject({ call_id: "x3", success: true, output: "fresh" });
    await terminal(client);
    await client.finish();
  });

  it("ends a busy cell on stdin EOF and exits 0", async () => {
    // The cell's hour-long timeout leaves only the EOF to end it before the hang deadline.
    const client = await startServer([
      toolCallResponse([{
        call_id: "x1",
        name: "exec",
        arguments: { code: "notify('spinning'); for (;;) {}", timeout_seconds: 3600 },
      }]),
    ]);
    client.turn("spin");
    await client.next("tool.progress");
    await client.finish();
  });
});

describe("exec registration", () => {
  it("is absent when tools.code_mode is false", async () => {
    await harness.sandbox.writeUserConfig("[tools]\ncode_mode = false\n");
    const client = await startServer([textResponse(["hi"])]);
    client.turn("go");
    await terminal(client);
    await client.finish();
    const names = harness.provider.requests[0]!.body.tools.map((tool: { name?: string; type?: string }) => tool.name);
    expect(names).toContain("read");
    expect(names).not.toContain("exec");
  });

  it("is absent from tool-free sessions, which send no tools key", async () => {
    const client = await startServer([
      toolCallResponse([{ call_id: "x1", name: "exec", arguments: { code: "text(1)" } }]),
      textResponse(["ok"]),
    ], {
      start: { no_tools: true },
    });
    client.turn("go");
    expect(await client.next("tool.completed")).toMatchObject({
      call_id: "x1",
      success: false,
      output: "unknown tool: exec",
      error: "unknown_tool",
    });
    await terminal(client);
    await client.finish();
    expect(harness.provider.requests[0]!.body).not.toHaveProperty("tools");
  });
});
