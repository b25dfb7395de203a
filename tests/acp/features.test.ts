// `scv acp` beyond a single turn, driven by the SDK's client over real pipes against the fake provider: stored
// sessions (session/list, session/load after a restart), reasoning as agent_thought_chunk on both wires,
// usage_update, image prompts, and the MCP servers a client declares in session/new.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { mkdir, readdir, stat, symlink, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type ContentBlock, PROTOCOL_VERSION, type SessionNotification } from "@agentclientprotocol/sdk";
import { useCliHarness } from "../support/cli_harness.ts";
import { fakeProfileToml } from "../support/config_files.ts";
import { chat, chatTextResponse, sse, textResponse, toolCallResponse } from "../support/fake_provider.ts";
import { waitFor } from "../support/wait.ts";
import { type AcpRun, type PermissionAnswer, startAcp } from "./acp_client.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const EVERYTHING = join(ROOT, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const harness = useCliHarness();
const runs: AcpRun[] = [];

afterEach(() => {
  // Every line each agent wrote in the test must be valid ACP v1.
  for (const run of runs.splice(0)) expect(run.violations()).toEqual([]);
});

function start(permission?: PermissionAnswer): AcpRun {
  const run = startAcp(harness, permission ? { permission } : {});
  runs.push(run);
  return run;
}

