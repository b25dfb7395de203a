// Host spec §12 items 33–36 and every scenario of seeds/host_websocket_tests.rs, over real sockets:
// one `scv host --listen` process for the listener's rules, one more per CLI behaviour; the
// listener-wide limit runs the listener in process.
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { limitsFromEnv } from "../../lib/host/limits.ts";
import { listenWebSocket } from "../../lib/host/transports/ws.ts";
import { createSandbox } from "../../lib/sandbox/index.ts";
import { HANG_MS, waitFor } from "../support/wait.ts";
import {
  connectWs,
  execute,
  hello,
  type HostProcess,
  killAllHosts,
  listenUrl,
  open,
  startHost,
  tool,
  toolResult,
  type WsClient,
} from "../support/frame_client.ts";

let host: HostProcess;
let url: string;

beforeAll(async () => {
  host = startHost(["--listen", "ws://127.0.0.1:0"]);
  host.child.stdin.end();
  url = await listenUrl(host);
});
afterAll(killAllHosts);

function rawHttp(request: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let response = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => (response += chunk));
    socket.on("end", () => resolve(response));
    socket.on("error", reject);
    socket.write(request.replaceAll("\n", "\r\n"));
  });
}

async function negotiate(client: WsClient, optional: string[] = []): Promise<void> {
  client.send(hello(optional));
  expect(await client.frames.next()).toEqual({ type: "connection/ready", selectedVersion: 1, capabilities: [] });
}

async function openSession(client: WsClient, sessionId: string): Promise<void> {
  client.send(open(1, sessionId));
  expect(await client.frames.next()).toEqual({
    type: "operation/response",
    id: 1,
    result: { status: "ok", value: { type: "session/ready", sessionId } },
  });
}

