// Shared fixtures for the web tool tests: real HTTP(S) servers on 127.0.0.1, a config with web
// overrides, a tool context, and a throwaway TLS certificate made with openssl.

import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { createServer as createTlsServer } from "node:https";
import type { AddressInfo, Socket } from "node:net";
import { connect as netConnect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import { defaultConfig } from "../../../lib/config/defaults.ts";
import type { ResolvedConfig } from "../../../lib/config/types.ts";
import type { PreparedCall, Tool, ToolContext, ToolOutcome } from "../../../lib/tools/types.ts";

export type Handler = (request: IncomingMessage, response: ServerResponse) => void;

export type TestServer = {
  port: number;
  /** Every request seen, in order. */
  requests: IncomingMessage[];
  connections: number;
  close(): Promise<void>;
};

function track(server: Server, handler: Handler): Promise<TestServer> {
  const sockets = new Set<Socket>();
  const state: TestServer = {
    port: 0,
    requests: [],
    connections: 0,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  server.on("connection", (socket: Socket) => {
    state.connections += 1;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  server.on("secureConnection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  server.on("request", (request: IncomingMessage, response: ServerResponse) => {
    state.requests.push(request);
    handler(request, response);
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      state.port = (server.address() as AddressInfo).port;
      resolve(state);
    });
  });
}

export function startServer(handler: Handler): Promise<TestServer> {
  return track(createServer(), handler);
}

/** A `serve` whose servers are closed after each test of the calling file. */
export function useServers(): (handler: Handler) => Promise<TestServer> {
  const servers: TestServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });
  return async (handler) => {
    const server = await startServer(handler);
    servers.push(server);
    return server;
  };
}

export type TlsFixture = { key: string; cert: string };

/** A self-signed certificate (its own CA) for the given DNS names. */
export function makeCertificate(names: string[]): TlsFixture {
  const dir = mkdtempSync(join(tmpdir(), "scv-web-tls-"));
  try {
    execFileSync("openssl", [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-keyout",
      join(dir, "key.pem"),
      "-out",
      join(dir, "cert.pem"),
      "-days",
      "2",
      "-subj",
      `/CN=${names[0]}`,
      "-addext",
      `subjectAltName=${names.map((name) => `DNS:${name}`).join(",")}`,
    ], { stdio: "ignore" });
    return { key: readFileSync(join(dir, "key.pem"), "utf8"), cert: readFileSync(join(dir, "cert.pem"), "utf8") };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function hasOpenssl(): boolean {
  try {
    execFileSync("openssl", ["version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

export function startTlsServer(tls: TlsFixture, handler: Handler): Promise<TestServer> {
  return track(createTlsServer({ key: tls.key, cert: tls.cert }) as unknown as Server, handler);
}

export function webConfig(
  web: Partial<ResolvedConfig["web"]> = {},
  tools: Partial<ResolvedConfig["tools"]> = {},
): ResolvedConfig {
  const config = defaultConfig("/nonexistent/skills");
  return { ...config, web: { ...config.web, ...web }, tools: { ...config.tools, ...tools } };
}

/** Hermetic proxy settings: no proxy, whatever the environment says. */
export const NO_PROXY_ENV = { httpProxy: "", httpsProxy: "", noProxy: "" };

export function prepareCall(tool: Tool, args: unknown, config: ResolvedConfig): PreparedCall {
  const prepared = tool.prepare(args, { workspace: "/nonexistent", config });
  if ("error" in prepared) throw new Error(`prepare failed: ${prepared.error}`);
  return prepared;
}

export function prepareError(tool: Tool, args: unknown, config: ResolvedConfig): string {
  const prepared = tool.prepare(args, { workspace: "/nonexistent", config });
  if (!("error" in prepared)) throw new Error("prepare unexpectedly succeeded");
  return prepared.error;
}

export function runCall(call: PreparedCall, config: ResolvedConfig, signal?: AbortSignal): Promise<ToolOutcome> {
  const context: ToolContext = {
    workspace: "/nonexistent",
    config,
    signal: signal ?? new AbortController().signal,
    progress: () => {},
  };
  return call.run(context);
}

export async function callTool(
  tool: Tool,
  args: unknown,
  config: ResolvedConfig,
  signal?: AbortSignal,
): Promise<ToolOutcome> {
  return runCall(prepareCall(tool, args, config), config, signal);
}

/** Where a test proxy sends a CONNECT: a port on 127.0.0.1, or a refusal with this status. */
export type ProxyRoute = { port: number } | { status: number; reason: string } | { hang: true } | { junk: true };

export type TestProxy = {
  url: string;
  port: number;
  /** Every CONNECT target (the request-target of the CONNECT line), in order. */
  connects: string[];
  /** The `Proxy-Authorization` header of each CONNECT. */
  authorizations: Array<string | undefined>;
  close(): Promise<void>;
};

/**
 * A real HTTP CONNECT proxy on 127.0.0.1 that records each tunnel target and routes it with
 * `route`, which plays the proxy's own name resolution. It never opens a connection anywhere
 * but 127.0.0.1.
 */
export async function startProxy(
  route: (target: string) => ProxyRoute | Promise<ProxyRoute>,
  tls?: TlsFixture,
): Promise<TestProxy> {
  const sockets = new Set<Socket>();
  const refuse = (_request: IncomingMessage, response: ServerResponse) => {
    response.writeHead(405).end();
  };
  // An https:// proxy: TLS to the proxy itself, then the same CONNECT inside it.
  const proxy: Server = tls === undefined
    ? createServer(refuse)
    : (createTlsServer({ key: tls.key, cert: tls.cert }, refuse) as unknown as Server);
  const state: TestProxy = {
    url: "",
    port: 0,
    connects: [],
    authorizations: [],
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        proxy.close(() => resolve());
      }),
  };
  proxy.on(tls === undefined ? "connection" : "secureConnection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  proxy.on("connect", async (request: IncomingMessage, client: Socket, head: Buffer) => {
    const target = request.url ?? "";
    state.connects.push(target);
    state.authorizations.push(request.headers["proxy-authorization"]);
    client.on("error", () => {});
    const routed = await route(target);
    if ("hang" in routed) return;
    if ("junk" in routed) {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nforged");
      return;
    }
    if ("status" in routed) {
      client.end(`HTTP/1.1 ${routed.status} ${routed.reason}\r\ncontent-length: 0\r\n\r\n`);
      return;
    }
    const upstream = netConnect(routed.port, "127.0.0.1", () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on("close", () => sockets.delete(upstream));
    upstream.on("error", () => client.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  state.port = (proxy.address() as AddressInfo).port;
  state.url = tls === undefined ? `http://127.0.0.1:${state.port}` : `https://localhost:${state.port}`;
  return state;
}

/** The host part of a CONNECT target, brackets removed: `[::1]:80` → `::1`. */
export function targetHost(target: string): string {
  const host = target.replace(/:\d+$/, "");
  return host.startsWith("[") ? host.slice(1, -1) : host;
}