async function initialize(acp: AcpRun) {
  return acp.connection.agent.request("initialize", { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
}

async function newSession(acp: AcpRun, mcpServers: Parameters<AcpRun["connection"]["agent"]["request"]>[1] = []) {
  await initialize(acp);
  const { sessionId } = await acp.connection.agent.request("session/new", {
    cwd: harness.sandbox.workspace,
    mcpServers: mcpServers as [],
  });
  return sessionId;
}

function prompt(acp: AcpRun, sessionId: string, blocks: ContentBlock[] | string) {
  const content = typeof blocks === "string" ? [{ type: "text" as const, text: blocks }] : blocks;
  return acp.connection.agent.request("session/prompt", { sessionId, prompt: content });
}

const failure = (promise: Promise<unknown>) =>
  promise.then(() => undefined, (error: { code?: number; message?: string }) => error);

function texts(updates: SessionNotification[], kind: string): string {
  return updates
    .map(({ update }) => {
      if (update.sessionUpdate !== kind || !("content" in update)) return "";
      const content = update.content as { type?: string; text?: string } | null | undefined;
      return content?.type === "text" ? content.text ?? "" : "";
    })
    .join("");
}

/** A PNG by its signature (the engine tells types by their first bytes), `size` bytes in all. */
function pngBytes(size = 64): Buffer {
  const bytes = Buffer.alloc(size, 7);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(bytes);
  return bytes;
}

async function useChatWire(): Promise<void> {
  await harness.sandbox.writeUserConfig(
    fakeProfileToml({ name: "local", baseUrl: harness.provider.url, model: "llama3.1", apiKey: "local" }) +
      'wire_api = "chat"\n',
  );
}

describe("scv acp: stored sessions", () => {
  it("lists a session after a restart, replays it on session/load, and continues its conversation", async () => {
    await writeFile(join(harness.sandbox.workspace, "notes.txt"), "remember the milk\n");
    harness.provider.push(
      toolCallResponse([{ call_id: "call_n", name: "read", arguments: { path: "notes.txt" } }]),
      textResponse(["The note says: remember the milk."]),
    );
    const first = start();
    const sessionId = await newSession(first);
    expect((await prompt(first, sessionId, "what does notes.txt say?")).stopReason).toBe("end_turn");
    first.process.child.kill("SIGKILL");
    await first.process.done;

    const second = start();
    const init = await initialize(second);
    expect(init.agentCapabilities?.loadSession).toBe(true);
    const listed = await waitFor(async () => {
      const { sessions } = await second.connection.agent.request("session/list", { cwd: harness.sandbox.workspace });
      return sessions.find((session) => session.sessionId === sessionId);
    }, { what: "the stored session in session/list", timeoutMs: 10_000 });
    expect(listed).toMatchObject({ title: "what does notes.txt say?" });
    expect(listed.cwd).toBe(await import("node:fs/promises").then((fs) => fs.realpath(harness.sandbox.workspace)));
    // Another workspace's listing does not hold it.
    const elsewhere = join(harness.sandbox.root, "elsewhere");
    await mkdir(elsewhere);
    const other = await second.connection.agent.request("session/list", { cwd: elsewhere });
    expect(other.sessions.map((session) => session.sessionId)).not.toContain(sessionId);

    const loaded = await second.connection.agent.request("session/load", {
      sessionId,
      cwd: harness.sandbox.workspace,
      mcpServers: [],
    });
    expect(loaded.modes?.currentModeId).toBe("on-risk");
    // Everything was replayed before the answer: the prompt, the call with its result, the answer.
    const replayed = second.updates.filter((notification) => notification.sessionId === sessionId);
    expect(texts(replayed, "user_message_chunk")).toBe("what does notes.txt say?");
    expect(texts(replayed, "agent_message_chunk")).toBe("The note says: remember the milk.");
    const call = replayed.map(({ update }) => update).filter((update) =>
      (update.sessionUpdate === "tool_call" || update.sessionUpdate === "tool_call_update") &&
      update.toolCallId === "call_n"
    );
    expect(call.map((update) => update.sessionUpdate)).toEqual(["tool_call", "tool_call_update"]);
    expect(call[0]).toMatchObject({ kind: "read", title: "read: notes.txt", rawInput: { path: "notes.txt" } });
    expect(call[1]).toMatchObject({ status: "completed" });
    expect(JSON.stringify(call[1])).toContain("remember the milk");
    expect(replayed.map(({ update }) => update.sessionUpdate).indexOf("user_message_chunk")).toBe(0);

    // The follow-up continues that conversation: the provider gets the earlier turn.
    harness.provider.push(textResponse(["Milk, yes."]));
    expect((await prompt(second, sessionId, "and again?")).stopReason).toBe("end_turn");
    const request = JSON.stringify(harness.provider.requests.at(-1)!.body.input);
    expect(request).toContain("what does notes.txt say?");
    expect(request).toContain("The note says: remember the milk.");
    expect(request).toContain("and again?");
    expect(request.indexOf("what does notes.txt say?")).toBeLessThan(request.indexOf("and again?"));
  });

  it("refuses to load an unknown session or one of another workspace, and stays up", async () => {
    harness.provider.push(textResponse(["stored"]));
    const acp = start();
    const sessionId = await newSession(acp);
    await prompt(acp, sessionId, "keep me");
    const missing = await failure(
      acp.connection.agent.request("session/load", {
        sessionId: "00000000-0000-4000-8000-000000000000",
        cwd: harness.sandbox.workspace,
        mcpServers: [],
      }),
    );
    expect(missing).toMatchObject({ code: -32002, message: expect.stringContaining("was not found") });
    // A path-like id never reaches the file system as a path.
    const traversal = await failure(
      acp.connection.agent.request("session/load", {
        sessionId: "../../etc/passwd",
        cwd: harness.sandbox.workspace,
        mcpServers: [],
      }),
    );
    expect(traversal).toMatchObject({ code: -32002 });
    const elsewhere = join(harness.sandbox.root, "elsewhere");
    await mkdir(elsewhere);
    const wrongPlace = await failure(
      acp.connection.agent.request("session/load", { sessionId, cwd: elsewhere, mcpServers: [] }),
    );
    expect(wrongPlace).toMatchObject({ code: -32602, message: expect.stringContaining("belongs to the workspace") });
    const open = await failure(
      acp.connection.agent.request("session/load", { sessionId, cwd: harness.sandbox.workspace, mcpServers: [] }),
    );
    expect(open).toMatchObject({ code: -32600, message: expect.stringContaining("already open") });
    const badCursor = await failure(acp.connection.agent.request("session/list", { cursor: "nonsense" }));
    expect(badCursor).toMatchObject({ code: -32602, message: expect.stringContaining("cursor") });
    // Still serving.
    const { sessions } = await acp.connection.agent.request("session/list", {});
    expect(sessions.map((session) => session.sessionId)).toContain(sessionId);
  });
});

describe("scv acp: reasoning and usage", () => {
  it("streams a Responses reasoning summary as agent_thought_chunk and reports usage_update", async () => {
    await harness.sandbox.writeUserConfig("[context]\nmax_tokens = 50000\n");
    harness.provider.push({
      events: [
        { type: "response.reasoning_summary_text.delta", delta: "Thinking about " },
        { type: "response.reasoning_summary_text.delta", delta: "greetings." },
        sse.textDelta("Hello."),
        sse.completed({ input_tokens: 1200, output_tokens: 34 }),
      ],
    });
    const acp = start();
    const sessionId = await newSession(acp);
    expect((await prompt(acp, sessionId, "greet me")).stopReason).toBe("end_turn");
    expect(texts(acp.updates, "agent_thought_chunk")).toBe("Thinking about greetings.");
    // The reasoning is not part of the answer.
    expect(texts(acp.updates, "agent_message_chunk")).toBe("Hello.");
    const usage = acp.updates.map(({ update }) => update).filter((update) => update.sessionUpdate === "usage_update");
    expect(usage).toEqual([expect.objectContaining({ used: 1234, size: 50000 })]);
    // fake-model has no price: no cost rather than a cost of 0.
    expect(usage[0]).not.toHaveProperty("cost");
    // Sent before the prompt's answer, after the answer's text.
    const kinds = acp.updates.map(({ update }) => update.sessionUpdate);
    expect(kinds.at(-1)).toBe("usage_update");
    expect(kinds.indexOf("agent_thought_chunk")).toBeLessThan(kinds.indexOf("agent_message_chunk"));
  });

  it("adds the session's cost so far to usage_update when the model's price is known", async () => {
    await harness.sandbox.writeUserConfig(
      '[context]\nmax_tokens = 50000\n[model_prices."fake-model"]\ninput = 1\noutput = 10\n',
    );
    // 1000 in at $1 and 100 out at $10 per million tokens: $0.002 a turn.
    harness.provider.push(
      textResponse(["one"], { input_tokens: 1000, output_tokens: 100 }),
      textResponse(["two"], { input_tokens: 1000, output_tokens: 100 }),
    );
    const acp = start();
    const sessionId = await newSession(acp);
    expect((await prompt(acp, sessionId, "first")).stopReason).toBe("end_turn");
    expect((await prompt(acp, sessionId, "second")).stopReason).toBe("end_turn");
    const usage = acp.updates.map(({ update }) => update).filter((update) => update.sessionUpdate === "usage_update");
    expect(usage).toEqual([
      expect.objectContaining({ used: 1100, cost: { amount: 0.002, currency: "USD" } }),
      expect.objectContaining({ used: 1100, cost: { amount: 0.004, currency: "USD" } }),
    ]);
  });

  it("reports how full the context is after a turn of several requests, not the sum of their counts", async () => {
    await harness.sandbox.writeUserConfig("[context]\nmax_tokens = 50000\n");
    await writeFile(join(harness.sandbox.workspace, "notes.txt"), "x\n");
    harness.provider.push(
      {
        events: [
          ...sse.toolCall("call_u", "read", { path: "notes.txt" }),
          sse.completed({ input_tokens: 1000, output_tokens: 10 }),
        ],
      },
      textResponse(["read"], { input_tokens: 1500, output_tokens: 20 }),
    );
    const acp = start();
    const sessionId = await newSession(acp);
    expect((await prompt(acp, sessionId, "read notes")).stopReason).toBe("end_turn");
    const usage = acp.updates.map(({ update }) => update).filter((update) => update.sessionUpdate === "usage_update");
    expect(usage).toEqual([expect.objectContaining({ used: 1520, size: 50000 })]);
  });

  it("streams chat reasoning_content as agent_thought_chunk", async () => {
    await useChatWire();
    harness.provider.push({
      events: [
        chat.delta({ role: "assistant", reasoning_content: "Let me see" }),
        chat.delta({ reasoning_content: " the files." }),
        chat.text("Done."),
        chat.finish("stop"),
        chat.usage(300, 5),
        chat.done(),
      ],
    });
    const acp = start();
    const sessionId = await newSession(acp);
    expect((await prompt(acp, sessionId, "look")).stopReason).toBe("end_turn");
    expect(texts(acp.updates, "agent_thought_chunk")).toBe("Let me see the files.");
    expect(texts(acp.updates, "agent_message_chunk")).toBe("Done.");
    const usage = acp.updates.map(({ update }) => update).find((update) => update.sessionUpdate === "usage_update");
    expect(usage).toMatchObject({ used: 305 });
    expect((usage as { size: number }).size).toBeGreaterThan(0);
  });

  it("streams chat `reasoning` deltas too, and sends no usage_update when the provider counted nothing", async () => {
    await useChatWire();
    harness.provider.push(
      {
        events: [chat.delta({ reasoning: "hmm" }), chat.text("ok"), chat.finish("stop"), chat.done()],
      },
    );
    const acp = start();
    const sessionId = await newSession(acp);
    expect((await prompt(acp, sessionId, "go")).stopReason).toBe("end_turn");
    expect(texts(acp.updates, "agent_thought_chunk")).toBe("hmm");
    expect(acp.updates.some(({ update }) => update.sessionUpdate === "usage_update")).toBe(false);
  });
});

describe("scv acp: image prompts", () => {
  it("sends an image block to the Responses provider as input_image", async () => {
    harness.provider.push(textResponse(["a red square"]));
    const acp = start();
    const sessionId = await newSession(acp);
    const data = pngBytes().toString("base64");
    const response = await prompt(acp, sessionId, [
      { type: "text", text: "what is this?" },
      { type: "image", data, mimeType: "image/png", uri: "file:///tmp/shot.png" },
    ]);
    expect(response.stopReason).toBe("end_turn");
    const input = harness.provider.requests[0]!.body.input as Array<{ role?: string; content?: unknown }>;
    const user = input.find((item) => item.role === "user")!;
    expect(user.content).toEqual([
      { type: "input_text", text: expect.stringContaining("what is this?") },
      { type: "input_image", image_url: `data:image/png;base64,${data}` },
    ]);
    expect(JSON.stringify(user.content)).toContain("shot.png");
    // The image is kept in the workspace, where the engine reads attachments from, readable by the user only.
    const directory = join(harness.sandbox.workspace, ".scv", "attachments");
    const stored = await readdir(directory);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatch(/^[0-9a-f-]{36}\.png$/);
    expect((await stat(join(directory, stored[0]!))).mode & 0o777).toBe(0o600);
  });

  it("sends an image-only prompt to the chat provider as image_url", async () => {
    await useChatWire();
    harness.provider.push(chatTextResponse(["an image"]));
    const acp = start();
    const sessionId = await newSession(acp);
    const data = pngBytes(100).toString("base64");
    expect((await prompt(acp, sessionId, [{ type: "image", data, mimeType: "image/png" }])).stopReason).toBe(
      "end_turn",
    );
    const messages = harness.provider.requests[0]!.body.messages as Array<{ role: string; content: unknown }>;
    const user = messages.find((message) => message.role === "user")!;
    expect(user.content).toEqual([
      { type: "text", text: expect.stringContaining("[The user attached:]") },
      { type: "image_url", image_url: { url: `data:image/png;base64,${data}` } },
    ]);
  });

  it("refuses a bad mime type, an oversized image and bad data, saying what failed, and stays up", async () => {
    const acp = start();
    const sessionId = await newSession(acp);
    const bmp = await failure(
      prompt(acp, sessionId, [{ type: "text", text: "see" }, { type: "image", data: "Qk0=", mimeType: "image/bmp" }]),
    );
    expect(bmp).toMatchObject({ code: -32602, message: expect.stringContaining('type "image/bmp"') });
    expect(bmp?.message).toContain("image/png, image/jpeg, image/gif, image/webp");
    // One byte over 8 MiB.
    const big = pngBytes(8 * 1024 * 1024 + 1).toString("base64");
    const oversized = await failure(prompt(acp, sessionId, [{ type: "image", data: big, mimeType: "image/png" }]));
    expect(oversized).toMatchObject({ code: -32602, message: expect.stringContaining("at most 8 MiB") });
    // The declared type must be what the bytes are.
    const jpegBytes = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0, 0, 0, 0, 0, 0, 0]).toString("base64");
    const mislabelled = await failure(
      prompt(acp, sessionId, [{ type: "image", data: jpegBytes, mimeType: "image/png" }]),
    );
    expect(mislabelled).toMatchObject({ code: -32602, message: expect.stringContaining("image/jpeg") });
    const notBase64 = await failure(prompt(acp, sessionId, [{ type: "image", data: "%%%", mimeType: "image/png" }]));
    expect(notBase64).toMatchObject({ code: -32602, message: expect.stringContaining("not base64") });
    const audio = await failure(
      prompt(acp, sessionId, [{ type: "audio", data: "AAAA", mimeType: "audio/wav" }]),
    );
    expect(audio).toMatchObject({ code: -32602, message: expect.stringContaining("not audio") });
    expect(harness.provider.requests).toHaveLength(0);
    // Nothing refused was kept.
    const directory = join(harness.sandbox.workspace, ".scv", "attachments");
    expect(existsSync(directory) ? await readdir(directory) : []).toEqual([]);
    // Still serving, in the same session.
    harness.provider.push(textResponse(["still here"]));
    expect((await prompt(acp, sessionId, "hello?")).stopReason).toBe("end_turn");
  });

  it("never writes an image through a planted .scv symlink out of the workspace", async () => {
    const outside = join(harness.sandbox.root, "outside");
    await mkdir(outside);
    await symlink(outside, join(harness.sandbox.workspace, ".scv"));
    const acp = start();
    const sessionId = await newSession(acp);
    const refused = await failure(
      prompt(acp, sessionId, [{ type: "image", data: pngBytes().toString("base64"), mimeType: "image/png" }]),
    );
    expect(refused).toMatchObject({
      code: -32602,
      message: expect.stringContaining("cannot store the prompt's image"),
    });
    expect(await readdir(outside)).toEqual([]);
    expect(harness.provider.requests).toHaveLength(0);
  });
});