async function stderrLine(match: string): Promise<string> {
  const deadline = Date.now() + HANG_MS;
  for (;;) {
    const line = host.stderr().split("\n").find((l) => l.includes(match));
    if (line !== undefined) return line;
    if (Date.now() > deadline) throw new Error(`no stderr line with ${match}: ${host.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("WebSocket listener", () => {
  test("prints exactly the bound URL and serves /readyz (§12.33)", async () => {
    expect(url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+$/);
    const response = await rawHttp(`GET /readyz HTTP/1.1\nHost: ${new URL(url).host}\nConnection: close\n\n`);
    expect(response.split("\r\n")[0]).toBe("HTTP/1.1 200 OK");
    expect(response.endsWith("\r\n\r\n")).toBe(true);
  });

  test("rejects any request with an Origin header with 403 (§12.33)", async () => {
    const error = await connectWs(url, { Origin: "https://evil.example" }).then(
      () => null,
      (e: { status?: number }) => e,
    );
    expect(error?.status).toBe(403);
    const response = await rawHttp(
      `GET /readyz HTTP/1.1\nHost: ${new URL(url).host}\nOrigin: http://localhost\nConnection: close\n\n`,
    );
    expect(response.split("\r\n")[0]).toBe("HTTP/1.1 403 Forbidden");
    await stderrLine("Origin");
  });

  test("executes cells and forwards tool callbacks (§12.34)", async () => {
    const client = await connectWs(url);
    await negotiate(client);
    await openSession(client, "websocket-session");
    client.send(
      execute(2, "websocket-session", 'const result = await tools.echo({ value: "ping" }); text(result.value);', {
        toolCallId: "websocket-call",
        tools: [tool("echo")],
        maxOutputTokens: 1_000,
      }),
    );
    const started = await client.frames.next();
    expect(started).toMatchObject({
      type: "operation/response",
      id: 2,
      result: { status: "ok", value: { type: "execution/started" } },
    });
    const cellId = started.result.value.cellId;
    const callback = await client.frames.next();
    expect(callback).toMatchObject({
      type: "delegate/request",
      sessionId: "websocket-session",
      request: { type: "tool/invoke", invocation: { cell_id: cellId, input: { value: "ping" } } },
    });
    client.send(toolResult(callback.id, { value: "pong" }));
    const initial = await client.frames.next();
    expect(initial).toMatchObject({
      type: "execute/initialResponse",
      id: 2,
      result: {
        status: "ok",
        value: { Result: { cell_id: cellId, content_items: [{ type: "input_text", text: "pong" }], error_text: null } },
      },
    });
    client.close();
  });

  test("accepts frames larger than the default websocket limit (§12.35)", async () => {
    const client = await connectWs(url);
    await negotiate(client, ["x".repeat(16 * 1024 * 1024 + 1)]);
    client.close();
  });

  test("a message of exactly 64 MiB + 4 bytes is accepted; one byte more fails that connection", async () => {
    const client = await connectWs(url);
    const base = JSON.stringify(hello(["x"]));
    // Pad the capability so that the payload is exactly MAX_FRAME_BYTES.
    const payload = Buffer.from(base.replace('"x"', `"${"x".repeat(67_108_864 - base.length + 1)}"`));
    expect(payload.length).toBe(67_108_864);
    const frame = Buffer.concat([Buffer.from([0, 0, 0, 4]), payload]);
    client.sendRaw(frame);
    expect(await client.frames.next(20_000)).toEqual({
      type: "connection/ready",
      selectedVersion: 1,
      capabilities: [],
    });
    client.close();
    const tooLarge = await connectWs(url);
    tooLarge.sendRaw(Buffer.concat([frame, Buffer.from(" ")]));
    await tooLarge.closed;
    await stderrLine("Max payload size exceeded");
  });

  test("keeps connections and session ids isolated (§12.35)", async () => {
    const first = await connectWs(url);
    const second = await connectWs(url);
    await negotiate(first);
    await negotiate(second);
    await openSession(first, "shared-session-name");
    await openSession(second, "shared-session-name");
    first.close();
    second.close();
  });

  test("a malformed frame closes only its connection (§12.36)", async () => {
    const bystander = await connectWs(url);
    await negotiate(bystander);
    const malformed = await connectWs(url);
    malformed.sendRaw(Buffer.from([1, 0, 0, 0, 0x7b]));
    await malformed.closed;
    expect(malformed.frames.received).toEqual([]);
    const line = await stderrLine(
      "code-mode host websocket connection failed: failed to read code-mode client hello: failed to decode",
    );
    expect(line).toContain("code-mode host websocket connection failed");
    expect(line).toContain("failed to read code-mode client hello");
    expect(line).toContain(
      "code-mode host websocket connection failed: failed to read code-mode client hello: failed to decode code-mode IPC frame: ",
    );
    const recovered = await connectWs(url);
    await negotiate(recovered);
    // The bystander is unaffected.
    await openSession(bystander, "still-here");
    bystander.close();
    recovered.close();
  });

  test("a text message closes only its connection, with 1003 and the diagnostic (§12.36, issue 22)", async () => {
    const client = await connectWs(url);
    await negotiate(client);
    const closeFrame = new Promise<{ code: number; reason: string }>((resolve) =>
      client.socket.once("close", (code, reason) => resolve({ code, reason: reason.toString("utf8") }))
    );
    client.sendText("hello");
    expect(await closeFrame).toEqual({
      code: 1003,
      reason: "code-mode websocket messages must be binary framed messages",
    });
    await stderrLine("code-mode websocket messages must be binary framed messages");
    const next = await connectWs(url);
    await negotiate(next);
    next.close();
  });

  test("a message shorter than a prefix or with extra bytes is fatal for that connection", async () => {
    const short = await connectWs(url);
    short.sendRaw(Buffer.from([1, 0]));
    await short.closed;
    await stderrLine("code-mode IPC frame is missing its length prefix");
    const extra = await connectWs(url);
    await negotiate(extra);
    extra.sendRaw(Buffer.from([2, 0, 0, 0, 0x7b, 0x7d, 0x20]));
    await extra.closed;
    await stderrLine(
      "failed to read code-mode client message: code-mode IPC frame declares 2 payload bytes but contains 3",
    );
  });

  test("a second hello fails only that connection", async () => {
    const client = await connectWs(url);
    await negotiate(client);
    client.send(hello());
    await client.closed;
    await stderrLine("received a second code-mode client hello");
  });

  test("the listener rejects upgrades on other paths", async () => {
    const error = await connectWs(`${url}/bulk/x`).then(
      () => null,
      (e: { status?: number }) => e,
    );
    expect(error?.status).toBe(404);
  });
});

