// The WebSocket listener's bearer token (issue 12, item 8), through the real CLI over real
// sockets: a listener on 0.0.0.0 (connected to on 127.0.0.1) runs nothing for a client without
// the token; loopback opts in with --token-file and otherwise works as before.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { isLoopbackAddress, TokenCheck } from "../../lib/host/transports/listener_token.ts";
import {
  connectWs,
  execute,
  hello,
  type HostProcess,
  killAllHosts,
  listenUrl,
  open,
  startHost,
  stderrContains,
} from "../support/frame_client.ts";

const dir = mkdtempSync(join(tmpdir(), "scv-host-token-"));
afterAll(() => {
  killAllHosts();
  rmSync(dir, { recursive: true, force: true });
});

/** The port of a `ws://0.0.0.0:<port>` URL, reached on 127.0.0.1. */
function loopbackUrl(url: string): string {
  return `ws://127.0.0.1:${new URL(url).port}`;
}

/** The raw HTTP response to an upgrade request with `headers` (status line and headers). */
function rawUpgrade(url: string, headers: string[] = []): Promise<string> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), "127.0.0.1");
    let response = "";
    socket.setEncoding("latin1");
    socket.on("data", (chunk: string) => {
      response += chunk;
      if (response.includes("\r\n\r\n")) {
        socket.destroy();
        resolve(response);
      }
    });
    socket.on("end", () => resolve(response));
    socket.on("error", reject);
    socket.write(
      [
        "GET / HTTP/1.1",
        `Host: 127.0.0.1:${port}`,
        "Upgrade: websocket",
        "Connection: Upgrade",
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
        "Sec-WebSocket-Version: 13",
        ...headers,
        "",
        "",
      ].join("\r\n"),
    );
  });
}

async function statusOf(url: string, headers: Record<string, string>): Promise<number> {
  return connectWs(url, headers).then(
    (client) => {
      client.close();
      return 101;
    },
    (error: { status?: number }) => error.status ?? -1,
  );
}

/** A cell runs end to end on this connection. */
async function runsCells(url: string, headers: Record<string, string>): Promise<void> {
  const client = await connectWs(url, headers);
  client.send(hello());
  expect((await client.frames.next(10_000)).type).toBe("connection/ready");
  client.send(open(1, "s"));
  expect((await client.frames.next()).result.value.type).toBe("session/ready");
  client.send(execute(2, "s", "text(6 * 7)"));
  await client.frames.next();
  expect((await client.frames.next()).result.value.Result.content_items).toEqual([{ type: "input_text", text: "42" }]);
  client.close();
}

async function startListener(args: string[]): Promise<{ host: HostProcess; url: string }> {
  const host = startHost(["--listen", ...args]);
  host.closeStdin();
  const url = await listenUrl(host);
  return { host, url };
}

describe.concurrent("a non-loopback listener", () => {
  test("generates a token, prints it to stderr only, and refuses every upgrade without it with 401", async () => {
    const { host, url } = await startListener(["ws://0.0.0.0:0"]);
    expect(url).toMatch(/^ws:\/\/0\.0\.0\.0:\d+$/);
    expect(await stderrContains(host, "code-mode host websocket token: ")).toBe(true);
    const token = /code-mode host websocket token: (\S+)/.exec(host.stderr())![1]!;
    expect(token.length).toBeGreaterThanOrEqual(32);
    const target = loopbackUrl(url);

    // Attempts an attacker would make: nothing, a wrong token of the same length, a prefix, the
    // token without the scheme, another scheme, the token in a query string or a second header.
    const wrong = token.slice(0, -1) + (token.endsWith("A") ? "B" : "A");
    const attempts: Record<string, string>[] = [
      {},
      { Authorization: `Bearer ${wrong}` },
      { Authorization: `Bearer ${token.slice(0, 16)}` },
      { Authorization: `Bearer ${token}x` },
      { Authorization: token },
      { Authorization: `Basic ${token}` },
      { Authorization: "Bearer " },
      { "X-Token": token },
    ];
    for (const headers of attempts) {
      expect(await statusOf(target, headers)).toBe(401);
    }
    expect(await statusOf(`${target}/?token=${token}`, {})).toBe(401);
    // Node keeps the first of repeated Authorization headers: a right one behind a wrong one is no way in.
    const twice = await rawUpgrade(target, [`Authorization: Bearer ${wrong}`, `Authorization: Bearer ${token}`]);
    expect(twice.split("\r\n")[0]).toBe("HTTP/1.1 401 Unauthorized");
    // Refused before the upgrade: a plain HTTP answer, no switching of protocols.
    const refused = await rawUpgrade(target);
    expect(refused.split("\r\n")[0]).toBe("HTTP/1.1 401 Unauthorized");
    expect(refused.toLowerCase()).toContain("www-authenticate: bearer");
    expect(refused.toLowerCase()).not.toContain("upgrade: websocket");
    expect(await stderrContains(host, "code-mode host rejected a websocket handshake from 127.0.0.1:")).toBe(true);
    // The token never appears in a rejection line.
    expect(host.stderr().split("\n").filter((line) => line.includes(token))).toHaveLength(1);

    // The Origin rule still comes first, token or not; /readyz needs no token.
    expect(await statusOf(target, { Authorization: `Bearer ${token}`, Origin: "https://evil.example" })).toBe(403);
    await runsCells(target, { Authorization: `Bearer ${token}` });
    await runsCells(target, { Authorization: `bearer ${token}` });
    host.child.kill("SIGTERM");
    expect((await host.exit).code).toBe(0);
  });

  test("/readyz answers without a token", async () => {
    const { host, url } = await startListener(["ws://0.0.0.0:0"]);
    const response = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(new URL(url).port), "127.0.0.1");
      let text = "";
      socket.setEncoding("latin1");
      socket.on("data", (chunk: string) => (text += chunk));
      socket.on("end", () => resolve(text));
      socket.on("error", reject);
      socket.write("GET /readyz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    });
    expect(response.split("\r\n")[0]).toBe("HTTP/1.1 200 OK");
    host.kill();
  });

  test("--token-file supplies the token (trailing newline ignored) and nothing is printed", async () => {
    const file = join(dir, "token");
    const token = "s3cret-token-for-the-listener";
    writeFileSync(file, `${token}\n`, { mode: 0o600 });
    const { host, url } = await startListener(["ws://0.0.0.0:0", "--token-file", file]);
    const target = loopbackUrl(url);
    expect(await statusOf(target, {})).toBe(401);
    await runsCells(target, { Authorization: `Bearer ${token}` });
    expect(host.stderr()).not.toContain(token);
    expect(host.stderr()).not.toContain("websocket token:");
    host.kill();
  });
});

