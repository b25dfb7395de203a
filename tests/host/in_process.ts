// An in-process host for protocol tests: the real stdio transport (frame decoder, client-frame
// parser, corked writer) and connection state machine over in-memory streams, with no process
// to start. It has the shape of frame_client's HostProcess, so a test reads the same either way;
// `exit` and `stderr()` follow `scv host`'s mapping (lib/cli/host.ts: a clean close is exit 0,
// a fatal error is exit 1 with one `Error: <chain>` line), which the process-level smoke tests
// in handshake.test.ts and runtimes.test.ts check on the real CLI.
import { PassThrough } from "node:stream";
import { encodeFrame, readFrames } from "../../lib/codec/index.ts";
import { limitsFromEnv } from "../../lib/host/limits.ts";
import { parsePreciseJson } from "../../lib/host/precise_json.ts";
import { serveStdio } from "../../lib/host/transports/stdio.ts";
import { createSandbox } from "../../lib/sandbox/index.ts";
import type { Sandbox, SandboxSession } from "../../lib/sandbox/types.ts";
import { type FramedClient, FrameQueue, hello } from "../support/frame_client.ts";
import { hangDeadline } from "../support/wait.ts";

export interface TestHost extends FramedClient {
  stderr(): string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }>;
  closeStdin(): void;
  /** Like SIGKILL: the client side goes away at once and every session is torn down. */
  kill(): void;
  /** True while the host's writer waits for an unread output to drain. */
  outputBlocked(): boolean;
}

export interface InProcessOptions {
  /** `SCV_HOST_*` limit overrides, as the environment of `scv host`. */
  env?: Record<string, string>;
  sandbox?: Sandbox;
  /** `false`: nobody reads the output (a client that stopped reading). */
  readOutput?: boolean;
}

const live = new Set<TestHost>();

/** Starts a connection in this process. */
export function startInProcess(options: InProcessOptions = {}): TestHost {
  const started = Date.now();
  const input = new PassThrough();
  // kill() after the transport stopped listening must not become an unhandled stream error.
  input.on("error", () => undefined);
  const output = new PassThrough({ highWaterMark: 64 * 1024 });
  const frames = new FrameQueue();
  const lines: string[] = [];
  const outcome = serveStdio({
    input,
    output,
    sandbox: options.sandbox ?? inertSandbox(),
    limits: limitsFromEnv(options.env ?? {}),
    log: (line) => lines.push(line),
  });
  // Like a process's stdout, the output ends when the connection is over; `exit` resolves after
  // every frame written before was read.
  const reader = options.readOutput === false ? Promise.resolve() : (async () => {
    try {
      for await (const frame of readFrames(output, { parse: parsePreciseJson })) frames.push(frame);
      frames.end(new Error("host stdout ended"));
    } catch (error) {
      frames.end(error as Error);
    }
  })();
  const exit = outcome.then(async (result) => {
    if (result.error !== null) lines.push(`Error: ${result.error}`);
    output.end();
    await reader;
    return { code: result.error === null ? 0 : 1, signal: null, ms: Date.now() - started };
  });
  const write = (bytes: Uint8Array): void => {
    if (!input.destroyed && !input.writableEnded) input.write(bytes);
  };
  const host: TestHost = {
    frames,
    stderr: () => lines.map((line) => `${line}\n`).join(""),
    exit,
    send: (message) => write(encodeFrame(message)),
    sendBatch: (messages) => write(Buffer.concat(messages.map((message) => encodeFrame(message)))),
    sendRaw: (bytes) => write(bytes),
    closeStdin: () => input.end(),
    outputBlocked: () => output.writableNeedDrain,
    kill: () => {
      if (!input.destroyed) input.destroy(new Error("test client killed"));
    },
  };
  live.add(host);
  void exit.then(() => live.delete(host));
  return host;
}

/** Starts a connection, sends a hello without capabilities and checks the ready frame. */
export async function readyInProcess(optional: string[] = [], options: InProcessOptions = {}): Promise<TestHost> {
  const host = startInProcess(options);
  host.send(hello(optional));
  const ready = await host.frames.next();
  if (ready.type !== "connection/ready") throw new Error(`expected connection/ready, got ${JSON.stringify(ready)}`);
  return host;
}

/** Ends every connection still open (for afterAll). */
export function killAllInProcess(): void {
  for (const host of live) host.kill();
  live.clear();
}

/** A real sandbox for one test file, shut down with `stop`. */
export function fileSandbox(): { sandbox: Sandbox; stop: () => Promise<void> } {
  const sandbox = createSandbox();
  return {
    sandbox,
    stop: async () => {
      killAllInProcess();
      await sandbox.shutdown();
    },
  };
}

/** A sandbox for tests that open sessions but run no cell: any cell operation fails the test loudly. */
export function inertSandbox(): Sandbox {
  const refuse = (): never => {
    throw new Error("this test runs no cells (inert sandbox)");
  };
  const session: SandboxSession = {
    startCell: refuse,
    wait: refuse,
    terminate: refuse,
    yieldNow: refuse,
    close: async () => undefined,
  };
  return { openSession: () => session, shutdown: async () => undefined };
}

/** Resolves once `host`'s stderr contains `text`. */
export async function logContains(host: TestHost, text: string, atLeastMs?: number): Promise<boolean> {
  const deadline = Date.now() + hangDeadline(atLeastMs);
  while (!host.stderr().includes(text)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return true;
}