describe("listener process", () => {
  test("the active-cell limit is shared by every connection of the listener", async () => {
    const sandbox = createSandbox();
    const listener = await listenWebSocket({
      host: "127.0.0.1",
      port: 0,
      sandbox,
      limits: limitsFromEnv({ SCV_HOST_MAX_ACTIVE_CELLS: "1" }),
      log: () => undefined,
    });
    try {
      const first = await connectWs(listener.url);
      const second = await connectWs(listener.url);
      for (const client of [first, second]) {
        await negotiate(client);
        await openSession(client, "s");
      }
      first.send(execute(2, "s", "await new Promise(() => {})", { yieldTimeMs: 10 * HANG_MS }));
      expect((await first.frames.next()).result.value.type).toBe("execution/started");
      second.send(execute(2, "s", "text(1)"));
      expect(await second.frames.next()).toEqual({
        type: "operation/response",
        id: 2,
        result: { status: "error", message: "code-mode host has too many active cells" },
      });
      // Closing the first connection ends its cell and frees the permit (soon, not at once).
      first.close();
      await first.closed;
      let id = 3;
      const refusals = new Set<string>();
      const started = await waitFor(async () => {
        second.send(execute(id++, "s", "text(1)"));
        const answer = await second.frames.next();
        if (answer.result.status !== "ok") refusals.add(answer.result.message);
        return answer.result.status === "ok" ? answer.result.value : null;
      }, { intervalMs: 20, what: "the closed connection's permit" });
      expect(started).toEqual({ type: "execution/started", cellId: "1" });
      // Until then, the only answer was the limit's.
      expect([...refusals].filter((message) => message !== "code-mode host has too many active cells")).toEqual([]);
      second.close();
    } finally {
      await listener.close();
      await sandbox.shutdown();
    }
  });

  test("stdin EOF does not stop it; SIGTERM closes it cleanly", async () => {
    const other = startHost(["--listen", "ws://127.0.0.1:0"]);
    other.closeStdin();
    const otherUrl = await listenUrl(other);
    // A whole session after the EOF: the listener has long seen it by the time a cell ran.
    const client = await connectWs(otherUrl);
    await negotiate(client);
    await openSession(client, "after-eof");
    client.send(execute(2, "after-eof", "text('still serving')"));
    await client.frames.next();
    expect((await client.frames.next()).result.value.Result.content_items).toEqual([{
      type: "input_text",
      text: "still serving",
    }]);
    other.child.kill("SIGTERM");
    const exit = await other.exit;
    expect(exit.code).toBe(0);
    await client.closed;
  });

  test("binds IPv6 literals; hostnames, other schemes and non-URLs are usage errors (exit 2)", async () => {
    const v6 = startHost(["--listen", "ws://[::1]:0"]);
    const v6Url = await listenUrl(v6).catch(() => "");
    if (v6Url !== "") {
      expect(v6Url).toMatch(/^ws:\/\/\[::1\]:\d+$/);
      v6.child.kill("SIGINT");
      expect((await v6.exit).code).toBe(0);
    } else {
      v6.kill();
    }
    const named = startHost(["--listen", "ws://localhost:0"]);
    expect((await named.exit).code).toBe(2);
    expect(named.stderr()).toContain(
      "Error: invalid websocket --listen URL `ws://localhost:0`; expected `ws://IP:PORT`",
    );
    for (const listen of ["grpc+stdio://", "foo"]) {
      const other = startHost(["--listen", listen]);
      expect((await other.exit).code).toBe(2);
      expect(other.stderr()).toContain(
        `Error: unsupported --listen URL \`${listen}\`; expected \`ws://IP:PORT\`, \`stdio\`, or \`stdio://\``,
      );
    }
  });
});
