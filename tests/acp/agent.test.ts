// `scv acp` driven by the official SDK's client over real pipes, against the fake provider: what an editor sees.
import { existsSync } from "node:fs";
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PROTOCOL_VERSION, type SessionNotification, type ToolCallUpdate } from "@agentclientprotocol/sdk";
import { useCliHarness } from "../support/cli_harness.ts";
import { sse, textResponse, toolCallResponse } from "../support/fake_provider.ts";
import { waitFor, within } from "../support/wait.ts";
import { type AcpRun, type PermissionAnswer, startAcp } from "./acp_client.ts";

const harness = useCliHarness();
let run: AcpRun | undefined;

afterEach(() => {
  // Every line the agent wrote in the test must be valid ACP v1.
  if (run) expect(run.violations()).toEqual([]);
  run = undefined;
});

function start(permission?: PermissionAnswer, options: { args?: string[] } = {}): AcpRun {
  run = startAcp(harness, { permission, ...options });
  return run;
}

async function newSession(acp: AcpRun): Promise<string> {
  await acp.connection.agent.request("initialize", { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
  const { sessionId } = await acp.connection.agent.request("session/new", {
    cwd: harness.sandbox.workspace,
    mcpServers: [],
  });
  return sessionId;
}

function prompt(acp: AcpRun, sessionId: string, text: string) {
  return acp.connection.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
}

function kinds(updates: SessionNotification[]): string[] {
  return updates.map((notification) => notification.update.sessionUpdate);
}

function messageText(updates: SessionNotification[]): string {
  return updates
    .map((
      { update },
    ) => (update.sessionUpdate === "agent_message_chunk" && update.content.type === "text" ? update.content.text : ""))
    .join("");
}

/** The tool_call and tool_call_update updates of one call, in order. */
function callUpdates(
  updates: SessionNotification[],
  toolCallId: string,
): Array<ToolCallUpdate & { sessionUpdate: string }> {
  return updates
    .map(({ update }) => update)
    .filter((update) =>
      (update.sessionUpdate === "tool_call" || update.sessionUpdate === "tool_call_update") &&
      update.toolCallId === toolCallId
    ) as Array<
      ToolCallUpdate & { sessionUpdate: string }
    >;
}

const select = (optionId: string): PermissionAnswer => () => ({ outcome: { outcome: "selected", optionId } });

describe("scv acp", () => {
  it("initializes with protocol 1 and only the capabilities scv has", async () => {
    const acp = start();
    const init = await acp.connection.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    expect(init.protocolVersion).toBe(1);
    expect(init.agentInfo?.name).toBe("scv");
    // Images but no audio or embedded context; stored sessions; MCP over stdio and http, not SSE.
    expect(init.agentCapabilities).toEqual({
      loadSession: true,
      promptCapabilities: { image: true, audio: false, embeddedContext: false },
      mcpCapabilities: { http: true, sse: false },
      sessionCapabilities: { close: {}, list: {} },
    });
  });

  it("streams an answer as agent_message_chunk updates and ends the turn with end_turn", async () => {
    harness.provider.push(textResponse(["Hel", "lo ", "editor"], { input_tokens: 5, output_tokens: 3 }));
    const acp = start();
    const sessionId = await newSession(acp);
    const response = await prompt(acp, sessionId, "say hello");
    expect(response.stopReason).toBe("end_turn");
    expect(messageText(acp.updates)).toBe("Hello editor");
    expect(acp.updates.every((notification) => notification.sessionId === sessionId)).toBe(true);
    // The prompt reached the provider as the user's text.
    expect(JSON.stringify(harness.provider.requests[0]!.body.input)).toContain("say hello");
  });

  it("reports a read call with kind read, its location, status changes and the file's text", async () => {
    await writeFile(join(harness.sandbox.workspace, "notes.txt"), "remember the milk\n");
    harness.provider.push(
      toolCallResponse([{ call_id: "call_r", name: "read", arguments: { path: "notes.txt" } }]),
      textResponse(["read it"]),
    );
    const acp = start();
    const sessionId = await newSession(acp);
    expect((await prompt(acp, sessionId, "read notes")).stopReason).toBe("end_turn");
    const updates = callUpdates(acp.updates, "call_r");
    expect(updates[0]).toMatchObject({
      sessionUpdate: "tool_call",
      kind: "read",
      status: "pending",
      title: "read: notes.txt",
      locations: [{ path: join(harness.sandbox.workspace, "notes.txt") }],
      rawInput: { path: "notes.txt" },
    });
    expect(updates.map((update) => update.status).filter(Boolean)).toEqual(["pending", "in_progress", "completed"]);
    expect(JSON.stringify(updates.at(-1)!.content)).toContain("remember the milk");
    // A read-only call is not asked about.
    expect(acp.permissions).toEqual([]);
  });

  it("runs a bash call the user allows through session/request_permission", async () => {
    harness.provider.push(
      toolCallResponse([{ call_id: "call_b", name: "bash", arguments: { command: "echo ran > marker.txt" } }]),
      textResponse(["done"]),
    );
    const acp = start(select("allow_once"));
    const sessionId = await newSession(acp);
    expect((await prompt(acp, sessionId, "make a marker")).stopReason).toBe("end_turn");
    expect(await readFile(join(harness.sandbox.workspace, "marker.txt"), "utf8")).toBe("ran\n");
    expect(acp.permissions).toHaveLength(1);
    const asked = acp.permissions[0]!;
    expect(asked.sessionId).toBe(sessionId);
    expect(asked.toolCall.toolCallId).toBe("call_b");
    expect(asked.toolCall.kind).toBe("execute");
    expect(asked.options.map((option) => option.kind)).toEqual([
      "allow_once",
      "allow_always",
      "reject_once",
    ]);
    expect(callUpdates(acp.updates, "call_b").at(-1)!.status).toBe("completed");
  });

  it("does not run a bash call the user rejects", async () => {
    harness.provider.push(
      toolCallResponse([{ call_id: "call_b", name: "bash", arguments: { command: "echo ran > marker.txt" } }]),
      textResponse(["ok, not running it"]),
    );
    const acp = start(select("reject_once"));
    const sessionId = await newSession(acp);
    expect((await prompt(acp, sessionId, "make a marker")).stopReason).toBe("end_turn");
    expect(existsSync(join(harness.sandbox.workspace, "marker.txt"))).toBe(false);
    expect(acp.permissions).toHaveLength(1);
    expect(callUpdates(acp.updates, "call_b").at(-1)!.status).toBe("failed");
  });

  it("remembers allow_always for the same call in the session and asks again for a different one", async () => {
    const call = (id: string, command: string) =>
      toolCallResponse([{ call_id: id, name: "bash", arguments: { command } }]);
    harness.provider.push(
      call("c1", "echo a >> marker.txt"),
      textResponse(["one"]),
      call("c2", "echo a >> marker.txt"),
      textResponse(["two"]),
      call("c3", "echo b >> marker.txt"),
      textResponse(["three"]),
    );
    const answers = ["allow_always", "reject_once"];
    const acp = start(() => ({ outcome: { outcome: "selected", optionId: answers.shift()! } }));
    const sessionId = await newSession(acp);
    for (const text of ["first", "second", "third"])
      expect((await prompt(acp, sessionId, text)).stopReason).toBe("end_turn");
    // Asked for c1 (always allowed), not for the identical c2, and again for the different c3 (rejected).
    expect(acp.permissions.map((request) => request.toolCall.toolCallId)).toEqual(["c1", "c3"]);
    expect(await readFile(join(harness.sandbox.workspace, "marker.txt"), "utf8")).toBe("a\na\n");
  });

  it("shows a write as an edit with the file's diff", async () => {
    await writeFile(join(harness.sandbox.workspace, "a.txt"), "old text\n");
    harness.provider.push(
      toolCallResponse([{
        call_id: "call_w",
        name: "write",
        arguments: { path: "a.txt", content: "new text\n", mode: "replace" },
      }]),
      textResponse(["written"]),
    );
    const acp = start(select("allow_once"));
    const sessionId = await newSession(acp);
    expect((await prompt(acp, sessionId, "rewrite a.txt")).stopReason).toBe("end_turn");
    const diff = {
      type: "diff",
      path: join(harness.sandbox.workspace, "a.txt"),
      oldText: "old text\n",
      newText: "new text\n",
    };
    const updates = callUpdates(acp.updates, "call_w");
    expect(updates[0]).toMatchObject({ sessionUpdate: "tool_call", kind: "edit", content: [diff] });
    expect(updates.at(-1)).toMatchObject({ status: "completed" });
    expect(updates.at(-1)!.content).toContainEqual(diff);
    expect(await readFile(join(harness.sandbox.workspace, "a.txt"), "utf8")).toBe("new text\n");
  });

  it("cancels a turn whose stream the provider holds, and the session goes on", async () => {
    harness.provider.push(
      { mode: "chunked", events: [sse.textDelta("partial")], end: "hang" },
      textResponse(["after"]),
    );
    const acp = start();
    const sessionId = await newSession(acp);
    const running = prompt(acp, sessionId, "take your time");
    await waitFor(() => messageText(acp.updates).includes("partial"), { what: "the first chunk", timeoutMs: 10_000 });
    // One prompt at a time: a second while the first runs is refused, and the first goes on.
    const second = await prompt(acp, sessionId, "me too").then(
      () => undefined,
      (failure: { code?: number; message?: string }) => failure,
    );
    expect(second).toMatchObject({ code: -32600, message: expect.stringContaining("already running") });
    await acp.connection.agent.notify("session/cancel", { sessionId });
    // The provider holds the stream open: only the cancel can end the turn.
    expect((await within(running, "the cancelled prompt to end")).stopReason).toBe("cancelled");
    expect((await prompt(acp, sessionId, "again")).stopReason).toBe("end_turn");
  });

  it("answers a provider 401 with a JSON-RPC error that says so, and stays up", async () => {
    harness.provider.push(
      { status: 401, body: { error: { message: "Incorrect API key provided", type: "invalid_request_error" } } },
      textResponse(["recovered"]),
    );
    const acp = start();
    const sessionId = await newSession(acp);
    const failure = await prompt(acp, sessionId, "hi").then(
      () => undefined,
      (error: { code?: number; message?: string }) => error,
    );
    expect(failure?.code).toBe(-32603);
    expect(failure?.message).toMatch(/provider_error/);
    expect(failure?.message).toMatch(/401/);
    expect((await prompt(acp, sessionId, "hi again")).stopReason).toBe("end_turn");
    expect(messageText(acp.updates)).toBe("recovered");
  });

  it("answers bad JSON with a parse error and unknown methods with -32601, and keeps serving", async () => {
    const acp = start();
    await acp.connection.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    acp.writeRaw("{this is not json\n");
    acp.writeRaw(`${JSON.stringify({ jsonrpc: "2.0", id: 901, method: "session/teleport", params: {} })}\n`);
    const unknown = await acp.rawResponse(901);
    expect((unknown.error as { code: number }).code).toBe(-32601);
    const isParseError = (line: unknown) => (line as { error?: { code?: number } }).error?.code === -32700;
    const parseError =
      (await waitFor(() => acp.lines().find(isParseError), { what: "the parse error", timeoutMs: 10_000 })) as {
        id: unknown;
      };
    expect(parseError.id).toBeNull();
    // Still serving: a full session works after the bad input.
    harness.provider.push(textResponse(["still here"]));
    const { sessionId } = await acp.connection.agent.request("session/new", {
      cwd: harness.sandbox.workspace,
      mcpServers: [],
    });
    expect((await prompt(acp, sessionId, "hello?")).stopReason).toBe("end_turn");
    expect(messageText(acp.updates)).toBe("still here");
  });

  it("refuses a relative cwd, an unknown session and a mislabelled image with errors that say why", async () => {
    const acp = start();
    await acp.connection.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    const error = (promise: Promise<unknown>) =>
      promise.then(() => undefined, (failure: { code?: number; message?: string }) => failure);
    const relative = await error(acp.connection.agent.request("session/new", { cwd: "some/dir", mcpServers: [] }));
    expect(relative).toMatchObject({ code: -32602, message: expect.stringContaining("absolute") });
    const missing = await error(
      acp.connection.agent.request("session/new", { cwd: join(harness.sandbox.root, "nope"), mcpServers: [] }),
    );
    expect(missing).toMatchObject({ code: -32602, message: expect.stringContaining("is not a directory") });
    const unknown = await error(prompt(acp, "no-such-session", "hi"));
    expect(unknown).toMatchObject({ code: -32602, message: expect.stringContaining("unknown session") });
    const { sessionId } = await acp.connection.agent.request("session/new", {
      cwd: harness.sandbox.workspace,
      mcpServers: [],
    });
    const image = await error(
      acp.connection.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "image", data: "AAAA", mimeType: "image/png" }],
      }),
    );
    expect(image).toMatchObject({ code: -32602, message: expect.stringContaining("image") });
    expect(harness.provider.requests).toHaveLength(0);
  });

  it("ends a turn that hits the step limit with max_turn_requests", async () => {
    await harness.sandbox.writeUserConfig("[agent]\nmax_steps = 1\n");
    await writeFile(join(harness.sandbox.workspace, "notes.txt"), "x\n");
    harness.provider.push(
      toolCallResponse([{ call_id: "s1", name: "read", arguments: { path: "notes.txt" } }]),
      toolCallResponse([{ call_id: "s2", name: "read", arguments: { path: "notes.txt" } }]),
    );
    const acp = start();
    const sessionId = await newSession(acp);
    expect((await prompt(acp, sessionId, "loop")).stopReason).toBe("max_turn_requests");
    expect(kinds(acp.updates)).toContain("tool_call");
  });

  it("offers the approval policies as modes, starting from the configured one", async () => {
    await harness.sandbox.writeUserConfig('[tools]\napproval_policy = "always"\n');
    const acp = start();
    await acp.connection.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    const created = await acp.connection.agent.request("session/new", {
      cwd: harness.sandbox.workspace,
      mcpServers: [],
    });
    expect(created.modes?.currentModeId).toBe("always");
    expect(created.modes?.availableModes.map((mode) => mode.id)).toEqual([
      "on-risk",
      "accept-edits",
      "auto",
      "plan",
      "always",
      "never",
    ]);
  });

  it("takes --approval-policy as the first mode", async () => {
    const acp = start(undefined, { args: ["--approval-policy", "never"] });
    await acp.connection.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    const created = await acp.connection.agent.request("session/new", {
      cwd: harness.sandbox.workspace,
      mcpServers: [],
    });
    expect(created.modes?.currentModeId).toBe("never");
  });

  it("denies a risky call without asking in mode never, and asks even for a read in mode always", async () => {
    await writeFile(join(harness.sandbox.workspace, "notes.txt"), "secret plans\n");
    harness.provider.push(
      toolCallResponse([{ call_id: "b1", name: "bash", arguments: { command: "echo ran > marker.txt" } }]),
      textResponse(["denied"]),
      toolCallResponse([{ call_id: "r1", name: "read", arguments: { path: "notes.txt" } }]),
      textResponse(["not read"]),
    );
    const acp = start(select("reject_once"));
    const sessionId = await newSession(acp);
    await acp.connection.agent.request("session/set_mode", { sessionId, modeId: "never" });
    expect((await prompt(acp, sessionId, "run it")).stopReason).toBe("end_turn");
    expect(acp.permissions).toEqual([]);
    expect(existsSync(join(harness.sandbox.workspace, "marker.txt"))).toBe(false);
    expect(callUpdates(acp.updates, "b1").at(-1)!.status).toBe("failed");
    await acp.connection.agent.request("session/set_mode", { sessionId, modeId: "always" });
    expect((await prompt(acp, sessionId, "read it")).stopReason).toBe("end_turn");
    expect(acp.permissions.map((request) => request.toolCall.toolCallId)).toEqual(["r1"]);
    expect(JSON.stringify(callUpdates(acp.updates, "r1"))).not.toContain("secret plans");
    const bad = await acp.connection.agent.request("session/set_mode", { sessionId, modeId: "yolo" }).then(
      () => undefined,
      (error: { code?: number; message?: string }) => error,
    );
    expect(bad).toMatchObject({ code: -32602, message: expect.stringContaining("unknown mode yolo") });
  });

  it("ends a turn cut at the token limit with max_tokens and one the content filter stopped with refusal", async () => {
    harness.provider.push(
      { events: [sse.textDelta("a long ans"), sse.incomplete("max_output_tokens")] },
      { events: [sse.textDelta("I can"), sse.incomplete("content_filter")] },
    );
    const acp = start();
    const sessionId = await newSession(acp);
    expect((await prompt(acp, sessionId, "write a novel")).stopReason).toBe("max_tokens");
    expect((await prompt(acp, sessionId, "something filtered")).stopReason).toBe("refusal");
  });

  it("cancels a turn waiting on a permission request: the call never runs", async () => {
    harness.provider.push(
      toolCallResponse([{ call_id: "call_b", name: "bash", arguments: { command: "echo ran > marker.txt" } }]),
    );
    let answerLater!: () => void;
    const asked = new Promise<void>((resolve) => (answerLater = resolve));
    // The editor leaves the question open until the user cancels, then answers it cancelled (as ACP asks).
    const acp = start(async () => {
      await asked;
      return { outcome: { outcome: "cancelled" } };
    });
    const sessionId = await newSession(acp);
    const running = prompt(acp, sessionId, "make a marker");
    await waitFor(() => acp.permissions.length === 1, { what: "the permission request", timeoutMs: 10_000 });
    await acp.connection.agent.notify("session/cancel", { sessionId });
    expect((await running).stopReason).toBe("cancelled");
    answerLater();
    // A late answer runs nothing either: the engine withdrew the question with the turn. (A grace window for a
    // check that something does not happen; a busy machine can only make it pass for the wrong reason, never fail.)
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(existsSync(join(harness.sandbox.workspace, "marker.txt"))).toBe(false);
  });

  it("never shows the editor a file outside the workspace as a write's diff, even through a symlink", async () => {
    const outside = join(harness.sandbox.root, "outside-secret.txt");
    await writeFile(outside, "the outside secret\n");
    await symlink(outside, join(harness.sandbox.workspace, "link.txt"));
    harness.provider.push(
      toolCallResponse([
        { call_id: "w_link", name: "write", arguments: { path: "link.txt", content: "x", mode: "replace" } },
        {
          call_id: "w_dots",
          name: "write",
          arguments: { path: "../outside-secret.txt", content: "x", mode: "replace" },
        },
      ]),
      textResponse(["done"]),
    );
    const acp = start(select("reject_once"));
    const sessionId = await newSession(acp);
    await prompt(acp, sessionId, "overwrite them");
    expect(callUpdates(acp.updates, "w_link")[0]).toMatchObject({ sessionUpdate: "tool_call", kind: "edit" });
    expect(JSON.stringify(acp.lines())).not.toContain("the outside secret");
    expect(await readFile(outside, "utf8")).toBe("the outside secret\n");
  });

  it("serves two sessions on one connection, each in its own workspace", async () => {
    const other = join(harness.sandbox.root, "other");
    await mkdir(other);
    harness.provider.push(textResponse(["one"]), textResponse(["two"]));
    const acp = start();
    const first = await newSession(acp);
    const { sessionId: second } = await acp.connection.agent.request("session/new", { cwd: other, mcpServers: [] });
    expect(second).not.toBe(first);
    expect((await prompt(acp, first, "a")).stopReason).toBe("end_turn");
    expect((await prompt(acp, second, "b")).stopReason).toBe("end_turn");
    const textOf = (id: string) => messageText(acp.updates.filter((update) => update.sessionId === id));
    expect([textOf(first), textOf(second)]).toEqual(["one", "two"]);
  });

  it("shows a command's latest output line as its progress, and all of its output at the end", async () => {
    const command = "for i in $(seq 1 30); do echo line$i; sleep 0.02; done";
    harness.provider.push(
      toolCallResponse([{ call_id: "loud", name: "bash", arguments: { command } }]),
      textResponse(["done"]),
    );
    const acp = start(select("allow_once"));
    const sessionId = await newSession(acp);
    expect((await prompt(acp, sessionId, "count")).stopReason).toBe("end_turn");
    const updates = callUpdates(acp.updates, "loud");
    const final = JSON.stringify(updates.at(-1)!.content);
    expect(final).toContain("line1\\n");
    expect(final).toContain("line30");
    const progress = updates.filter((update) => update.sessionUpdate === "tool_call_update" && update.status == null);
    expect(progress.length).toBeGreaterThan(0);
    for (const update of progress) expect(JSON.stringify(update.content)).toMatch(/"text":"line\d+"/);
  });

  it("refuses session/new with the engine's reason when no credential is configured, and stays up", async () => {
    const acp = startAcp(harness, { env: { OPENAI_API_KEY: undefined } });
    run = acp;
    await acp.connection.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    const refused = await acp.connection.agent
      .request("session/new", { cwd: harness.sandbox.workspace, mcpServers: [] })
      .then(() => undefined, (failure: { code?: number; message?: string }) => failure);
    expect(refused).toMatchObject({ code: -32603, message: expect.stringContaining("could not start a session") });
    expect(refused?.message).toContain("OPENAI_API_KEY");
    const again = await acp.connection.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    expect(again.protocolVersion).toBe(1);
  });

  it("closes a session: its running prompt answers cancelled and the session is gone", async () => {
    harness.provider.push({ mode: "chunked", events: [sse.textDelta("partial")], end: "hang" });
    const acp = start();
    const sessionId = await newSession(acp);
    const running = prompt(acp, sessionId, "take your time");
    await waitFor(() => messageText(acp.updates).includes("partial"), { what: "the first chunk", timeoutMs: 10_000 });
    await acp.connection.agent.request("session/close", { sessionId });
    expect((await running).stopReason).toBe("cancelled");
    const gone = await prompt(acp, sessionId, "still there?").then(
      () => undefined,
      (failure: { code?: number; message?: string }) => failure,
    );
    expect(gone).toMatchObject({ code: -32602, message: expect.stringContaining("unknown session") });
  });
});
