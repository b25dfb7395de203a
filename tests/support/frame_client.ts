// A framed test client for `scv host`: over a child process's real pipes, or over a real
// WebSocket (the `ws` client). Frames use the shared codec.
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { WebSocket } from "ws";
import { decodeFrameMessage, encodeFrame, readFrames } from "../../lib/codec/index.ts";
import { parsePreciseJson } from "../../lib/host/precise_json.ts";
import { cliCommand, cliEnv, ROOT } from "./cli_command.ts";
import { HANG_MS, hangDeadline } from "./wait.ts";

export { MAIN, ROOT } from "./cli_command.ts";

// Frames are untyped wire JSON on purpose: the tests check their shape by assertion, also for malformed input.
// deno-lint-ignore no-explicit-any
export type Frame = any;

/** An async queue of received frames, with deadlines that only catch hangs (`atLeastMs` may lengthen one). */
export class FrameQueue {
  readonly #items: Frame[] = [];
  readonly #waiters: { resolve: (frame: Frame) => void; reject: (error: Error) => void }[] = [];
  #ended: Error | null = null;
  readonly received: Frame[] = [];

  push(frame: Frame): void {
    this.received.push(frame);
    const waiter = this.#waiters.shift();
    if (waiter) waiter.resolve(frame);
    else this.#items.push(frame);
  }

