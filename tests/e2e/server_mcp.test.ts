// MCP servers (issue 18) through `scv server --stdio` against real reference servers nobody here wrote
// (@modelcontextprotocol/server-everything, server-filesystem) and the scripted fake provider.
// deno-lint-ignore-file no-explicit-any -- reads untyped wire JSON (request bodies, JSON-RPC messages)
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import path from "node:path";
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { type FakeResponse, textResponse, toolCallResponse } from "../support/fake_provider.ts";
import type { ServerClient, ServerEvent } from "../support/server_client.ts";
import { resolveApproval, terminal, useServerHarness } from "../support/server_harness.ts";
import { HANG_MS, waitFor } from "../support/wait.ts";
import { alive } from "../support/process_alive.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const EVERYTHING = path.join(ROOT, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const FILESYSTEM = path.join(ROOT, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
const WAIT_MS = HANG_MS;
// The default startup_timeout_sec (10 s) can pass while a busy machine starts a Node MCP server: the servers here get
// until the hang deadline, unless a test sets its own.
const STARTUP = `startup_timeout_sec = ${HANG_MS / 1000}`;

const harness = useServerHarness();

const toml = (entries: Record<string, string>) =>
  Object.entries(entries)
    .map(([name, body]) => `[mcp_servers.${name}]\n${body}\n`)
    .join("");
const stdio = (script: string, args: string[] = [], extra = "") =>
  `command = ${JSON.stringify(process.execPath)}\nargs = ${JSON.stringify([script, ...args])}\n${
    extra.includes("startup_timeout_sec") ? extra : `${extra}\n${STARTUP}`
  }`;

function start(
  script: FakeResponse[],
  servers: Record<string, string>,
  env?: Record<string, string>,
): Promise<ServerClient> {
  return harness.startServer(script, { toml: toml(servers), ...(env ? { env } : {}) });
}

