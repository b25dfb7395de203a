// The WebSocket listener (host spec §10): one host connection per socket, binary messages of
// exactly one frame each, `/readyz`, a 403 for any request carrying an `Origin` header, and a
// 401 for an upgrade without the listener's bearer token when it has one (listener_token.ts).
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { Duplex } from "node:stream";
import { type RawData, type WebSocket, WebSocketServer } from "ws";
import { decodeFrameMessage, MAX_FRAME_BYTES } from "../../codec/index.ts";
import { parseClientFrame } from "../frame_json.ts";
import type { Sandbox } from "../../sandbox/index.ts";
import { HostConnection } from "../connection.ts";
import type { HostLimits } from "../limits.ts";
import { TokenCheck } from "./listener_token.ts";

export const MAX_WEBSOCKET_MESSAGE_BYTES = MAX_FRAME_BYTES + 4;
/** Above this many unsent bytes the writer waits for the socket before sending more. */
const HIGH_WATER_BYTES = 1024 * 1024;
/** How long `close()` waits for clients to answer its close frame before dropping them. */
const CLOSE_GRACE_MS = 1_000;

export interface WsListenerOptions {
  host: string;
  port: number;
  sandbox: Sandbox;
  limits: HostLimits;
  log: (line: string) => void;
  /** When set, an upgrade must carry `Authorization: Bearer <token>`; `/readyz` stays open. */
  token?: string | null;
}

export interface WsListener {
  /** `ws://<bound-ip>:<bound-port>` (IPv6 bracketed). */
  readonly url: string;
  close(): Promise<void>;
}

export async function listenWebSocket(options: WsListenerOptions): Promise<WsListener> {
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_WEBSOCKET_MESSAGE_BYTES,
    perMessageDeflate: false,
  });
  const sockets = new Set<WebSocket>();
  const tokenCheck = options.token ? new TokenCheck(options.token) : null;
  const server: Server = createServer((request, response) => {
    if (request.headers.origin !== undefined) {
      options.log(`code-mode host rejected an HTTP request with Origin \`${request.headers.origin}\``);
      response.writeHead(403).end();
      return;
    }
    if (request.method === "GET" && pathOf(request) === "/readyz") {
      response.writeHead(200, { "content-length": "0" }).end();
      return;
    }
    response.writeHead(404, { "content-length": "0" }).end();
  });
  server.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on("error", () => undefined);
    if (request.headers.origin !== undefined) {
      options.log(`code-mode host rejected a websocket handshake with Origin \`${request.headers.origin}\``);
      socket.end("HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    if (pathOf(request) !== "/") {
      socket.end("HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    if (tokenCheck !== null && !tokenCheck.accepts(request.headers.authorization)) {
      const peer = `${request.socket.remoteAddress ?? "?"}:${request.socket.remotePort ?? "?"}`;
      const why = request.headers.authorization === undefined ? "without a token" : "with a wrong token";
      options.log(`code-mode host rejected a websocket handshake from ${peer} ${why}`);
      socket.end(
        "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer\r\nConnection: close\r\nContent-Length: 0\r\n\r\n",
      );
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      sockets.add(ws);
      ws.once("close", () => sockets.delete(ws));
      serveSocket(ws, options);
    });
  });
  server.on("connection", (socket) => socket.setNoDelay(true));

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("websocket listener has no TCP address");
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;

  return {
    url: `ws://${host}:${address.port}`,
    close: async () => {
      for (const ws of sockets) ws.close(1001);
      wss.close();
      // A client that never answers the close handshake would hold the server for ws's 30 s timeout.
      const grace = setTimeout(() => {
        for (const ws of sockets) ws.terminate();
      }, CLOSE_GRACE_MS);
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      clearTimeout(grace);
    },
  };
}

function pathOf(request: IncomingMessage): string {
  const url = request.url ?? "/";
  const query = url.indexOf("?");
  return query < 0 ? url : url.slice(0, query);
}

/** Host spec §10: the diagnostic of a text message, sent as the close reason with code 1003. */
export const TEXT_MESSAGE_ERROR = "code-mode websocket messages must be binary framed messages";
/** RFC 6455: the endpoint cannot accept this data type. */
const CLOSE_UNSUPPORTED_DATA = 1003;

function serveSocket(ws: WebSocket, options: WsListenerOptions): void {
  // A text message is answered with a close frame that says why; other failures drop the socket.
  let closeFrame: { code: number; reason: string } | null = null;
  const connection = new HostConnection({
    sink: { write: (frame) => sendFrame(ws, frame) },
    sandbox: options.sandbox,
    limits: options.limits,
    log: options.log,
  });
  ws.on("message", (data: RawData, isBinary: boolean) => {
    if (connection.finished) return;
    if (!isBinary) {
      closeFrame = { code: CLOSE_UNSUPPORTED_DATA, reason: TEXT_MESSAGE_ERROR };
      connection.fail(TEXT_MESSAGE_ERROR);
      return;
    }
    // Like stdio: a frame that cannot be decoded or handled fails the connection, never the process.
    try {
      connection.receive(decodeFrameMessage(toBuffer(data), { parse: parseClientFrame }));
    } catch (error) {
      connection.readFailed(error);
    }
  });
  ws.on("error", (error) => {
    if (!connection.finished) connection.readFailed(error);
  });
  ws.on("close", () => connection.endOfInput());
  void connection.done.then((outcome) => {
    if (outcome.error !== null) {
      options.log(`code-mode host websocket connection failed: ${outcome.error}`);
      if (closeFrame === null || ws.readyState !== ws.OPEN) {
        ws.terminate();
        return;
      }
      ws.close(closeFrame.code, closeFrame.reason);
      // A client that never answers the close frame does not keep the socket.
      const grace = setTimeout(() => ws.terminate(), CLOSE_GRACE_MS);
      grace.unref();
      ws.once("close", () => clearTimeout(grace));
    } else if (ws.readyState === ws.OPEN) {
      ws.close(1000);
    }
  });
}

function sendFrame(ws: WebSocket, frame: Buffer): Promise<void> | void {
  if (ws.readyState !== ws.OPEN) return;
  if (ws.bufferedAmount < HIGH_WATER_BYTES) {
    ws.send(frame, { binary: true });
    return;
  }
  return new Promise((resolve) => ws.send(frame, { binary: true }, () => resolve()));
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}
