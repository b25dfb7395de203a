// Running a child in its own process group: merged, bounded output; a deadline that SIGKILLs
// the group; cancellation with SIGTERM then SIGKILL; and, once the leader exits, the rest of
// the group is killed and draining stops after a short grace so `sleep 100 &` cannot hold a call.

import { type ChildProcess, spawn } from "node:child_process";
import type { ResolvedConfig } from "../config/index.ts";

export type ProcessTimings = {
  /** Between SIGTERM and SIGKILL on cancellation (spec: 2 s). */
  killGraceMs: number;
  /** How long output is still drained after the group is finished (spec: 250 ms). */
  drainMs: number;
};

export const DEFAULT_TIMINGS: ProcessTimings = { killGraceMs: 2000, drainMs: 250 };

export type ProcessOptions = {
  file: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  outputLimitBytes: number;
  signal: AbortSignal;
  /** The owner the group is registered with while it runs. */
  groups: ProcessGroups;
  /** Every chunk of stdout or stderr as it arrives (for progress). */
  onOutput?(chunk: Buffer, stream: "stdout" | "stderr"): void;
  timings?: ProcessTimings;
  /** A process already running the command in a group of its own (standby_shell.ts): watched, `file` not spawned. */
  running?: ChildProcess;
};

/**
 * The environment of every tool process: the server's, without the variables scv reads secrets from
 * (`config.secrets.env_names`), except those the user passes through on purpose (`tools.env_passthrough`).
 */
export function toolEnvironment(config: ResolvedConfig, base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const dropped = new Set(config.secrets.env_names);
  for (const name of config.tools.env_passthrough) dropped.delete(name);
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(base)) if (!dropped.has(name)) env[name] = value;
  return env;
}

export type ProcessResult =
  | { kind: "finished"; exitCode: number | null; timedOut: boolean } & CapturedOutput
  | { kind: "cancelled" } & CapturedOutput
  | { kind: "spawn_failed"; error: Error };

/**
 * The first `outputLimitBytes` of the merged output, and separately its last `outputLimitBytes / 2` bytes and the
 * total size, so a caller can show a failing command's head and tail (the error is usually at the end).
 */
export type CapturedOutput = { output: Buffer; truncated: boolean; tail: Buffer; totalBytes: number };

type Exit = { code: number | null; signal: NodeJS.Signals | null };

/**
 * The process groups one owner (a session) started and that are still running. A session's shutdown kills its own
 * groups only, so sessions sharing a process (chat restarting its engine, a test server running several) leave each
 * other's commands alone.
 */
export class ProcessGroups {
  readonly #live = new Set<number>();

  get size(): number {
    return this.#live.size;
  }

