// One sandbox process, seen from the host: its states (booting, idle, busy with a cell, draining
// it, dead), its messages, its memory watch and its end. Who may use it is decided by its owner
// (the warm pool until a session takes it, then that session only: pool.ts, session.ts).
//
// What it sends is read in frames of at most MAX_CHANNEL_FRAME_BYTES, and charged to its owner's
// output budget (output_budget.ts) until whoever keeps it (a cell's undelivered items) releases it.
// Over the budget, the process is not read any further while it runs a cell; a message in parts is
// admitted as a whole, on the length its first part announces.
import { readdirSync, readFileSync } from "node:fs";
import { ChannelError, encodeMessage, MAX_CHANNEL_FRAME_BYTES, MessageDecoder, PartAssembler } from "./channel.ts";
import type { Launch } from "./launch.ts";
import type { OutputBudget } from "./output_budget.ts";
import { type ChildHandle, spawnChild } from "./spawn_child.ts";
import type { FromWorker, ToWorker } from "./worker_main.ts";

const MIB = 1024 * 1024;
/**
 * How long a process may keep running cell code after its cell finished before it is killed (a
 * healthy one reports idle within a millisecond or so; a queued cell waits this long at most).
 */
const DRAIN_GRACE_MS = 250;
/** How often a process's resident memory is read, from its start to its end (one /proc read: ~40 µs). */
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
  /**
   * `charge`: what the message holds of the output budget. True: the listener keeps it (and
   * releases it once the output is delivered); else it is released when this returns.
   */
  onMessage(message: FromWorker, charge: number): boolean;
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
  /** The output budget of the session that owns it (null in the pool, or for a caller without one). */
  budget: OutputBudget | null = null;
  readonly #child: ChildHandle;
  readonly #decoder = new MessageDecoder(MAX_CHANNEL_FRAME_BYTES);
  readonly #assembler: PartAssembler;
  /** Bytes of the message being read so far, and what is left of its admitted announcement. */
  #messageBytes = 0;
  #reserve = 0;
  #paused = false;
  #cancelWait: (() => void) | null = null;
  readonly #log: (line: string) => void;
  #state: "booting" | "idle" | "busy" | "draining" | "dead" = "booting";
  #listener: CellListener | null = null;
  /** After a terminate: the cell that was running, told of output it wrote before it was killed. */
  #lateListener: CellListener | null = null;
  #cell = 0;
  #drainTimer: ReturnType<typeof setTimeout> | null = null;
  #memoryTimer: ReturnType<typeof setInterval> | null = null;
  /** The process that runs the code (a launcher such as bwrap may stand between), once it is known. */
  #codePid: number | null = null;
  readonly #rssLimit: number;
  #overMemory = false;
  /** Resident bytes when it first reported ready: what an idle process of its kind needs. */
  #bootResident = 0;
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
    maxMessageChars: number,
    log: (line: string) => void,
  ) {
    this.owner = owner;
    this.heapMb = heapMb;
    this.#log = log;
    this.#assembler = new PartAssembler(maxMessageChars);
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
    this.#startMemoryWatch();
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
    let frames: { message: unknown; bytes: number }[];
    try {
      frames = this.#decoder.frames(chunk);
    } catch (error) {
      this.#broken(error);
      return;
    }
    for (const { message: raw, bytes } of frames) {
      let message: unknown;
      try {
        const announced = this.#assembler.announced(raw);
        if (announced !== null) {
          // Only a cell's messages come in parts (also output a terminated cell wrote before its end).
          if (this.#state !== "busy" && this.#lateListener === null) {
            throw new ChannelError("sandbox message parts arrived while no cell runs");
          }
          this.#admit(announced);
        }
        message = this.#assembler.accept(raw);
      } catch (error) {
        this.#broken(error);
        return;
      }
      this.#take(bytes);
      if (message === null) continue;
      this.budget?.release(this.#reserve);
      this.#reserve = 0;
      const charge = this.budget === null ? 0 : this.#messageBytes;
      this.#messageBytes = 0;
      if (!this.#deliver(message as FromWorker, charge)) this.budget?.release(charge);
    }
    this.#pauseIfOver();
  }

  #broken(error: unknown): void {
    this.#log(`sandbox process ${this.pid}: ${(error as ChannelError).message}; killed`);
    this.#kill();
  }

  /** Charges a frame of the message being read: against its admitted announcement first. */
  #take(bytes: number): void {
    this.#messageBytes += bytes;
    const budget = this.budget;
    if (budget === null) return;
    if (this.#reserve >= bytes) {
      this.#reserve -= bytes;
    } else {
      budget.charge(bytes - this.#reserve);
      this.#reserve = 0;
    }
  }

  /** A message in parts announced `chars`: it is read on once the budget has room for all of it. */
  #admit(chars: number): void {
    const budget = this.budget;
    // A killed process's last output is read to its end (its pipe holds at most what it wrote).
    if (budget === null || this.#state === "dead") return;
    if (budget.fits(chars)) {
      budget.charge(chars);
      this.#reserve = chars;
      return;
    }
    this.#pause(chars, () => {
      budget.charge(chars);
      this.#reserve += chars;
    });
  }

  /** Over the budget, a process running a cell is read no further, except to finish an admitted message. */
  #pauseIfOver(): void {
    const budget = this.budget;
    if (budget === null || this.#paused || this.#state !== "busy" || this.#assembler.inProgress) return;
    if (!budget.fits(0)) this.#pause(0, () => undefined);
  }

  #pause(needed: number, admitted: () => void): void {
    this.#paused = true;
    this.#child.pause();
    const budget = this.budget!;
    this.#log(
      `sandbox process ${this.pid}: output budget full (${budget.used} of ${budget.limit} bytes${
        needed > 0 ? `, ${needed} more announced` : ""
      }); not read until output is delivered`,
    );
    this.#cancelWait = this.budget!.wait(needed, () => {
      this.#cancelWait = null;
      if (this.#state === "dead") return;
      admitted();
      this.#paused = false;
      this.#child.resume();
    });
  }

  /** Hands a message on; true when its listener keeps its charge. */
  #deliver(message: FromWorker, charge: number): boolean {
    if (this.#state !== "dead") return this.#onMessage(message, charge);
    if (
      this.#lateListener !== null && typeof message === "object" && message !== null && message.t !== "idle" &&
      message.t !== "refused"
    ) {
      // Output already in the pipe when the process was killed still belongs to its cell.
      if (message.cell === this.#cell && (message.t === "text" || message.t === "image" || message.t === "audio")) {
        return this.#lateListener.onMessage(message, charge);
      }
    }
    return false;
  }

  #onMessage(message: FromWorker, charge: number): boolean {
    if (typeof message !== "object" || message === null) return false;
    if (message.t === "refused") {
      this.#refused = typeof message.v === "string" ? message.v.slice(0, 500) : "self-test failed";
      return false;
    }
    if (message.t === "idle") {
      // Also when already busy again with a queued cell: the previous one has drained.
      this.#clearDrain();
      if (!this.#ready) this.#bootResident = this.residentBytes();
      this.#ready = true;
      if (this.#state === "booting") {
        this.#state = "idle";
      } else if (this.#state === "draining") {
        this.#state = "idle";
        this.#child.unref();
        this.owner.release(this);
      }
      return false;
    }
    if (message.cell !== this.#cell) return false;
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
    return listener?.onMessage(message, charge) === true;
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
    this.#cancelWait?.();
    this.#cancelWait = null;
    // What a message cut short by the end held of the budget.
    if (this.budget !== null) this.budget.release(this.#reserve + this.#messageBytes);
    this.#reserve = 0;
    this.#messageBytes = 0;
    this.#child.end();
    this.owner.forget(this, exit);
    return listener;
  }

  #clearDrain(): void {
    if (this.#drainTimer !== null) clearTimeout(this.#drainTimer);
    this.#drainTimer = null;
  }

  /**
   * How much more resident memory it holds than when it became ready (0 where that cannot be read): what a
   * fresh process in its place would give back.
   */
  residentGrowthBytes(): number {
    if (!this.#ready || this.#state === "dead" || this.#bootResident === 0) return 0;
    return Math.max(0, this.residentBytes() - this.#bootResident);
  }

  /** The resident memory of the process running the code (not of a launcher in between). */
  residentBytes(): number {
    const pid = this.#codePid ?? codeProcess(this.pid);
    // Once it reported ready the process tree is complete (nothing inside can start a process).
    if (this.#ready) this.#codePid = pid;
    try {
      const statm = readFileSync(`/proc/${pid}/statm`, "latin1");
      return Number(statm.split(" ")[1]) * PAGE_BYTES;
    } catch {
      return 0;
    }
  }

  /**
   * The memory cap covers what the heap limit does not (array buffers, external strings), for the
   * process's whole life: code left behind by a cell (a finalizer, a timer of an escaped realm)
   * may allocate after its cell ended.
   */
  #startMemoryWatch(): void {
    if (this.#memoryTimer !== null || process.platform !== "linux") return;
    this.#memoryTimer = setInterval(() => {
      if (this.pid === undefined || this.residentBytes() <= this.#rssLimit) return;
      this.#log(`sandbox process ${this.pid}: resident memory over ${this.#rssLimit} bytes; killed`);
      this.#overMemory = true;
      // Without a cell, it is let go at once: no cell may be handed to it before its exit is read.
      if (this.#state === "busy") this.#kill();
      else void this.terminate();
    }, MEMORY_POLL_MS);
    this.#memoryTimer.unref();
  }

  #stopMemoryWatch(): void {
    if (this.#memoryTimer !== null) clearInterval(this.#memoryTimer);
    this.#memoryTimer = null;
  }
}

/**
 * The deepest descendant of `pid` (a launcher's child, grandchild…): bwrap runs an init that runs
 * the program; unshare forks it. `pid` itself when it has no children.
 */
export function codeProcess(pid: number | undefined): number {
  if (pid === undefined) return -1;
  let current = pid;
  for (let depth = 0; depth < 4; depth++) {
    const children = childrenOf(current);
    if (children.length === 0) break;
    current = children[children.length - 1]!;
  }
  return current;
}

function childrenOf(pid: number): number[] {
  try {
    const text = readFileSync(`/proc/${pid}/task/${pid}/children`, "latin1").trim();
    return text === "" ? [] : text.split(" ").map(Number);
  } catch {
    // Kernels without CONFIG_PROC_CHILDREN: look for processes whose parent it is.
    const found: number[] = [];
    try {
      for (const entry of readdirSync("/proc")) {
        if (!/^\d+$/.test(entry)) continue;
        try {
          const stat = readFileSync(`/proc/${entry}/stat`, "latin1");
          if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid) found.push(Number(entry));
        } catch {
          // Gone meanwhile.
        }
      }
    } catch {
      // No /proc at all.
    }
    return found;
  }
}