  end(error: Error): void {
    this.#ended = error;
    for (const waiter of this.#waiters.splice(0)) waiter.reject(error);
  }

  /** The next frame, or a rejection after the hang deadline. */
  next(atLeastMs?: number): Promise<Frame> {
    const timeoutMs = hangDeadline(atLeastMs);
    if (this.#items.length > 0) return Promise.resolve(this.#items.shift());
    if (this.#ended) return Promise.reject(this.#ended);
    return new Promise((resolve, reject) => {
      const waiter = {
        resolve: (frame: Frame) => {
          clearTimeout(timer);
          resolve(frame);
        },
        reject: (error: Error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      const timer = setTimeout(() => {
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for a frame`));
      }, timeoutMs);
      this.#waiters.push(waiter);
    });
  }

  /** Collects `count` frames. */
  async take(count: number, atLeastMs?: number): Promise<Frame[]> {
    const out: Frame[] = [];
    for (let i = 0; i < count; i++) out.push(await this.next(atLeastMs));
    return out;
  }

  /** Reads until `predicate` matches; returns every frame read, the match last. */
  async until(predicate: (frame: Frame) => boolean, atLeastMs?: number): Promise<Frame[]> {
    const out: Frame[] = [];
    for (;;) {
      const frame = await this.next(atLeastMs);
      out.push(frame);
      if (predicate(frame)) return out;
    }
  }

  /**
   * Rejects if a frame arrives within `ms`: a grace window for a check that something does not happen, which a busy
   * machine can only make pass for the wrong reason, never fail. Prefer an ordering barrier where there is one.
   */
  async expectNothing(ms: number): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, ms));
    if (this.#items.length > 0) throw new Error(`unexpected frame ${JSON.stringify(this.#items[0])}`);
  }
}

export interface FramedClient {
  frames: FrameQueue;
  send(message: unknown): void;
  /** Several frames in one write (one batch for the host's reader). */
  sendBatch(messages: unknown[]): void;
  sendRaw(bytes: Uint8Array): void;
}

export interface HostProcess extends FramedClient {
  child: ChildProcessWithoutNullStreams;
  stderr(): string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }>;
  closeStdin(): void;
  kill(): void;
}

const live = new Set<ChildProcessWithoutNullStreams>();

/** Starts `node main.ts host …args` (or `deno run -A main.ts host …`, see cli_command.ts) with real pipes. */
export function startHost(args: string[] = [], env: Record<string, string> = {}, readStdout = true): HostProcess {
  const { command, args: argv } = cliCommand(["host", ...args]);
  return startFramedProcess(command, argv, cliEnv(env), readStdout);
}

/** Starts any framed host binary (scv or the reference) with real pipes. */
export function startFramedProcess(
  command: string,
  args: string[],
  env: Record<string, string> = {},
  readStdout = true,
): HostProcess {
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  live.add(child);
  const started = Date.now();
  const frames = new FrameQueue();
  let stderr = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk: string) => (stderr += chunk));
  child.stdin.on("error", () => undefined);
  const stderrClosed = new Promise<void>((resolve) => child.stderr.once("close", () => resolve()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }>((resolve) => {
    child.once("exit", (code, signal) => {
      live.delete(child);
      const ms = Date.now() - started;
      // All of stderr is read before the exit is reported.
      void stderrClosed.then(() => resolve({ code, signal, ms }));
    });
  });
  if (readStdout && !args.some((arg) => arg.startsWith("ws://"))) {
    void (async () => {
      try {
        for await (const frame of readFrames(child.stdout, { parse: parsePreciseJson })) frames.push(frame);
        frames.end(new Error("host stdout ended"));
      } catch (error) {
        frames.end(error as Error);
      }
    })();
  }
  return {
    child,
    frames,
    stderr: () => stderr,
    exit,
    send: (message) => child.stdin.write(encodeFrame(message)),
    sendBatch: (messages) => child.stdin.write(Buffer.concat(messages.map((m) => encodeFrame(m)))),
    sendRaw: (bytes) => child.stdin.write(bytes),
    closeStdin: () => child.stdin.end(),
    kill: () => child.kill("SIGKILL"),
  };
}

/** Resolves once the host's stderr contains `text` (stderr arrives asynchronously). */
export async function stderrContains(host: HostProcess, text: string, atLeastMs?: number): Promise<boolean> {
  const deadline = Date.now() + hangDeadline(atLeastMs);
  while (!host.stderr().includes(text)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

/** Kills every host still running (for afterEach/afterAll). */
export function killAllHosts(): void {
  for (const child of live) child.kill("SIGKILL");
  live.clear();
}

/** Reads the first stdout line of a `--listen ws://…` host. */
export function listenUrl(host: HostProcess, atLeastMs?: number): Promise<string> {
  const timeoutMs = hangDeadline(atLeastMs);
  return new Promise((resolve, reject) => {
    let buffer = "";
    const timer = setTimeout(() => reject(new Error(`no listen URL; stderr: ${host.stderr()}`)), timeoutMs);
    host.child.stdout.setEncoding("utf8");
    host.child.stdout.on("data", (chunk: string) => {
      buffer += chunk;
      const newline = buffer.indexOf("\n");
      if (newline >= 0) {
        clearTimeout(timer);
        resolve(buffer.slice(0, newline));
      }
    });
  });
}

export interface WsClient extends FramedClient {
  socket: WebSocket;
  closed: Promise<{ code: number }>;
  sendText(text: string): void;
  close(): void;
}

export async function connectWs(url: string, headers: Record<string, string> = {}): Promise<WsClient> {
  const socket = new WebSocket(url, { headers, maxPayload: 67_108_868 + 16 });
  const frames = new FrameQueue();
  const closed = new Promise<{ code: number }>((resolve) => {
    socket.once("close", (code) => {
      frames.end(new Error(`websocket closed with ${code}`));
      resolve({ code });
    });
  });
  socket.on("message", (data, isBinary) => {
    if (!isBinary) {
      frames.end(new Error("host sent a text message"));
      return;
    }
    frames.push(decodeFrameMessage(data as Buffer, { parse: parsePreciseJson }));
  });
  await new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("error", reject);
    socket.once(
      "unexpected-response",
      (_request, response) =>
        reject(Object.assign(new Error(`unexpected response ${response.statusCode}`), { status: response.statusCode })),
    );
  });
  socket.on("error", () => undefined);
  return {
    socket,
    frames,
    closed,
    send: (message) => socket.send(encodeFrame(message), { binary: true }),
    sendBatch: (messages) => {
      for (const message of messages) socket.send(encodeFrame(message), { binary: true });
    },
    sendRaw: (bytes) => socket.send(bytes, { binary: true }),
    sendText: (text) => socket.send(text, { binary: false }),
    close: () => socket.close(),
  };
}

// ---- message helpers ----------------------------------------------------------------------

export const ALL_CAPABILITIES = [
  "bounded-output-v1",
  "delegate-capacity-4096",
  "session-cell-execution-resource-limits",
  "tool-catalog-revision-v1",
  "yield-observation",
];

export function hello(optional: string[] = [], required: string[] = [], versions: number[] = [1]): unknown {
  return {
    type: "connection/hello",
    supportedVersions: versions,
    requiredCapabilities: required,
    optionalCapabilities: optional,
  };
}

export function request(id: number, body: Record<string, unknown>): unknown {
  return { type: "operation/request", id, request: body };
}

export function open(id: number, sessionId: string, extra: Record<string, unknown> = {}): unknown {
  return request(id, { method: "session/open", sessionId, ...extra });
}

export interface ExecuteOptions {
  tools?: unknown[];
  yieldTimeMs?: number | null;
  maxOutputTokens?: number | null;
  catalogRevision?: number | null;
  toolCallId?: string;
}

export function execute(id: number, sessionId: string, source: string, options: ExecuteOptions = {}): unknown {
  const body: Record<string, unknown> = {
    tool_call_id: options.toolCallId ?? "call_1",
    enabled_tools: options.tools ?? [],
    source,
    // Unless a test sets it, a cell gets until past the hang deadline to complete before it yields: the host's
    // default (11 s) is not enough for a big cell on a busy machine.
    yield_time_ms: options.yieldTimeMs === undefined ? 2 * HANG_MS : options.yieldTimeMs,
    max_output_tokens: options.maxOutputTokens ?? null,
  };
  if (options.catalogRevision !== undefined) body.catalog_revision = options.catalogRevision;
  return request(id, { method: "session/execute", sessionId, request: body });
}

export function wait(
  id: number,
  sessionId: string,
  cellId: string,
  yieldTimeMs: number,
  maxOutputTokens?: number,
): unknown {
  const body: Record<string, unknown> = {
    method: "session/wait",
    sessionId,
    request: { cell_id: cellId, yield_time_ms: yieldTimeMs },
  };
  if (maxOutputTokens !== undefined) body.maxOutputTokens = maxOutputTokens;
  return request(id, body);
}

export function terminate(id: number, sessionId: string, cellId: string, maxOutputTokens?: number): unknown {
  const body: Record<string, unknown> = { method: "session/terminate", sessionId, cellId };
  if (maxOutputTokens !== undefined) body.maxOutputTokens = maxOutputTokens;
  return request(id, body);
}

export function shutdown(id: number, sessionId: string): unknown {
  return request(id, { method: "session/shutdown", sessionId });
}

export function tool(name: string, extra: Record<string, unknown> = {}): unknown {
  return {
    name,
    tool_name: { name, namespace: null },
    description: "",
    kind: "function",
    input_schema: null,
    output_schema: null,
    ...extra,
  };
}

export function toolResult(id: number | bigint, result: unknown): unknown {
  return { type: "delegate/response", id, result: { status: "ok", value: { type: "tool/result", result } } };
}

/** A 4-byte little-endian length prefix. */
export function prefix(length: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32LE(length, 0);
  return bytes;
}

/** Starts a stdio host, sends a hello without capabilities and checks the ready frame. */
export async function readyHost(optional: string[] = [], env: Record<string, string> = {}): Promise<HostProcess> {
  const host = startHost([], env);
  host.send(hello(optional));
  const ready = await host.frames.next(10_000);
  if (ready.type !== "connection/ready") throw new Error(`expected connection/ready, got ${JSON.stringify(ready)}`);
  return host;
}
