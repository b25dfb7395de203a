// `scv host [--listen stdio|stdio://|ws://IP:PORT]`: the code-mode host (host spec §1, §10, §11).
import { writeSync } from "node:fs";
import { isIP } from "node:net";
import { limitsFromEnv, serveStdio, type TruncateItems } from "../host/index.ts";
import { createSandbox, truncateItems, type Sandbox } from "../sandbox/index.ts";
import { EXIT_FAILURE, EXIT_OK } from "./exit.ts";
import { handleSignals } from "./process.ts";

export interface HostOptions {
  listen?: string;
}

type Listen = { kind: "stdio" } | { kind: "ws"; host: string; port: number };

/** Parses `--listen`; throws the spec's exact usage errors. */
export function parseListen(url: string | undefined): Listen {
  if (url === undefined || url === "stdio" || url === "stdio://") return { kind: "stdio" };
  if (!url.startsWith("ws://")) {
    throw new Error(`unsupported --listen URL \`${url}\`; expected \`ws://IP:PORT\`, \`stdio\`, or \`stdio://\``);
  }
  const invalid = new Error(`invalid websocket --listen URL \`${url}\`; expected \`ws://IP:PORT\``);
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

function loadSandbox(): { sandbox: Sandbox; truncate: TruncateItems } {
  return { sandbox: createSandbox(), truncate: truncateItems };
}

/** Runs the host; resolves with the exit code (and ends the process itself in stdio mode). */
export async function runHost(options: HostOptions): Promise<number> {
  let listen: Listen;
  let limits;
  try {
    listen = parseListen(options.listen);
    limits = limitsFromEnv();
  } catch (error) {
    logLine(`Error: ${(error as Error).message}`);
    return EXIT_FAILURE;
  }
  const { sandbox, truncate } = loadSandbox();

  if (listen.kind === "stdio") {
    const outcome = await serveStdio({
      input: process.stdin,
      output: process.stdout,
      sandbox,
      truncate,
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
    listener = await listenWebSocket({ host: listen.host, port: listen.port, sandbox, truncate, limits, log: logLine });
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