async function statusOf(client: ServerClient, server: string, states: string[]): Promise<ServerEvent> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const found = client.events.find((event) =>
      event.type === "mcp.server_status" && event.server === server && states.includes(event.state)
    );
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no ${states.join("/")} status for ${server}: ${client.stderr}`);
    await client.next("mcp.server_status", WAIT_MS).catch(() => undefined);
  }
}

const completed = (client: ServerClient, callId: string) =>
  client.events.find((event) => event.type === "tool.completed" && event.call_id === callId)!;

describe("MCP tools over stdio", () => {
  it("lists server-everything's tools with their schemas and round-trips echo and get-sum", async () => {
    const client = await start(
      [
        toolCallResponse([
          { call_id: "e1", name: "mcp__everything__echo", arguments: { message: "hello mcp" } },
          { call_id: "s1", name: "mcp__everything__get-sum", arguments: { a: 2, b: 40 } },
        ]),
        textResponse(["done"]),
      ],
      { everything: stdio(EVERYTHING, [], 'disabled_tools = ["toggle-simulated-logging"]') },
    );
    // session.started came first (not delayed by the server); the server reports itself afterwards.
    const started = client.events.findIndex((event) => event.type === "session.started");
    const firstStatus = (await statusOf(client, "everything", ["starting"])) as ServerEvent;
    expect(client.events.indexOf(firstStatus)).toBeGreaterThan(started);
    client.turn("go");
    const end = await terminal(client, WAIT_MS);
    expect(end.type).toBe("turn.completed");
    const ready = await statusOf(client, "everything", ["ready"]);
    expect(ready).toMatchObject({ transport: "stdio", session_id: client.sessionId });
    expect(ready.tools).toEqual(expect.arrayContaining(["echo", "get-sum", "get-tiny-image"]));
    expect(ready.tools).not.toContain("toggle-simulated-logging");
    const tools = harness.provider.requests[0]!.body.tools;
    expect(tools.some((tool: any) => tool.name === "mcp__everything__toggle-simulated-logging")).toBe(false);
    const echo = tools.find((tool: any) => tool.name === "mcp__everything__echo");
    expect(echo.parameters).toMatchObject({
      type: "object",
      properties: { message: { type: "string" } },
      required: ["message"],
    });
    expect(echo.description).toContain("MCP server everything, tool echo");
    // The exec description declares the MCP tools as TypeScript.
    const exec = tools.find((tool: any) => tool.name === "exec");
    expect(exec.description).toContain("declare function mcp__everything__echo(args: { message: string;");
    expect(exec.description).toMatch(/declare function mcp__everything__get_sum\(args: \{ a: number;.* b: number;/);
    expect(completed(client, "e1")).toMatchObject({ success: true, output: "Echo: hello mcp" });
    expect(completed(client, "s1").success).toBe(true);
    expect(completed(client, "s1").output).toContain("42");
    // Both are readOnlyHint: nothing asked.
    expect(client.events.some((event) => event.type === "approval.requested")).toBe(false);
    await client.finish();
  });

  it("turns an image into a placeholder naming its type and size, and never passes scv's keys to the child", async () => {
    const client = await start(
      [
        toolCallResponse([
          { call_id: "i1", name: "mcp__everything__get-tiny-image", arguments: {} },
          { call_id: "v1", name: "mcp__everything__get-env", arguments: {} },
        ]),
        textResponse(["done"]),
      ],
      { everything: stdio(EVERYTHING, [], 'env = { GIVEN = "by-config" }') },
      { OPENAI_API_KEY: "sk-secret-of-scv", SOME_TOKEN: "also-secret" },
    );
    client.turn("go");
    expect((await terminal(client, WAIT_MS)).type).toBe("turn.completed");
    expect(completed(client, "i1").output).toMatch(/\[image: image\/png, \d+ bytes\]/);
    const env = completed(client, "v1").output;
    expect(env).toContain("by-config");
    expect(env).not.toContain("sk-secret-of-scv");
    expect(env).not.toContain("also-secret");
    expect(env).not.toContain("OPENAI_API_KEY");
    await client.finish();
  });

  it("reports progress as tool.progress and cuts a slow tool at tool_timeout_sec", async () => {
    const client = await start(
      [
        toolCallResponse([
          {
            call_id: "p1",
            name: "mcp__everything__trigger-long-running-operation",
            arguments: { duration: 1.2, steps: 3 },
          },
          { call_id: "t1", name: "mcp__slow__trigger-long-running-operation", arguments: { duration: 30, steps: 2 } },
        ]),
        textResponse(["done"]),
      ],
      { everything: stdio(EVERYTHING), slow: stdio(EVERYTHING, [], "tool_timeout_sec = 1") },
    );
    client.turn("go");
    expect((await terminal(client, WAIT_MS)).type).toBe("turn.completed");
    const progress = client.events.filter((event) => event.type === "tool.progress" && event.call_id === "p1");
    expect(progress.length).toBeGreaterThan(0);
    expect(progress[0]!.text).toMatch(/^\d+\/3/);
    expect(completed(client, "p1").success).toBe(true);
    const timedOut = completed(client, "t1");
    expect(timedOut).toMatchObject({ success: false, error: "limit" });
    expect(timedOut.output).toContain("timed out after 1 seconds (tool_timeout_sec)");
    await client.finish();
  });

  it("runs read-only filesystem tools unasked and asks for writes, naming server and tool", async () => {
    const workspace = harness.sandbox.workspace;
    await writeFile(path.join(workspace, "note.txt"), "from disk");
    const client = await start(
      [
        toolCallResponse([
          { call_id: "r1", name: "mcp__fs__read_text_file", arguments: { path: path.join(workspace, "note.txt") } },
          {
            call_id: "w1",
            name: "mcp__fs__write_file",
            arguments: { path: path.join(workspace, "out.txt"), content: "written" },
          },
        ]),
        textResponse(["done"]),
      ],
      { fs: stdio(FILESYSTEM, [workspace]) },
    );
    client.turn("go");
    const approval = await client.next("approval.requested", WAIT_MS);
    expect(approval).toMatchObject({ call_id: "w1", name: "mcp__fs__write_file", risk: "process" });
    expect(approval.summary).toContain("MCP server fs, tool write_file");
    expect(completed(client, "r1")).toMatchObject({ success: true, output: "from disk" });
    expect(existsSync(path.join(workspace, "out.txt"))).toBe(false);
    resolveApproval(client, approval.approval_id, true);
    expect((await terminal(client, WAIT_MS)).type).toBe("turn.completed");
    expect(completed(client, "w1").success).toBe(true);
    expect(await readFile(path.join(workspace, "out.txt"), "utf8")).toBe("written");
    await client.finish();
  });

  it("lets an exec cell loop over an MCP tool, each call nested and approved by its own risk", async () => {
    const code = [
      "const out = [];",
      "for (let i = 0; i < 5; i++) out.push(await tools.mcp__everything__echo({ message: `m${i}` }));",
      "const sum = await tools.mcp__everything__get_sum({ a: 1, b: 2 });",
      'const weather = await tools.mcp__everything__get_structured_content({ location: "Chicago" });',
      'text(out.join(",") + "|" + JSON.stringify(sum) + "|" + weather.conditions);',
    ].join("\n");
    const client = await start(
      [toolCallResponse([{ call_id: "x1", name: "exec", arguments: { code } }]), textResponse(["done"])],
      { everything: stdio(EVERYTHING) },
    );
    client.turn("go");
    expect((await terminal(client, WAIT_MS)).type).toBe("turn.completed");
    const exec = completed(client, "x1");
    expect(exec.success, exec.output).toBe(true);
    expect(exec.output.split("|")[0]).toBe("Echo: m0,Echo: m1,Echo: m2,Echo: m3,Echo: m4");
    const [, sum, conditions] = exec.output.split("|");
    expect(sum).toContain("3");
    // structuredContent reaches the cell as the value itself.
    expect(conditions).toBe("Light rain / drizzle");
    const nested = client.events.filter((event) =>
      event.type === "tool.proposed" && String(event.call_id).startsWith("x1:")
    );
    expect(nested.map((event) => event.name)).toEqual([
      ...Array(5).fill("mcp__everything__echo"),
      "mcp__everything__get-sum",
      "mcp__everything__get-structured-content",
    ]);
    await client.finish();
  });
});

describe("MCP tools in a cell that need approval", () => {
  it("asks for a nested write_file with its own call id; a denial rejects inside the cell", async () => {
    const workspace = harness.sandbox.workspace;
    const target = path.join(workspace, "cell.txt");
    const code = [
      "try {",
      `  await tools.mcp__fs__write_file({ path: ${JSON.stringify(target)}, content: "x" });`,
      '  text("wrote");',
      "} catch (error) {",
      '  text("refused: " + error);',
      "}",
    ].join("\n");
    const client = await start(
      [toolCallResponse([{ call_id: "x1", name: "exec", arguments: { code } }]), textResponse(["done"])],
      { fs: stdio(FILESYSTEM, [workspace]) },
    );
    client.turn("go");
    const approval = await client.next("approval.requested", WAIT_MS);
    expect(approval).toMatchObject({ call_id: "x1:tool-1", name: "mcp__fs__write_file" });
    expect(approval.summary).toContain("MCP server fs, tool write_file");
    resolveApproval(client, approval.approval_id, false);
    expect((await terminal(client, WAIT_MS)).type).toBe("turn.completed");
    expect(completed(client, "x1").output).toBe("refused: tool call denied by policy or user");
    expect(existsSync(target)).toBe(false);
    await client.finish();
  });
});

describe("MCP servers that fail", () => {
  it("reports a command that does not exist and a server that never answers initialize; the turn goes on without them", async () => {
    const hang = path.join(harness.sandbox.workspace, "hang.mjs");
    await writeFile(hang, "setInterval(() => {}, 1000);\n");
    const client = await start([textResponse(["fine"])], {
      missing: 'command = "/nonexistent/mcp-server-nope"',
      hang: stdio(hang, [], "startup_timeout_sec = 1"),
      everything: stdio(EVERYTHING),
    });
    const began = Date.now();
    client.turn("go");
    expect((await terminal(client, WAIT_MS)).type).toBe("turn.completed");
    // The first turn waited for every server to settle (the hanging one for its 1 s startup timeout).
    expect(Date.now() - began).toBeGreaterThanOrEqual(900);
    const missing = await statusOf(client, "missing", ["failed"]);
    expect(missing.reason).toMatch(/ENOENT|not found|no such file/i);
    const hung = await statusOf(client, "hang", ["failed"]);
    expect(hung.reason).toContain("within 1 seconds (startup_timeout_sec)");
    const names = harness.provider.requests[0]!.body.tools.map((tool: any) => tool.name);
    expect(names).toContain("mcp__everything__echo");
    expect(names.some((name: string) => name.startsWith("mcp__missing__") || name.startsWith("mcp__hang__"))).toBe(
      false,
    );
    expect(client.stderr).toContain("mcp server hang failed to start");
    await client.finish();
  });

  it("refuses a workspace config that adds a server, and never starts it", async () => {
    const marker = path.join(harness.sandbox.workspace, "started.txt");
    await harness.sandbox.writeProjectConfig(
      toml({
        evil: `command = ${JSON.stringify(process.execPath)}\nargs = ["-e", ${
          JSON.stringify(`require("fs").writeFileSync(${JSON.stringify(marker)}, "x")`)
        }]`,
      }),
    );
    const fake = await harness.startProvider([]);
    const { spawnServer } = await import("../support/server_client.ts");
    const client = spawnServer({ args: harness.flags(fake.url), env: harness.env() });
    await client.initialize();
    client.send({ type: "session.start", request_id: "s", cwd: harness.sandbox.workspace });
    const error = await client.next("error", WAIT_MS);
    expect(error.message).toBe(
      `project configuration ${
        path.join(harness.sandbox.workspace, ".scv", "config.toml")
      } cannot set [mcp_servers]: MCP servers are defined only in the user file or --config-path`,
    );
    // A grace window for a check that something does not happen (a busy machine can only make it pass, never fail).
    await client.quiet(500);
    expect(existsSync(marker)).toBe(false);
    await client.finish();
  });
});

describe("a server that dies mid-session", () => {
  it("is restarted once on the next call; after a second death its tools are gone", async () => {
    const pidFile = path.join(harness.sandbox.workspace, "pid");
    const wrapper = `echo $$ > ${JSON.stringify(pidFile)}; exec ${JSON.stringify(process.execPath)} ${
      JSON.stringify(EVERYTHING)
    }`;
    const echo = (id: string) =>
      toolCallResponse([{ call_id: id, name: "mcp__everything__echo", arguments: { message: id } }]);
    const client = await start([
      echo("a1"),
      textResponse(["one"]),
      echo("a2"),
      textResponse(["two"]),
      echo("a3"),
      textResponse(["three"]),
    ], {
      everything: `command = "/bin/sh"\nargs = ["-c", ${JSON.stringify(wrapper)}]`,
    });
    client.turn("first", "t1");
    expect((await terminal(client, WAIT_MS)).type).toBe("turn.completed");
    expect(completed(client, "a1")).toMatchObject({ success: true, output: "Echo: a1" });

    const firstPid = Number(await readFile(pidFile, "utf8"));
    process.kill(firstPid, "SIGKILL");
    expect((await statusOf(client, "everything", ["exited"])).reason).toContain("restarted on the next call");
    client.turn("second", "t2");
    expect((await terminal(client, WAIT_MS)).type).toBe("turn.completed");
    expect(completed(client, "a2")).toMatchObject({ success: true, output: "Echo: a2" });
    const secondPid = Number(await readFile(pidFile, "utf8"));
    expect(secondPid).not.toBe(firstPid);

    process.kill(secondPid, "SIGKILL");
    expect((await statusOf(client, "everything", ["failed"])).reason).toContain("exited again");
    client.turn("third", "t3");
    expect((await terminal(client, WAIT_MS)).type).toBe("turn.completed");
    expect(completed(client, "a3")).toMatchObject({ success: false, error: "unknown_tool" });
    await client.finish();
  });
});

describe("MCP server processes", () => {
  it("are killed with the session, even one that ignores stdin and is still starting", async () => {
    const hang = path.join(harness.sandbox.workspace, "hang.mjs");
    await writeFile(hang, "process.stdin.resume(); process.stdin.on('end', () => {}); setInterval(() => {}, 1000);\n");
    const pidFile = path.join(harness.sandbox.workspace, "pid");
    const wrapper = `echo $$ > ${JSON.stringify(pidFile)}; exec ${JSON.stringify(process.execPath)} ${
      JSON.stringify(hang)
    }`;
    const client = await start([], {
      hang: `command = "/bin/sh"\nargs = ["-c", ${JSON.stringify(wrapper)}]\nstartup_timeout_sec = 60`,
    });
    await statusOf(client, "hang", ["starting"]);
    const pid = await waitFor(
      async () => (existsSync(pidFile) ? Number(await readFile(pidFile, "utf8")) : 0),
      { intervalMs: 20, what: "the MCP server to write its pid" },
    );
    expect(alive(pid)).toBe(true);
    await client.finish();
    await waitFor(() => !alive(pid), { intervalMs: 20, what: `the MCP server ${pid} to end` });
  });
});

describe("MCP over streamable HTTP", () => {
  it("calls echo on server-everything's HTTP mode on 127.0.0.1", async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [EVERYTHING, "streamableHttp"], {
      env: { PATH: process.env.PATH ?? "", PORT: String(port) },
      stdio: ["ignore", "ignore", "pipe"],
    });
    harness.defer(() => {
      child.kill("SIGKILL");
    });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("HTTP server did not start")), WAIT_MS);
      child.stderr!.on("data", (chunk: Buffer) => {
        if (chunk.toString().includes("listening")) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    const client = await start(
      [
        toolCallResponse([{ call_id: "h1", name: "mcp__web__echo", arguments: { message: "over http" } }]),
        textResponse(["done"]),
      ],
      { web: `url = "http://127.0.0.1:${port}/mcp"\nhttp_headers = { "X-Test" = "1" }\n${STARTUP}` },
    );
    client.turn("go");
    expect((await terminal(client, WAIT_MS)).type).toBe("turn.completed");
    expect(completed(client, "h1")).toMatchObject({ success: true, output: "Echo: over http" });
    expect((await statusOf(client, "web", ["ready"])).transport).toBe("http");
    await client.finish();
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
