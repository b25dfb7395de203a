// An NDJSON test client over a spawned `node main.ts server --stdio` (or Deno, see cli_command.ts): real pipes, every stdout line parsed and
// kept, `next(type)` waiting for the next event of a type (skipped events stay in `events`) until a deadline that
// only catches hangs.
// `startInProcessServer` gives the same client over in-memory streams to serveStdio, the connection code the
// CLI runs, for tests about protocol rules rather than the process (no spawn: milliseconds instead of ~1 s).
import { type ChildProcess, spawn } from "node:child_process";
import { PassThrough, type Readable, type Writable } from "node:stream";
import { createLogger } from "../../lib/util/log.ts";
import type { ServerOptions } from "../../lib/server/session_start.ts";
import { serveStdio } from "../../lib/server/stdio.ts";
import { killEveryProcessGroup } from "../../lib/tools/process_group.ts";
import { cliCommand, cliEnv, ROOT } from "./cli_command.ts";
import { hangDeadline } from "./wait.ts";

// Events are untyped wire JSON on purpose: the tests check their shape by assertion, not by the type checker.
// deno-lint-ignore no-explicit-any
export type ServerEvent = { type: string; [field: string]: any };

const live = new Set<ServerClient>();

export type SpawnOptions = {
  /** Extra arguments after `server` (default `--stdio`). */
  args?: string[];
  env: Record<string, string | undefined>;
  cwd?: string;
  /** An executable to run as `<command> server …` instead of the test runtime with main.ts (the binary). */
  command?: string;
};

type Exit = { code: number | null; signal: NodeJS.Signals | null };

/** Where a client's bytes go and come from: a child process, or serveStdio in this process. */
type Transport = {
  stdin: Writable;
  stdout: Readable;
  stderr: Readable;
  exited: Promise<Exit>;
  kill(): void;
  child?: ChildProcess;
};

function spawnTransport(options: SpawnOptions): Transport {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(options.env)) if (value !== undefined) env[key] = value;
  const serverArgs = ["server", ...(options.args ?? ["--stdio"])];
  const { command, args } = options.command === undefined
    ? cliCommand(serverArgs)
    : { command: options.command, args: serverArgs };
  const child = spawn(command, args, { cwd: options.cwd ?? ROOT, env: cliEnv(env), stdio: ["pipe", "pipe", "pipe"] });
  const exited = new Promise<Exit>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  return {
    stdin: child.stdin!,
    stdout: child.stdout!,
    stderr: child.stderr!,
    exited,
    kill: () => child.kill("SIGKILL"),
    child,
  };
}

/** The `scv server` flags as ServerOptions fields (the subset the tests use); other flags need a real process. */
function serverFlags(args: readonly string[]): Omit<ServerOptions, "env" | "cwd"> {
  const fields: Record<string, keyof Omit<ServerOptions, "env" | "cwd" | "warn">> = {
    "--model": "model",
    "--base-url": "baseUrl",
    "--provider": "provider",
    "--approval-policy": "approvalPolicy",
    "--scv-home": "scvHome",
    "--config-path": "configPath",
  };
  const options: Record<string, string> = {};
  if (!args.includes("--stdio"))
    throw new Error("An in-process server needs --stdio (the CLI's usage errors need a real process)");
  for (let index = 0; index < args.length; index += 1) {
    const flag = args[index]!;
    if (flag === "--stdio") continue;
    const field = fields[flag];
    const value = args[index + 1];
    if (field === undefined || value === undefined)
      throw new Error(`An in-process server cannot take ${flag}: use a spawned one`);
    options[field] = value;
    index += 1;
  }
  return options as Omit<ServerOptions, "env" | "cwd">;
}

function inProcessTransport(options: SpawnOptions): Transport {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const stop = new AbortController();
  const env = options.env;
  const log = createLogger(env.SCV_LOG, "scv server", (line) => stderr.write(line));
  const served = serveStdio(
    stdin,
    stdout,
    { ...serverFlags(options.args ?? ["--stdio"]), env, cwd: options.cwd ?? ROOT, warn: log.warn },
    log,
    stop.signal,
  );
  const exited = served.then(
    (result) => ({ code: result.exitCode, signal: null }),
    (error: unknown) => {
      stderr.write(`in-process server failed: ${error instanceof Error ? error.stack : String(error)}\n`);
      return { code: 1, signal: null };
    },
  ).then((exit) => {
    // What runServer does after the connection: no bash process group outlives it.
    killEveryProcessGroup();
    stdout.end();
    stderr.end();
    return exit;
  });
  return { stdin, stdout, stderr, exited, kill: () => stop.abort() };
}

export class ServerClient {
  readonly #transport: Transport;
  /** Every event received so far, in order. */
  readonly events: ServerEvent[] = [];
  /** Raw stdout lines (protocol frames only, if the server is correct). */
  readonly lines: string[] = [];
  stderr = "";
  #cursor = 0;
  #partial = "";
  #wake: Array<() => void> = [];
  #exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  #exitInfo: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  sessionId = "";

