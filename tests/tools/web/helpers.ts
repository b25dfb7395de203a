// Shared fixtures for the web tool tests: real HTTP(S) servers on 127.0.0.1, a config with web
// overrides, a tool context, and a throwaway TLS certificate made with openssl.

import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { createServer as createTlsServer } from "node:https";
import type { AddressInfo, Socket } from "node:net";
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
      "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
      "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem"), "-days", "2",
      "-subj", `/CN=${names[0]}`, "-addext", `subjectAltName=${names.map((name) => `DNS:${name}`).join(",")}`,
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

export function webConfig(web: Partial<ResolvedConfig["web"]> = {}, tools: Partial<ResolvedConfig["tools"]> = {}): ResolvedConfig {
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

export async function callTool(tool: Tool, args: unknown, config: ResolvedConfig, signal?: AbortSignal): Promise<ToolOutcome> {
  return runCall(prepareCall(tool, args, config), config, signal);
}
