// One sandbox process, seen from the host: its states (booting, idle, busy with a cell, draining
// it, dead), its messages, its memory watch and its end. Who may use it is decided by its owner
// (the warm pool until a session takes it, then that session only: pool.ts, session.ts).
import { readFileSync } from "node:fs";
import { ChannelError, encodeMessage, MessageDecoder } from "./channel.ts";
import type { Launch } from "./launch.ts";
import { type ChildHandle, spawnChild } from "./spawn_child.ts";
import type { FromWorker, ToWorker } from "./worker_main.ts";

const MIB = 1024 * 1024;
/**
 * How long a process may keep running cell code after its cell finished before it is killed (a
 * healthy one reports idle within a millisecond or so; a queued cell waits this long at most).
 */
const DRAIN_GRACE_MS = 250;
/** How often a busy process's resident memory is read (one /proc read costs ~10 µs). */
const MEMORY_POLL_MS = 20;
/**
 * Resident memory a process may use beyond its heap limit: its idle size (about 45 MB on Node,
 * 60 MB on Deno) plus code, stacks and the young generation.
 */
const RSS_ALLOWANCE_BYTES = 160 * MIB;
const PAGE_BYTES = 4096;
const STDERR_TAIL = 8192;

export type WorkerExit = { kind: "oom" } | { kind: "crash"; message: string } | { kind: "refused"; message: string };

/** Receives one cell's messages from the process running it. */
export interface CellListener {
  onMessage(message: FromWorker): void;
  onExit(exit: WorkerExit): void;
}

/** Whoever may hand the process cells: told when it is free again and when it is gone. */
export interface ProcessOwner {
  /** The process finished its cell and drained; the owner keeps or kills it. */
  release(process: SandboxProcess): void;
  /** The process is gone (or going). */
  forget(process: SandboxProcess, exit: WorkerExit): void;
  /** The process reported its cell done; it may still run leftover code until it reports idle. */
  draining?(process: SandboxProcess): void;
}

export class SandboxProcess {
  readonly heapMb: number;
  owner: ProcessOwner;
  readonly #child: ChildHandle;
  readonly #decoder: MessageDecoder;
  readonly #log: (line: string) => void;
  #state: "booting" | "idle" | "busy" | "draining" | "dead" = "booting";
  #listener: CellListener | null = null;
  /** After a terminate: the cell that was running, told of output it wrote before it was killed. */
  #lateListener: CellListener | null = null;
  #cell = 0;
  #drainTimer: ReturnType<typeof setTimeout> | null = null;
  #memoryTimer: ReturnType<typeof setInterval> | null = null;
  readonly #rssLimit: number;
  #overMemory = false;
  #ready = false;
  #killed = false;
  #refused: string | null = null;
  #stderr = "";
  readonly #exited: Promise<void>;
  #resolveExited!: () => void;