describe.concurrent("a loopback listener", () => {
  test("without --token-file needs no token, as Codex connects", async () => {
    const { host, url } = await startListener(["ws://127.0.0.1:0"]);
    await runsCells(url, {});
    expect(host.stderr()).not.toContain("token");
    host.kill();
  });

  test("with --token-file requires it", async () => {
    const file = join(dir, "loopback-token");
    writeFileSync(file, "loopback-token-0123456789", { mode: 0o600 });
    const { host, url } = await startListener(["ws://127.0.0.1:0", "--token-file", file]);
    expect(await statusOf(url, {})).toBe(401);
    expect(await statusOf(url, { Authorization: "Bearer loopback-token-012345678" })).toBe(401);
    await runsCells(url, { Authorization: "Bearer loopback-token-0123456789" });
    host.kill();
  });
});

describe.concurrent("bad token files and options", () => {
  test("a missing, short or spaced token file fails at startup; a readable one warns", async () => {
    const short = join(dir, "short");
    writeFileSync(short, "abc\n", { mode: 0o600 });
    const spaced = join(dir, "spaced");
    writeFileSync(spaced, "one token with spaces in it\n", { mode: 0o600 });
    for (
      const [file, message] of [
        [join(dir, "absent"), "Error: cannot read --token-file"],
        [short, "holds no token of at least 16 characters"],
        [spaced, "must hold one token of visible ASCII characters"],
      ] as const
    ) {
      const host = startHost(["--listen", "ws://0.0.0.0:0", "--token-file", file]);
      host.closeStdin();
      const exit = await host.exit;
      expect(exit.code).toBe(1);
      expect(host.stderr()).toContain(message);
    }
    const open = join(dir, "world-readable");
    writeFileSync(open, "world-readable-token-0123");
    chmodSync(open, 0o644);
    const { host } = await startListener(["ws://127.0.0.1:0", "--token-file", open]);
    expect(host.stderr()).toContain(`--token-file \`${open}\` is readable by group or others; run chmod 600 ${open}`);
    host.kill();
  });

  test("--token-file without a WebSocket listener is a usage error", async () => {
    const host = startHost(["--token-file", join(dir, "token")]);
    expect((await host.exit).code).toBe(2);
    expect(host.stderr()).toContain("Error: --token-file needs a WebSocket listener (--listen ws://IP:PORT)");
  });
});

describe("in process", () => {
  test("loopback addresses", () => {
    for (const address of ["127.0.0.1", "127.255.0.9", "::1", "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1", "[::1]"]) {
      expect(isLoopbackAddress(address)).toBe(true);
    }
    for (
      const address of ["0.0.0.0", "::", "10.1.2.3", "128.0.0.1", "::ffff:10.0.0.1", "fe80::1", "::2", "localhost"]
    ) {
      expect(isLoopbackAddress(address)).toBe(false);
    }
  });

  test("the token check takes only the exact bearer token", () => {
    const check = new TokenCheck("0123456789abcdef");
    expect(check.accepts("Bearer 0123456789abcdef")).toBe(true);
    expect(check.accepts("BEARER  0123456789abcdef")).toBe(true);
    for (
      const header of [
        undefined,
        "",
        "Bearer",
        "Bearer 0123456789abcdeF",
        "Bearer 0123456789abcdef0",
        "0123456789abcdef",
      ]
    ) {
      expect(check.accepts(header)).toBe(false);
    }
    expect(check.accepts(["Bearer 0123456789abcdef"])).toBe(false);
  });
});
