// An NDJSON test client over a spawned `node main.ts server --stdio` (or Deno, see cli_command.ts): real pipes, every stdout line parsed and
// kept, `next(type)` waiting up to 3 s for the next event of a type (skipped events stay in `events`).
import { spawn, type ChildProcess } from "node:child_process";
import { cliCommand, cliEnv, ROOT } from "./cli_command.ts";

const NEXT_TIMEOUT_MS = 3000;

// Events are untyped wire JSON on purpose: the tests check their shape by assertion, not by the type checker.
// deno-lint-ignore no-explicit-any
export type ServerEvent = { type: string; [field: string]: any };

const live = new Set<ServerClient>();

export type SpawnOptions = {
  /** Extra arguments after `server` (default `--stdio`). */
  args?: string[];
  env: Record<string, string | undefined>;
  cwd?: string;
};

export class ServerClient {
  readonly child: ChildProcess;
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

  constructor(options: SpawnOptions) {
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(options.env)) if (value !== undefined) env[key] = value;
    const { command, args } = cliCommand(["server", ...(options.args ?? ["--stdio"])]);
    this.child = spawn(command, args, {
      cwd: options.cwd ?? ROOT,
      env: cliEnv(env),
      stdio: ["pipe", "pipe", "pipe"],
    });
    live.add(this);
    this.child.stdin!.on("error", () => {});
    this.child.stdout!.setEncoding("utf8");
    this.child.stdout!.on("data", (chunk: string) => this.#onData(chunk));
    this.child.stderr!.setEncoding("utf8");
    this.child.stderr!.on("data", (chunk: string) => {
      this.stderr += chunk;
    });
    this.#exited = new Promise((resolve) => {
      this.child.once("exit", (code, signal) => {
        this.#exitInfo = { code, signal };
        live.delete(this);
        this.#notify();
        resolve({ code, signal });
      });
    });
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
    this.child.stdin!.write(`${JSON.stringify(message)}\n`);
  }

  sendRaw(text: string): void {
    this.child.stdin!.write(text);
  }

  closeStdin(): void {
    this.child.stdin!.end();
  }

  /**
   * The next event (of `type`, or one of `types`, when given) after the previous `next` result. Rejects after
   * `timeoutMs` or when the server exits first, naming what was seen.
   */
  async next(type?: string | string[], timeoutMs = NEXT_TIMEOUT_MS): Promise<ServerEvent> {
    const wanted = type === undefined ? undefined : Array.isArray(type) ? type : [type];
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      while (this.#cursor < this.events.length) {
        const event = this.events[this.#cursor++]!;
        if (!wanted || wanted.includes(event.type)) return event;
      }
      if (this.#exitInfo) throw new Error(`server exited (${JSON.stringify(this.#exitInfo)}) before ${wanted ?? "an event"}; stderr: ${this.stderr}`);
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new Error(`timed out waiting for ${wanted ?? "an event"}; seen: ${this.events.map((e) => e.type).join(", ")}; stderr: ${this.stderr}`);
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
    this.send({ type: "initialize", request_id: requestId, protocol_version: 3, client: { name: "test", version: "0" } });
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

  /** Resolves with the exit status, or rejects after `timeoutMs`. */
  async exit(timeoutMs = 3000): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`server did not exit within ${timeoutMs} ms; stderr: ${this.stderr}`)), timeoutMs);
    });
    try {
      return await Promise.race([this.#exited, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Closes stdin and expects exit 0 within `timeoutMs` (the spec's ending of every run). */
  async finish(timeoutMs = 3000): Promise<void> {
    this.closeStdin();
    const { code, signal } = await this.exit(timeoutMs);
    if (code !== 0) throw new Error(`server exited with ${code ?? signal}; stderr: ${this.stderr}`);
  }

  kill(): void {
    if (!this.#exitInfo) this.child.kill("SIGKILL");
  }
}

export function spawnServer(options: SpawnOptions): ServerClient {
  return new ServerClient(options);
}

/** Kills every client still running (for afterEach). */
export function killAllServers(): void {
  for (const client of live) client.kill();
}