describe("scv acp: MCP servers from session/new", () => {
  it("starts a stdio server for that session and offers its tools to the provider", async () => {
    harness.provider.push(textResponse(["I could echo"]));
    const acp = start();
    const sessionId = await newSession(acp, [
      { name: "everything", command: process.execPath, args: [EVERYTHING], env: [] },
    ]);
    // The first turn waits for the session's servers to start, so its request offers their tools.
    expect((await prompt(acp, sessionId, "what can you do?")).stopReason).toBe("end_turn");
    const tools = harness.provider.requests[0]!.body.tools as Array<{ name: string }>;
    expect(tools.map((tool) => tool.name)).toContain("mcp__everything__echo");
    // Another session of the same agent does not get them.
    harness.provider.push(textResponse(["plain"]));
    const { sessionId: plain } = await acp.connection.agent.request("session/new", {
      cwd: harness.sandbox.workspace,
      mcpServers: [],
    });
    await prompt(acp, plain, "no servers here");
    const plainTools = harness.provider.requests.at(-1)!.body.tools as Array<{ name: string }>;
    expect(plainTools.some((tool) => tool.name.startsWith("mcp__"))).toBe(false);
  });

  it("connects a streamable HTTP server on 127.0.0.1 and runs its tool once the user allows it", async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [EVERYTHING, "streamableHttp"], {
      env: { PATH: process.env.PATH ?? "", PORT: String(port) },
      stdio: ["ignore", "ignore", "pipe"],
    });
    try {
      let log = "";
      child.stderr!.on("data", (chunk: Buffer) => (log += chunk.toString()));
      await waitFor(() => log.includes("listening"), { what: "the HTTP MCP server", timeoutMs: 20_000 });
      harness.provider.push(
        toolCallResponse([{ call_id: "h1", name: "mcp__web__echo", arguments: { message: "over http" } }]),
        textResponse(["done"]),
      );
      const acp = start(() => ({ outcome: { outcome: "selected", optionId: "allow_once" } }));
      const sessionId = await newSession(acp, [
        { type: "http", name: "web", url: `http://127.0.0.1:${port}/mcp`, headers: [{ name: "X-Test", value: "1" }] },
      ]);
      expect((await prompt(acp, sessionId, "echo over http")).stopReason).toBe("end_turn");
      const tools = harness.provider.requests[0]!.body.tools as Array<{ name: string }>;
      expect(tools.map((tool) => tool.name)).toContain("mcp__web__echo");
      const result = acp.updates.map(({ update }) => update).find((update) =>
        update.sessionUpdate === "tool_call_update" && update.toolCallId === "h1" && update.status === "completed"
      );
      expect(JSON.stringify(result)).toContain("Echo: over http");
    } finally {
      child.kill("SIGKILL");
    }
  });

  it("refuses an SSE server and a relative command with errors that name the server", async () => {
    const acp = start();
    await initialize(acp);
    const sseServer = await failure(
      acp.connection.agent.request("session/new", {
        cwd: harness.sandbox.workspace,
        mcpServers: [{ type: "sse", name: "old", url: "http://127.0.0.1:9/sse", headers: [] }],
      }),
    );
    expect(sseServer).toMatchObject({ code: -32602, message: expect.stringContaining('MCP server "old"') });
    expect(sseServer?.message).toContain("SSE");
    const relative = await failure(
      acp.connection.agent.request("session/new", {
        cwd: harness.sandbox.workspace,
        mcpServers: [{ name: "rel", command: "node", args: [], env: [] }],
      }),
    );
    expect(relative).toMatchObject({ code: -32602, message: expect.stringContaining("absolute path") });
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