  /** SIGKILLs every group of this owner still running (for shutdown paths that cannot wait). */
  killAll(): void {
    for (const pgid of this.#live) signalGroup(pgid, "SIGKILL");
  }

  track(pgid: number): void {
    this.#live.add(pgid);
    withLiveGroups.add(this);
    installExitHook();
  }

  untrack(pgid: number): void {
    this.#live.delete(pgid);
    if (this.#live.size === 0) withLiveGroups.delete(this);
  }
}

// Owners with running groups, only so that the process's own exit (or a signal that ends it) leaves none behind.
const withLiveGroups = new Set<ProcessGroups>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", killEveryProcessGroup);
}

/** SIGKILLs the running groups of every owner: only for the process's own exit (a signal, the end of the CLI). */
export function killEveryProcessGroup(): void {
  for (const owner of withLiveGroups) owner.killAll();
}

export async function runProcessGroup(options: ProcessOptions): Promise<ProcessResult> {
  const timings = options.timings ?? DEFAULT_TIMINGS;
  if (options.signal.aborted && options.running === undefined)
    return { kind: "cancelled", output: Buffer.alloc(0), truncated: false, tail: Buffer.alloc(0), totalBytes: 0 };
  const started = options.running === undefined ? await spawnChild(options) : { child: options.running };
  if ("failed" in started) return started.failed;
  return await superviseGroup(started.child, options, timings);
}

/** Spawns `options.file` in a new process group; resolves when it runs, or with why it could not start. */
async function spawnChild(options: ProcessOptions): Promise<{ child: ChildProcess } | { failed: ProcessResult }> {
  let child: ChildProcess;
  try {
    child = spawn(options.file, options.args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
  } catch (error) {
    return { failed: { kind: "spawn_failed", error: error instanceof Error ? error : new Error(String(error)) } };
  }
  const spawnError = await new Promise<Error | undefined>((resolve) => {
    child.once("spawn", () => resolve(undefined));
    child.once("error", resolve);
  });
  if (spawnError !== undefined || child.pid === undefined) {
    child.stdout?.destroy();
    child.stderr?.destroy();
    return { failed: { kind: "spawn_failed", error: spawnError ?? new Error("child process has no pid") } };
  }
  return { child };
}

async function superviseGroup(
  child: ChildProcess,
  options: ProcessOptions,
  timings: ProcessTimings,
): Promise<ProcessResult> {
  const pgid = child.pid!;
  options.groups.track(pgid);

  const output = new BoundedOutput(options.outputLimitBytes);
  const streamsClosed: Promise<unknown>[] = [];
  for (const name of ["stdout", "stderr"] as const) {
    const stream = child[name]!;
    stream.on("data", (chunk: Buffer) => {
      output.push(chunk);
      options.onOutput?.(chunk, name);
    });
    stream.on("error", () => undefined);
    streamsClosed.push(new Promise((resolve) => stream.once("close", resolve)));
  }
  const exited = new Promise<Exit>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  child.on("error", () => undefined);

  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const first = await Promise.race([
    exited.then((exit) => ({ type: "exit" as const, exit })),
    new Promise<{ type: "timeout" }>((resolve) => {
      timer = setTimeout(() => resolve({ type: "timeout" }), options.timeoutMs);
    }),
    new Promise<{ type: "cancel" }>((resolve) => {
      onAbort = () => resolve({ type: "cancel" });
      // The signal may have fired while we awaited the spawn: its event will not come again.
      if (options.signal.aborted) onAbort();
      else options.signal.addEventListener("abort", onAbort, { once: true });
    }),
  ]);
  clearTimeout(timer);
  if (onAbort !== undefined) options.signal.removeEventListener("abort", onAbort);

  const finishDrain = async () => {
    await settleWithin(Promise.all(streamsClosed), timings.drainMs);
    child.stdout?.destroy();
    child.stderr?.destroy();
    options.groups.untrack(pgid);
  };

  switch (first.type) {
    case "exit": {
      // The leader is done; whatever it left running in its group is not part of the call.
      signalGroup(pgid, "SIGKILL");
      await finishDrain();
      return { kind: "finished", exitCode: first.exit.code, timedOut: false, ...output.result() };
    }
    case "timeout": {
      signalGroup(pgid, "SIGKILL");
      const exit = await settleWithin(exited, 1000);
      await finishDrain();
      return { kind: "finished", exitCode: exit?.code ?? null, timedOut: true, ...output.result() };
    }
    case "cancel": {
      signalGroup(pgid, "SIGTERM");
      let leaderExited = false;
      void exited.then(() => {
        leaderExited = true;
      });
      const giveUp = Date.now() + timings.killGraceMs;
      while (Date.now() < giveUp && !(leaderExited && !groupAlive(pgid))) await sleep(20);
      signalGroup(pgid, "SIGKILL");
      await settleWithin(exited, 1000);
      await finishDrain();
      return { kind: "cancelled", ...output.result() };
    }
  }
}

/** Signals a whole group; never group 0 or 1 (our own group, or init's). */
function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  if (!Number.isInteger(pgid) || pgid <= 1) return;
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: nobody left in the group
  }
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The promise's value, or undefined once `ms` have passed. */
async function settleWithin<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Keeps the first `limit` bytes of everything pushed, the last `limit / 2` bytes, and whether more came. */
class BoundedOutput {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private truncated = false;
  private readonly limit: number;
  private readonly tailLimit: number;
  private tailChunks: Buffer[] = [];
  private tailSize = 0;
  private total = 0;

  constructor(limit: number) {
    this.limit = limit;
    this.tailLimit = Math.floor(limit / 2);
  }

  push(chunk: Buffer): void {
    this.total += chunk.length;
    this.pushTail(chunk);
    const room = this.limit - this.size;
    if (chunk.length > room) this.truncated = true;
    if (room <= 0) return;
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.chunks.push(Buffer.from(kept));
    this.size += kept.length;
  }

  private pushTail(chunk: Buffer): void {
    if (this.tailLimit === 0) return;
    const kept = chunk.length > this.tailLimit ? chunk.subarray(chunk.length - this.tailLimit) : chunk;
    this.tailChunks.push(Buffer.from(kept));
    this.tailSize += kept.length;
    // Drop whole chunks from the front while the rest still covers the limit; compact when the list grows.
    while (this.tailChunks.length > 1 && this.tailSize - this.tailChunks[0]!.length >= this.tailLimit) {
      this.tailSize -= this.tailChunks.shift()!.length;
    }
    if (this.tailChunks.length > 64) this.tailChunks = [Buffer.concat(this.tailChunks, this.tailSize)];
  }

  result(): CapturedOutput {
    const tail = Buffer.concat(this.tailChunks, this.tailSize);
    return {
      output: Buffer.concat(this.chunks, this.size),
      truncated: this.truncated,
      tail: tail.length > this.tailLimit ? tail.subarray(tail.length - this.tailLimit) : tail,
      totalBytes: this.total,
    };
  }
}