  constructor(
    owner: ProcessOwner,
    heapMb: number,
    launch: Launch,
    maxMessageBytes: number,
    log: (line: string) => void,
  ) {
    this.owner = owner;
    this.heapMb = heapMb;
    this.#log = log;
    this.#decoder = new MessageDecoder(maxMessageBytes);
    this.#rssLimit = heapMb * MIB + RSS_ALLOWANCE_BYTES;
    this.#exited = new Promise((resolve) => (this.#resolveExited = resolve));
    this.#child = spawnChild(launch, {
      stdout: (chunk) => this.#fromChild(chunk),
      stderr: (text) => {
        this.#stderr = (this.#stderr + text).slice(-STDERR_TAIL);
      },
      // Decided once stderr was read: it may hold V8's last words.
      exit: (code, signal) => {
        this.#died(this.#classify(code, signal));
        this.#resolveExited();
      },
      error: (message) => {
        this.#died({ kind: "crash", message: `sandbox process failed to start: ${message}` });
        this.#resolveExited();
      },
    });
    this.#child.unref();
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  /** Whether it ever reported ready. */
  get ready(): boolean {
    return this.#ready;
  }

  /** Whether the host killed it (a terminate, a cap, a broken channel). */
  get killed(): boolean {
    return this.#killed;
  }

  /** Starts a cell; messages for it go to `listener` until it finishes. */
  run(cell: number, listener: CellListener, start: Omit<Extract<ToWorker, { t: "start" }>, "t" | "cell">): void {
    if (this.#state === "dead") {
      queueMicrotask(() => listener.onExit({ kind: "crash", message: "sandbox process exited" }));
      return;
    }
    // A draining process keeps its grace timer: if it never reports idle, it is killed.
    this.#state = "busy";
    this.#cell = cell;
    this.#listener = listener;
    this.#child.ref();
    this.#startMemoryWatch();
    this.post({ t: "start", cell, ...start });
  }

  post(message: ToWorker): void {
    if (this.#state === "dead") return;
    this.#child.write(encodeMessage(message));
  }

  answer(cell: number, call: number, ok: boolean, payload: string | undefined): void {
    this.post({ t: "tool", cell, call, ok, v: payload });
  }

  /**
   * Kills the process (interrupting any running code); resolves once it is gone. `keepOutput`: the
   * cell being terminated still receives the output its process wrote before the kill.
   */
  terminate(keepOutput = false): Promise<void> {
    // Whoever waits for the end keeps the event loop alive until it comes.
    if (!this.#child.exited) this.#child.ref();
    this.#kill();
    const listener = this.#markDead();
    this.#lateListener = keepOutput ? listener : null;
    listener?.onExit({ kind: "crash", message: "sandbox process terminated" });
    return this.#exited.then(() => {
      this.#lateListener = null;
    });
  }

  #kill(): void {
    this.#killed = true;
    this.#child.kill();
  }

  #fromChild(chunk: Buffer): void {
    let messages: unknown[];
    try {
      messages = this.#decoder.push(chunk);
    } catch (error) {
      this.#log(`sandbox process ${this.pid}: ${(error as ChannelError).message}; killed`);
      this.#kill();
      return;
    }
    for (const message of messages as FromWorker[]) {
      if (this.#state !== "dead") {
        this.#onMessage(message);
      } else if (
        this.#lateListener !== null && typeof message === "object" && message !== null && message.t !== "idle" &&
        message.t !== "refused"
      ) {
        // Output already in the pipe when the process was killed still belongs to its cell.
        if (message.cell === this.#cell && (message.t === "text" || message.t === "image" || message.t === "audio")) {
          this.#lateListener.onMessage(message);
        }
      }
    }
  }

  #onMessage(message: FromWorker): void {
    if (typeof message !== "object" || message === null) return;
    if (message.t === "refused") {
      this.#refused = typeof message.v === "string" ? message.v.slice(0, 500) : "self-test failed";
      return;
    }
    if (message.t === "idle") {
      // Also when already busy again with a queued cell: the previous one has drained.
      this.#clearDrain();
      this.#ready = true;
      if (this.#state === "booting") {
        this.#state = "idle";
      } else if (this.#state === "draining") {
        this.#state = "idle";
        this.#stopMemoryWatch();
        this.#child.unref();
        this.owner.release(this);
      }
      return;
    }
    if (message.cell !== this.#cell) return;
    // The process took up a queued cell, so the previous one has drained.
    if (message.t === "started") this.#clearDrain();
    const listener = this.#listener;
    if (message.t === "done") {
      this.#listener = null;
      this.#state = "draining";
      const timer = setTimeout(() => {
        // A host busy for longer than the grace (a huge output) may not have read the `idle`
        // already waiting in the pipe: that is read before an immediate runs.
        setImmediate(() => {
          if (this.#drainTimer === timer) void this.terminate();
        });
      }, DRAIN_GRACE_MS);
      this.#drainTimer = timer;
      this.#drainTimer.unref();
      this.owner.draining?.(this);
    }
    listener?.onMessage(message);
  }

  #classify(code: number | null, signal: string | null): WorkerExit {
    if (this.#refused !== null) return { kind: "refused", message: this.#refused };
    if (this.#overMemory || /out of memory|heap limit/i.test(this.#stderr)) return { kind: "oom" };
    return { kind: "crash", message: `sandbox process exited (${signal ?? `code ${code}`})` };
  }

  #died(exit: WorkerExit): void {
    if (this.#state === "dead") return;
    if (exit.kind !== "refused" && this.#stderr.trim() !== "")
      this.#log(`sandbox process ${this.pid} stderr: ${this.#stderr.trim()}`);
    this.#markDead(exit)?.onExit(exit);
  }

  /** Lets go of the process for good; returns the listener of the cell it had, if any. */
  #markDead(exit: WorkerExit = { kind: "crash", message: "sandbox process terminated" }): CellListener | null {
    if (this.#state === "dead") return null;
    const listener = this.#listener;
    this.#state = "dead";
    this.#listener = null;
    this.#clearDrain();
    this.#stopMemoryWatch();
    this.#child.end();
    this.owner.forget(this, exit);
    return listener;
  }

  #clearDrain(): void {
    if (this.#drainTimer !== null) clearTimeout(this.#drainTimer);
    this.#drainTimer = null;
  }

  #residentBytes(): number {
    try {
      const statm = readFileSync(`/proc/${this.pid}/statm`, "latin1");
      return Number(statm.split(" ")[1]) * PAGE_BYTES;
    } catch {
      return 0;
    }
  }

  #startMemoryWatch(): void {
    // The memory cap covers what the heap limit does not (array buffers, external strings).
    if (this.#memoryTimer !== null) return;
    this.#memoryTimer = setInterval(() => {
      if (this.#residentBytes() <= this.#rssLimit) return;
      this.#log(`sandbox process ${this.pid}: resident memory over ${this.#rssLimit} bytes; killed`);
      this.#overMemory = true;
      this.#kill();
    }, MEMORY_POLL_MS);
    this.#memoryTimer.unref();
  }

  #stopMemoryWatch(): void {
    if (this.#memoryTimer !== null) clearInterval(this.#memoryTimer);
    this.#memoryTimer = null;
  }
}
