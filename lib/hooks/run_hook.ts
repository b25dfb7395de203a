// Running one hook command: `/bin/sh -c COMMAND` (as Claude Code does) in its own process group, in the working
// folder, with the tool environment (no API keys), one JSON object on stdin; stdout and stderr kept apart and
// bounded. At its timeout, on cancellation, and once the command itself has exited, the whole group is killed: a
// hook leaves nothing behind. (Not bash: with a socket for stdin, as Node's pipes are, bash reads ~/.bashrc.)
import { type ChildProcess, spawn } from "node:child_process";

/** What a hook printed beyond this is dropped (each stream). */
export const MAX_HOOK_OUTPUT_BYTES = 65_536;
/** How long output is still read after the command exited (its group is killed first). */
const DRAIN_MS = 250;

export type HookProcess = {
  command: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  input: string;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Told each process group while it runs, so an owner's shutdown can kill it. */
  track?(pgid: number): void;
  untrack?(pgid: number): void;
  /** The shell; tests point it elsewhere to make the spawn fail. */
  shell?: string;
  /** Milliseconds since some origin; a fake clock in tests. */
  now?(): number;
  /** Starts the timeout's timer and returns its cancel (a test fires it when it chooses). */
  startTimer?(fire: () => void, ms: number): () => void;
};

export type HookProcessResult = {
  /** The exit code, or null when a signal (the timeout's, a cancellation's) ended it. */
  exitCode: number | null;
  timedOut: boolean;
  cancelled: boolean;
  stdout: string;
  stderr: string;
  durationMs: number;
  /** Why the command could not start, when it could not. */
  spawnError?: string;
};

export async function runHookProcess(options: HookProcess): Promise<HookProcessResult> {
  const now = options.now ?? (() => performance.now());
  const started = now();
  const result = (fields: Partial<HookProcessResult>): HookProcessResult => ({
    exitCode: null,
    timedOut: false,
    cancelled: false,
    stdout: "",
    stderr: "",
    durationMs: Math.max(0, Math.round(now() - started)),
    ...fields,
  });
  if (options.signal?.aborted) return result({ cancelled: true });
  let child: ChildProcess;
  try {
    child = spawn(options.shell ?? "/bin/sh", ["-c", options.command], {
      cwd: options.cwd,
      env: options.env,
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
    });
  } catch (error) {
    return result({ spawnError: (error as Error).message });
  }
  const spawnError = await new Promise<Error | undefined>((resolve) => {
    child.once("spawn", () => resolve(undefined));
    child.once("error", resolve);
  });
  if (spawnError !== undefined || child.pid === undefined) {
    for (const stream of [child.stdin, child.stdout, child.stderr]) stream?.destroy();
    return result({ spawnError: spawnError?.message ?? "the hook has no process id" });
  }
  const pgid = child.pid;
  options.track?.(pgid);
  child.on("error", () => undefined);
  // A hook that does not read its input must not fail on a closed pipe.
  child.stdin!.on("error", () => undefined);
  child.stdin!.end(options.input);
  const stdout = new Bounded();
  const stderr = new Bounded();
  const closed = [
    new Promise((resolve) => child.stdout!.once("close", resolve)),
    new Promise((resolve) => child.stderr!.once("close", resolve)),
  ];
  child.stdout!.on("data", (chunk: Buffer) => stdout.push(chunk));
  child.stderr!.on("data", (chunk: Buffer) => stderr.push(chunk));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));

  const startTimer = options.startTimer ?? ((fire: () => void, ms: number) => {
    const timer = setTimeout(fire, ms);
    return () => clearTimeout(timer);
  });
  let stopTimer = () => {};
  let onAbort: (() => void) | undefined;
  const first = await Promise.race([
    exited.then((code) => ({ kind: "exit" as const, code })),
    new Promise<{ kind: "timeout" }>((resolve) => {
      stopTimer = startTimer(() => resolve({ kind: "timeout" }), options.timeoutMs);
    }),
    new Promise<{ kind: "cancel" }>((resolve) => {
      onAbort = () => resolve({ kind: "cancel" });
      // The signal may have fired while the spawn was awaited: its event will not come again.
      if (options.signal?.aborted) onAbort();
      else options.signal?.addEventListener("abort", onAbort, { once: true });
    }),
  ]);
  stopTimer();
  if (onAbort !== undefined) options.signal?.removeEventListener("abort", onAbort);
  killGroup(pgid);
  const code = first.kind === "exit" ? first.code : await within(exited, 1000);
  await within(Promise.all(closed), DRAIN_MS);
  child.stdout!.destroy();
  child.stderr!.destroy();
  options.untrack?.(pgid);
  return result({
    exitCode: first.kind === "exit" ? code ?? null : null,
    timedOut: first.kind === "timeout",
    cancelled: first.kind === "cancel",
    stdout: stdout.text(),
    stderr: stderr.text(),
  });
}

function killGroup(pgid: number): void {
  if (!Number.isInteger(pgid) || pgid <= 1) return;
  try {
    process.kill(-pgid, "SIGKILL");
  } catch {
    // ESRCH: the group is gone already.
  }
}

async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

class Bounded {
  #chunks: Buffer[] = [];
  #size = 0;

  push(chunk: Buffer): void {
    const room = MAX_HOOK_OUTPUT_BYTES - this.#size;
    if (room <= 0) return;
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.#chunks.push(Buffer.from(kept));
    this.#size += kept.length;
  }

  text(): string {
    return Buffer.concat(this.#chunks, this.#size).toString("utf8");
  }
}
