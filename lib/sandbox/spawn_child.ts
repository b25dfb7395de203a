// Starts a sandbox process with exactly the environment it is given. Deno's node:child_process
// merges `env` into the parent's environment and lets a spawned `deno` inherit the parent's
// permissions (Deno 2.9), so under Deno the process is started with Deno.Command and `clearEnv`.
import { spawn } from "node:child_process";
import type { Launch } from "./launch.ts";

export interface ChildHandle {
  readonly pid: number | undefined;
  write(bytes: Buffer): void;
  /** Closes the child's stdin. */
  end(): void;
  kill(): void;
  readonly exited: boolean;
  ref(): void;
  unref(): void;
  /** Stops reading the child's stdout (its writes then block once the pipe is full); `resume` reads again. */
  pause(): void;
  resume(): void;
}

export interface ChildEvents {
  stdout(chunk: Buffer): void;
  stderr(text: string): void;
  /** Once the process ended and its output was read. */
  exit(code: number | null, signal: string | null): void;
  error(message: string): void;
}

interface DenoChild {
  pid: number;
  stdin: WritableStream<Uint8Array>;
  stdout: ReadableStream<Uint8Array>;
  stderr: ReadableStream<Uint8Array>;
  status: Promise<{ code: number; signal: string | null }>;
  kill(signal: string): void;
  ref(): void;
  unref(): void;
}
type DenoCommand = new (
  command: string,
  options: {
    args: string[];
    env: Record<string, string>;
    clearEnv: boolean;
    cwd: string;
    stdin: "piped";
    stdout: "piped";
    stderr: "piped";
    detached: boolean;
  },
) => { spawn(): DenoChild };

export function spawnChild(launch: Launch, events: ChildEvents): ChildHandle {
  const deno = (globalThis as { Deno?: { Command: DenoCommand } }).Deno;
  return deno === undefined ? spawnNode(launch, events) : spawnDeno(deno.Command, launch, events);
}

function spawnNode(launch: Launch, events: ChildEvents): ChildHandle {
  const child = spawn(launch.command, launch.args, {
    cwd: launch.cwd,
    env: launch.env,
    stdio: ["pipe", "pipe", "pipe"],
    // A session and process group of its own: no controlling terminal, and one kill reaches every
    // process of the launch (see killGroup).
    detached: true,
  });
  let exited = false;
  let status: [number | null, string | null] | null = null;
  let open = 2;
  const closed = (): void => {
    if (--open === 0 && status !== null) events.exit(...status);
  };
  child.stdout!.on("data", events.stdout);
  child.stdout!.on("close", closed);
  child.stderr!.setEncoding("utf8");
  child.stderr!.on("data", events.stderr);
  child.stderr!.on("close", closed);
  child.stdin!.on("error", () => undefined);
  child.on("error", (error) => {
    exited = true;
    events.error(error.message);
  });
  child.on("exit", (code, signal) => {
    exited = true;
    status = [code, signal];
    // What is left in a paused stdout is read, or its `close` never comes.
    child.stdout!.resume();
    if (open === 0) events.exit(code, signal);
  });
  const streams = [child.stdout, child.stderr, child.stdin] as unknown as { ref?(): void; unref?(): void }[];
  return {
    get pid() {
      return child.pid;
    },
    get exited() {
      return exited;
    },
    write: (bytes) => void child.stdin!.write(bytes),
    end: () => child.stdin!.destroy(),
    kill: () => {
      if (!exited) killGroup(child.pid, () => child.kill("SIGKILL"));
    },
    ref: () => {
      child.ref();
      for (const stream of streams.slice(0, 2)) stream.ref?.();
    },
    pause: () => {
      if (!exited) child.stdout!.pause();
    },
    resume: () => void child.stdout!.resume(),
    unref: () => {
      child.unref();
      for (const stream of streams) stream.unref?.();
    },
  };
}

function spawnDeno(Command: DenoCommand, launch: Launch, events: ChildEvents): ChildHandle {
  let child: DenoChild;
  try {
    child = new Command(launch.command, {
      args: launch.args,
      env: launch.env,
      clearEnv: true,
      cwd: launch.cwd,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
      detached: true,
    }).spawn();
  } catch (error) {
    queueMicrotask(() => events.error(error instanceof Error ? error.message : String(error)));
    return {
      pid: undefined,
      exited: true,
      write() {},
      end() {},
      kill() {},
      ref() {},
      unref() {},
      pause() {},
      resume() {},
    };
  }
  let exited = false;
  const writer = child.stdin.getWriter();
  // While paused, stdout's reader waits for this gate before it reads on.
  let gate: Promise<void> | null = null;
  let open: (() => void) | null = null;
  const drain = async (
    stream: ReadableStream<Uint8Array>,
    sink: (chunk: Uint8Array) => void,
    gated: boolean,
  ): Promise<void> => {
    try {
      for await (const chunk of stream) {
        sink(chunk);
        if (gated && gate !== null) await gate;
      }
    } catch {
      // The process is gone.
    }
  };
  const decoder = new TextDecoder();
  const output = Promise.all([
    drain(
      child.stdout,
      (chunk) => events.stdout(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)),
      true,
    ),
    drain(child.stderr, (chunk) => events.stderr(decoder.decode(chunk, { stream: true })), false),
  ]);
  void child.status.then(async (status) => {
    exited = true;
    // A paused stdout is read to its end, or `output` never settles.
    open?.();
    gate = null;
    await output;
    events.exit(status.signal === null ? status.code : null, status.signal);
  });
  return {
    pid: child.pid,
    get exited() {
      return exited;
    },
    write: (bytes) => void writer.write(bytes).catch(() => undefined),
    end: () => void writer.close().catch(() => undefined),
    kill: () => {
      if (exited) return;
      killGroup(child.pid, () => {
        try {
          child.kill("SIGKILL");
        } catch {
          // Already gone.
        }
      });
    },
    ref: () => child.ref(),
    unref: () => child.unref(),
    pause: () => {
      if (!exited) gate ??= new Promise((resolve) => (open = resolve));
    },
    resume: () => {
      const release = open;
      gate = null;
      open = null;
      release?.();
    },
  };
}

/**
 * SIGKILLs the process group `pid` leads, or else the process alone. A wrapper (bwrap, unshare)
 * killed alone can leave its child running: bwrap's inner process outlives an outer one killed
 * while it was still setting up, and keeps the cell's code spinning with nobody to stop it.
 */
function killGroup(pid: number | undefined, killOne: () => void): void {
  if (pid !== undefined && pid > 0) {
    try {
      process.kill(-pid, "SIGKILL");
      return;
    } catch {
      // No such group (a runtime that did not start one): the process alone.
    }
  }
  killOne();
}