  /** Spawns the CLI; `inProcess` runs serveStdio in this process instead (see startInProcessServer). */
  constructor(options: SpawnOptions, inProcess = false) {
    const transport = inProcess ? inProcessTransport(options) : spawnTransport(options);
    this.#transport = transport;
    live.add(this);
    transport.stdin.on("error", () => {});
    transport.stdout.setEncoding("utf8");
    transport.stdout.on("data", (chunk: string) => this.#onData(chunk));
    transport.stderr.setEncoding("utf8");
    transport.stderr.on("data", (chunk: string) => {
      this.stderr += chunk;
    });
    this.#exited = transport.exited.then((exit) => {
      this.#exitInfo = exit;
      live.delete(this);
      this.#notify();
      return exit;
    });
  }

  /** The server's process; throws for an in-process server, which has none. */
  get child(): ChildProcess {
    if (!this.#transport.child)
      throw new Error("An in-process server has no child process: spawn one (spawnServer) to test the process");
    return this.#transport.child;
  }

  /** True when the server runs in this process (serveStdio over in-memory streams). */
  get inProcess(): boolean {
    return this.#transport.child === undefined;
  }

  #onData(chunk: string): void {
    const text = this.#partial + chunk;
    const parts = text.split("\n");
    this.#partial = parts.pop()!;
    for (const line of parts) {
      this.lines.push(line);
      try {
        this.events.push(JSON.parse(line));
      } catch {
        this.events.push({ type: "<unparsable>", line });
      }
    }
    this.#notify();
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = [];
    for (const resolve of wake) resolve();
  }

  send(message: Record<string, unknown>): void {
    this.#transport.stdin.write(`${JSON.stringify(message)}\n`);
  }

  sendRaw(text: string): void {
    this.#transport.stdin.write(text);
  }

  closeStdin(): void {
    this.#transport.stdin.end();
  }

  /**
   * The next event (of `type`, or one of `types`, when given) after the previous `next` result. Rejects after
   * the hang deadline (`atLeastMs` may lengthen it) or when the server exits first, naming what was seen.
   */
  async next(type?: string | string[], atLeastMs?: number): Promise<ServerEvent> {
    const timeoutMs = hangDeadline(atLeastMs);
    const wanted = type === undefined ? undefined : Array.isArray(type) ? type : [type];
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      while (this.#cursor < this.events.length) {
        const event = this.events[this.#cursor++]!;
        if (!wanted || wanted.includes(event.type)) return event;
      }
      if (this.#exitInfo)
        throw new Error(
          `server exited (${JSON.stringify(this.#exitInfo)}) before ${wanted ?? "an event"}; stderr: ${this.stderr}`,
        );
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new Error(
          `timed out waiting for ${wanted ?? "an event"}; seen: ${
            this.events.map((e) => e.type).join(", ")
          }; stderr: ${this.stderr}`,
        );
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#wake.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Events received after the cursor, without consuming them. */
  pending(): ServerEvent[] {
    return this.events.slice(this.#cursor);
  }

  /** Waits `ms` and asserts-by-return what arrived meanwhile (for "nothing happens" checks). */
  async quiet(ms: number): Promise<ServerEvent[]> {
    const before = this.events.length;
    await new Promise((resolve) => setTimeout(resolve, ms));
    return this.events.slice(before);
  }

  async initialize(requestId = "init"): Promise<ServerEvent> {
    this.send({
      type: "initialize",
      request_id: requestId,
      protocol_version: 3,
      client: { name: "test", version: "0" },
    });
    return this.next("initialized");
  }

  /** initialize + session.start; returns session.started and remembers the session id. */
  async start(fields: Record<string, unknown>, requestId = "session"): Promise<ServerEvent> {
    await this.initialize();
    this.send({ type: "session.start", request_id: requestId, ...fields });
    const started = await this.next(["session.started", "error"]);
    if (started.type !== "session.started") throw new Error(`session.start failed: ${JSON.stringify(started)}`);
    this.sessionId = started.session_id;
    await this.next("queue.snapshot");
    return started;
  }

  turn(prompt: string, requestId = "turn"): void {
    this.send({ type: "turn.start", request_id: requestId, session_id: this.sessionId, prompt });
  }

  /** Resolves with the exit status, or rejects after the hang deadline (`atLeastMs` may lengthen it). */
  async exit(atLeastMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    const timeoutMs = hangDeadline(atLeastMs);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`server did not exit within ${timeoutMs} ms; stderr: ${this.stderr}`)),
        timeoutMs,
      );
    });
    try {
      return await Promise.race([this.#exited, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Closes stdin and expects exit 0 (the spec's ending of every run). */
  async finish(atLeastMs?: number): Promise<void> {
    this.closeStdin();
    const { code, signal } = await this.exit(atLeastMs);
    if (code !== 0) throw new Error(`server exited with ${code ?? signal}; stderr: ${this.stderr}`);
  }

  kill(): void {
    if (!this.#exitInfo) this.#transport.kill();
  }
}

export function spawnServer(options: SpawnOptions): ServerClient {
  return new ServerClient(options);
}

/**
 * The same client over serveStdio in this process, with `options.env` as the server's environment. For
 * protocol rules; what needs the process (flags' usage errors, signals, stderr of the CLI, bash children's
 * environment, which is this process's) needs spawnServer.
 */
export function startInProcessServer(options: SpawnOptions): ServerClient {
  return new ServerClient(options, true);
}

/** Kills every client still running (for afterEach). */
export function killAllServers(): void {
  for (const client of live) client.kill();
}
