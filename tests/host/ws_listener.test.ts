// The WebSocket listener in process: closing it does not wait on clients that ignore the close.
import { connect, type Socket } from "node:net";
import { afterAll, afterEach, expect, test } from "vitest";
import { limitsFromEnv } from "../../lib/host/limits.ts";
import { listenWebSocket } from "../../lib/host/transports/ws.ts";
import { createSandbox } from "../../lib/sandbox/index.ts";
import { within } from "../support/wait.ts";

const sandbox = createSandbox();
let socket: Socket | null = null;
afterEach(() => {
  socket?.destroy();
  socket = null;
});
afterAll(() => sandbox.shutdown());

test("close() drops a client that never answers the close frame after a short grace", async () => {
  const listener = await listenWebSocket({
    host: "127.0.0.1",
    port: 0,
    sandbox,
    limits: limitsFromEnv({}),
    log: () => undefined,
  });
  const { hostname, port } = new URL(listener.url);
  const raw = connect(Number(port), hostname);
  socket = raw;
  await new Promise((resolve) => raw.once("connect", resolve));
  raw.write(
    "GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
  );
  const handshake = await new Promise<string>((resolve) =>
    raw.once("data", (chunk: Buffer) => resolve(chunk.toString("latin1")))
  );
  expect(handshake).toMatch(/^HTTP\/1\.1 101 /);
  // From here on the client reads but never answers (nor closes).
  raw.on("data", () => undefined);
  const closedByServer = new Promise<void>((resolve) => raw.once("close", () => resolve()));
  // Waiting for the silent client's close handshake would never end.
  await within(listener.close(), "the listener to close");
  await closedByServer;
});
