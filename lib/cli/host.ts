// `scv host [--listen stdio|stdio://|ws://IP:PORT] [--token-file PATH]`: the code-mode host
// (host spec §1, §10, §11; the listener token: docs/host.md).
import { writeSync } from "node:fs";
import { isIP } from "node:net";
import { limitsFromEnv, serveStdio } from "../host/index.ts";
import { createSandbox, type Sandbox } from "../sandbox/index.ts";
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from "./exit.ts";
import { handleSignals } from "./process.ts";

export interface HostOptions {
  listen?: string;
  /** A file holding the WebSocket listener's bearer token. */
  tokenFile?: string;
}

/** A bad command line: exit 2 (`scv host --listen foo`). */
export class HostUsageError extends Error {
  override name = "HostUsageError";
}

type Listen = { kind: "stdio" } | { kind: "ws"; host: string; port: number };

/** Parses `--listen`; throws the spec's exact usage errors. */
export function parseListen(url: string | undefined): Listen {
  if (url === undefined || url === "stdio" || url === "stdio://") return { kind: "stdio" };
  if (!url.startsWith("ws://")) {
    throw new HostUsageError(
      `unsupported --listen URL \`${url}\`; expected \`ws://IP:PORT\`, \`stdio\`, or \`stdio://\``,
    );
  }
  const invalid = new HostUsageError(`invalid websocket --listen URL \`${url}\`; expected \`ws://IP:PORT\``);
  const match = /^ws:\/\/(?:\[([^\]]+)\]|([^:/\[\]]+)):(\d{1,5})\/?$/.exec(url);
  if (!match) throw invalid;
  const host = match[1] ?? match[2]!;
  const port = Number(match[3]);
  if (port > 65535) throw invalid;
  if (match[1] !== undefined ? isIP(host) !== 6 : isIP(host) !== 4) throw invalid;
  return { kind: "ws", host, port };
}

function logLine(line: string): void {
  try {
    writeSync(2, `${line}\n`);
  } catch {
    // stderr is gone; nothing else can report it.
  }
}

/** Runs the host; resolves with the exit code (and ends the process itself in stdio mode). */
export async function runHost(options: HostOptions): Promise<number> {
  let listen: Listen;
  let limits;
  let token: { token: string; generated: boolean } | null;
  try {
    listen = parseListen(options.listen);
    if (listen.kind === "stdio" && options.tokenFile !== undefined) {
      throw new HostUsageError("--token-file needs a WebSocket listener (--listen ws://IP:PORT)");
    }
    limits = limitsFromEnv();
    // Loaded only for a listener, like the WebSocket transport.
    if (listen.kind === "ws") {
      const { listenerToken } = await import("../host/transports/listener_token.ts");
      token = listenerToken(listen.host, options.tokenFile, logLine);
    } else {
      token = null;
    }
  } catch (error) {
    logLine(`Error: ${(error as Error).message}`);
    return error instanceof HostUsageError ? EXIT_USAGE : EXIT_FAILURE;
  }
  const sandbox = createSandbox();

  if (listen.kind === "stdio") {
    const outcome = await serveStdio({
      input: process.stdin,
      output: process.stdout,
      sandbox,
      limits,
      log: logLine,
    });
    const code = outcome.error === null ? EXIT_OK : EXIT_FAILURE;
    if (outcome.error !== null) logLine(`Error: ${outcome.error}`);
    // Workers, a blocked stdout or an unread stdin must not keep a finished host alive.
    exitSoon(code, outcome.error === null ? sandbox : null);
    return code;
  }

  let listener;
  try {
    // Loaded only here: node:http and ws cost startup time that stdio mode does not need.
    const { listenWebSocket } = await import("../host/transports/ws.ts");
    listener = await listenWebSocket({
      host: listen.host,
      port: listen.port,
      sandbox,
      limits,
      log: logLine,
      token: token?.token ?? null,
    });
  } catch (error) {
    logLine(`Error: failed to bind websocket listener: ${(error as Error).message}`);
    return EXIT_FAILURE;
  }
  // Handlers first: a client may signal as soon as it has read the URL.
  const stopped = new Promise<void>((resolve) => {
    const stop = (): void => {
      removeSignals();
      resolve();
    };
    const removeSignals = handleSignals({ SIGINT: stop, SIGTERM: stop });
  });
  if (token?.generated) {
    // Before the URL line: a client that read the URL finds the token already written.
    logLine(`code-mode host websocket token: ${token.token}`);
    logLine(
      `(${listen.host} is reachable from other machines: send "Authorization: Bearer <token>" on the upgrade request)`,
    );
  }
  process.stdout.write(`${listener.url}\n`);
  await stopped;
  await Promise.race([listener.close(), delay(2_000)]);
  exitSoon(EXIT_OK, sandbox);
  return EXIT_OK;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

function exitSoon(code: number, sandbox: Sandbox | null): void {
  if (sandbox === null) process.exit(code);
  void Promise.race([sandbox.shutdown().catch(() => undefined), delay(1_000)]).then(() => process.exit(code));
}
