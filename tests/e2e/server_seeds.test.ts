// Ports of /work/shared/seeds/server_stdio_tests.rs against the real CLI (`node main.ts server --stdio`) and a
// real fake Responses provider on 127.0.0.1 answering with Content-Length + Connection: close.
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { fakeProfileToml } from "../support/config_files.ts";
import { sse, textResponse } from "../support/fake_provider.ts";
import { type ServerClient, type ServerEvent, spawnServer } from "../support/server_client.ts";
import { terminal, useServerHarness } from "../support/server_harness.ts";

const harness = useServerHarness();

const flagsFor = harness.flags;
const untilTerminal = (client: ServerClient): Promise<ServerEvent> => terminal(client);

describe("server seeds", () => {
  it("handshake and session.start with no config and only OPENAI_API_KEY", async () => {
    const client = spawnServer({ env: harness.sandbox.env({ OPENAI_API_KEY: "test-only" }) });
    client.sendRaw(
      [
        JSON.stringify({
          type: "initialize",
          request_id: "1",
          protocol_version: 3,
          client: { name: "test", version: "0" },
        }),
        JSON.stringify({ type: "session.start", request_id: "2", cwd: harness.sandbox.workspace }),
        "",
      ].join("\n"),
    );
    client.closeStdin();
    const first = await client.next();
    const second = await client.next();
    expect(first).toEqual({
      type: "initialized",
      request_id: "1",
      protocol_version: 3,
      server: { name: "scv-server", version: "0.1.0" },
    });
    expect(second.type).toBe("session.started");
    expect(Object.keys(second)).toEqual([
      "type",
      "request_id",
      "session_id",
      "cwd",
      "model",
      "context_max_tokens",
      "max_server_frame_bytes",
      "max_transcript_bytes",
      "max_transcript_items",
      "max_prompt_history_bytes",
      "max_prompt_history_items",
      "context_window",
      // Additive (issue 28): the policy in force, so a client can show it.
      "approval_policy",
      "policy",
    ]);
    expect(second).toMatchObject({
      request_id: "2",
      cwd: harness.sandbox.workspace,
      model: "gpt-4.1-mini",
      // No [context] max_tokens: the known window of gpt-4.1-mini (issue 14).
      context_max_tokens: 1047576,
      context_window: { tokens: 1047576, source: "known_model" },
      max_server_frame_bytes: 8388608,
      max_transcript_bytes: 8388608,
      max_transcript_items: 10000,
      max_prompt_history_bytes: 1048576,
      max_prompt_history_items: 200,
      approval_policy: "on-risk",
      policy: { mode: "on-risk", mode_origin: "default", rules: [] },
    });
    expect(second.session_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const snapshot = await client.next();
    expect(snapshot).toEqual({
      type: "queue.snapshot",
      request_id: null,
      session_id: second.session_id,
      seq: 1,
      entries: [],
      paused: false,
    });
    expect((await client.exit()).code).toBe(0);
  });

  it("completes a streamed turn with a fake provider", async () => {
    await harness.startProvider([textResponse(["hello ", "from fake"], { input_tokens: 7, output_tokens: 3 })]);
    const client = spawnServer({
      args: flagsFor(harness.provider.url),
      env: harness.sandbox.env({ OPENAI_API_KEY: "test-only" }),
    });
    await client.start({ cwd: harness.sandbox.workspace });
    client.turn("say hello");
    let streamed = "";
    for (;;) {
      const event = await client.next();
      if (event.type === "assistant.delta") streamed += event.content;
      if (event.type === "turn.failed") throw new Error(`turn failed: ${event.message}`);
      if (event.type === "turn.completed") {
        expect(event.usage).toEqual({ input_tokens: 7, output_tokens: 3 });
        expect(event.steps).toBe(1);
        break;
      }
    }
    expect(streamed).toBe("hello from fake");
    expect(harness.provider.requests[0]!.requestLine).toBe("POST /v1/responses HTTP/1.1");
    expect(harness.provider.requests[0]!.body.model).toBe("fake-model");
    await client.finish();
  });

  it("a provider stream error fails the turn instead of completing empty, without retry", async () => {
    await harness.startProvider([{ events: [sse.error("model is not available", "invalid_request_error")] }]);
    const client = spawnServer({
      args: flagsFor(harness.provider.url),
      env: harness.sandbox.env({ OPENAI_API_KEY: "test-only" }),
    });
    await client.start({ cwd: harness.sandbox.workspace });
    client.turn("say hello");
    const terminal = await untilTerminal(client);
    expect(terminal.type).toBe("turn.failed");
    expect(terminal.code).toBe("provider_error");
    expect(terminal.message).toContain("model is not available");
    expect(client.events.some((event) => event.type === "assistant.completed")).toBe(false);
    expect(client.events.some((event) => event.type === "turn.completed")).toBe(false);
    await client.finish();
    expect(harness.provider.connections()).toBe(1);
  });

  it("replays tool results after their calls with exactly three input items", async () => {
    await writeFile(path.join(harness.sandbox.workspace, "README.md"), "fixture text");
    await harness.startProvider([
      {
        omitEventLine: true,
        events: [
          {
            raw:
              'data: {"type":"response.function_call_arguments.delta","output_index":0,"delta":"{\\"path\\":\\"README.md\\"}"}\n\n',
          },
          sse.callDone("call_1", "read"),
          sse.completed(),
        ],
      },
      { omitEventLine: true, events: [sse.textDelta("read it"), sse.completed()] },
    ]);
    const client = spawnServer({
      args: flagsFor(harness.provider.url),
      env: harness.sandbox.env({ OPENAI_API_KEY: "test-only" }),
    });
    await client.start({ cwd: harness.sandbox.workspace });
    client.turn("read the README");
    const terminal = await untilTerminal(client);
    expect(terminal.type, JSON.stringify(terminal)).toBe("turn.completed");
    // The read ran unasked (read_only under on-risk).
    expect(client.events.some((event) => event.type === "approval.requested")).toBe(false);
    await client.finish();
    const replayed = harness.provider.requests[1]!.body.input;
    expect(replayed).toHaveLength(3);
    expect(replayed[1]).toEqual({
      type: "function_call",
      call_id: "call_1",
      name: "read",
      arguments: '{"path":"README.md"}',
    });
    expect(replayed[2].type).toBe("function_call_output");
    expect(replayed[2].call_id).toBe("call_1");
    expect(replayed[2].output).toContain("fixture text");
  });

  it("web_fetch is auto-approved only for allowlisted https hosts", async () => {
    const call = (id: string, url: string) => ({
      omitEventLine: true,
      events: [...sse.toolCall(id, "web_fetch", { url }), sse.completed()],
    });
    await harness.startProvider([
      call("call_1", "https://localhost:9/docs"),
      call("call_2", "http://example.invalid/?q=secret"),
      { omitEventLine: true, events: [sse.textDelta("done"), sse.completed()] },
    ]);
    await harness.sandbox.writeUserConfig(
      `${
        fakeProfileToml({ baseUrl: harness.provider.url })
      }\n[web]\nauto_approve_domains = ["localhost"]\nsearch = "provider"\n`,
    );
    const client = spawnServer({ env: harness.sandbox.env() });
    await client.start({ cwd: harness.sandbox.workspace });
    client.turn("read the docs");
    const approvals: ServerEvent[] = [];
    const completed: ServerEvent[] = [];
    for (;;) {
      const event = await client.next(undefined, 10_000);
      if (event.type === "approval.requested") {
        approvals.push(event);
        client.send({
          type: "approval.resolve",
          request_id: "deny",
          session_id: client.sessionId,
          approval_id: event.approval_id,
          approved: false,
        });
      }
      if (event.type === "tool.completed") completed.push(event);
      if (event.type === "turn.failed") throw new Error(`turn failed: ${event.message}`);
      if (event.type === "turn.completed") break;
    }
    await client.finish();
    expect(approvals).toHaveLength(1);
    expect(approvals[0]).toMatchObject({ call_id: "call_2", name: "web_fetch", risk: "network" });
    expect(approvals[0]!.summary).toContain("example.invalid");
    expect(completed.map((event) => event.call_id)).toEqual(["call_1", "call_2"]);
    expect(completed[0]!.success).toBe(false);
    expect(completed[0]!.output).toContain("non-public");
    expect(completed[1]!.output).toContain("denied");
    const tools = harness.provider.requests[0]!.body.tools;
    expect(tools.some((tool: { name?: string; type?: string }) => tool.name === "web_fetch")).toBe(true);
    expect(tools).toContainEqual({ type: "web_search" });
  });

  it("tool-free sessions send no tools key", async () => {
    await harness.startProvider([textResponse(["hi"])]);
    await harness.sandbox.writeUserConfig(
      `${fakeProfileToml({ baseUrl: harness.provider.url })}\n[web]\nsearch = "provider"\n`,
    );
    const client = spawnServer({ env: harness.sandbox.env() });
    await client.start({ cwd: harness.sandbox.workspace, no_tools: true });
    client.turn("search the web");
    const terminal = await untilTerminal(client);
    expect(terminal.type, JSON.stringify(terminal)).toBe("turn.completed");
    await client.finish();
    expect(harness.provider.requests[0]!.body).not.toHaveProperty("tools");
    expect(harness.provider.requests[0]!.headers.authorization).toBe("Bearer test-only");
  });
});
