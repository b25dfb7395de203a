// One sandbox worker thread, seen from the main thread: its states (booting, idle, busy with a
// cell, draining it, dead), its messages, and the delegate round trip's fast path (shared-memory
// slots while the other side polls, mailbox.ts). The pool (pool.ts) decides which worker runs what.
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from "node:worker_threads";
import { FROM_WORKER_OFFSET, MAILBOX_BYTES, mailboxSlot, TO_WORKER_OFFSET, type MailboxSlot, type SlotMessage } from "./mailbox.ts";
import type { WorkerPool } from "./pool.ts";
import { workerMain, type FromWorker, type ToWorker, type WorkerConfig } from "./worker_main.ts";

/** What every sandbox worker evaluates (`eval: true`): workerMain called with the worker's config. */
export const WORKER_CODE =
  `"use strict";(${String(workerMain)})(require, require("node:worker_threads").workerData, ${String(mailboxSlot)});`;
/**
 * How long a worker may keep running cell code after its cell finished before it is discarded
 * (a healthy worker reports idle within a millisecond or so; a queued cell waits this long at most).
 */
const DRAIN_GRACE_MS = 250;
/**
 * After handing a worker a tool answer, how long the main thread polls for the worker's next
 * message (usually its next tool call, 2–5 µs later) instead of sleeping until it arrives (a
 * thread wake-up, 30–40 µs here). Misses back off: after a miss the next 1, 2, 4 … 256 answers
 * are not followed by a poll. SCV_SANDBOX_MAIN_SPIN_US overrides it (benchmarks; 0 turns it off).
 */
const MAIN_SPIN_MS = (Number(process.env.SCV_SANDBOX_MAIN_SPIN_US ?? 100) || 0) / 1000;
const MAX_SPIN_BACKOFF = 256;

export type WorkerExit = { kind: "oom" } | { kind: "crash"; message: string };

/** Receives one cell's messages from the worker running it. */
export interface CellListener {
  onMessage(message: FromWorker): void;
  onExit(exit: WorkerExit): void;
}

export class SandboxWorker {
  readonly heapMb: number;
  readonly #pool: WorkerPool;
  readonly #worker: Worker;
  /** The worker's messages come on this port, which can be polled (`receiveMessageOnPort`). */
  readonly #port: MessagePort;
  /** Shared-memory slots for tool answers (to a polling worker) and calls (to a polling main thread). */
  readonly #answers: MailboxSlot | null = null;
  readonly #calls: MailboxSlot | null = null;
  /** Messages posted to the worker so far (int32), for the mailbox's order rule. */
  #posted = 0;
  /** Answers still to go without a poll after a poll that missed, and the next such pause. */
  #spinSkips = 0;
  #spinBackoff = 1;
  #state: "booting" | "idle" | "busy" | "draining" | "dead" = "booting";
  #listener: CellListener | null = null;
  #cell = 0;
  #drainTimer: ReturnType<typeof setTimeout> | null = null;
  #terminated: Promise<void> | null = null;

  constructor(pool: WorkerPool, heapMb: number, config: WorkerConfig) {
    this.#pool = pool;
    this.heapMb = heapMb;
    const channel = new MessageChannel();
    this.#port = channel.port1;
    let mailbox: WorkerConfig["mailbox"];
    if (config.answerSpinUs > 0) {
      const slotBytes = MAILBOX_BYTES / 2;
      mailbox = { buffer: new SharedArrayBuffer(MAILBOX_BYTES), toWorker: TO_WORKER_OFFSET, fromWorker: FROM_WORKER_OFFSET, slotBytes };
      this.#answers = mailboxSlot(mailbox.buffer, TO_WORKER_OFFSET, slotBytes);
      this.#calls = mailboxSlot(mailbox.buffer, FROM_WORKER_OFFSET, slotBytes);
    }
    this.#worker = new Worker(WORKER_CODE, {
      eval: true,
      workerData: { ...config, port: channel.port2, mailbox },
      transferList: [channel.port2],
      // Without this flag a dynamic-import callback is refused and `import()` would hand the cell
      // an error of the worker's realm. (vm.SourceTextModule is not used: it leaks its context.)
      execArgv: ["--experimental-vm-modules", "--no-warnings"],
      // 16 MiB young generation: 4 MiB shrank a busy worker's heap by ~10 MiB but made allocation-heavy
      // cells ~25% slower, and the host benchmark's peak RSS did not measurably move.
      resourceLimits: { maxOldGenerationSizeMb: heapMb, maxYoungGenerationSizeMb: Math.min(16, Math.max(1, heapMb >> 3)) },
      // The host's stdout may carry protocol frames: nothing from a worker may reach it.
      stdout: true,
    });
    this.#worker.stdout.resume();
    this.#worker.unref();
    this.#port.on("message", (message: FromWorker) => this.#fromPort(message));
    this.#port.unref();
    this.#worker.on("error", (error: Error & { code?: string }) => {
      this.#died(error.code === "ERR_WORKER_OUT_OF_MEMORY" ? { kind: "oom" } : { kind: "crash", message: error.message });
    });
    this.#worker.on("exit", () => this.#died({ kind: "crash", message: "worker exited" }));
  }

  /** Starts a cell; messages for it go to `listener` until it finishes. */
  run(cell: number, listener: CellListener, start: Omit<Extract<ToWorker, { t: "start" }>, "t" | "cell">): void {
    if (this.#state === "dead") {
      queueMicrotask(() => listener.onExit({ kind: "crash", message: "worker exited" }));
      return;
    }
    // A draining worker keeps its grace timer: if it never reports idle, it is discarded.
    this.#pool.claim(this);
    this.#state = "busy";
    this.#cell = cell;
    this.#listener = listener;
    this.#worker.ref();
    this.#port.ref();
    this.post({ t: "start", cell, ...start });
  }

  post(message: ToWorker): void {
    if (this.#state === "dead") return;
    this.#posted = (this.#posted + 1) | 0;
    this.#worker.postMessage(message);
  }

  /** Hands the running cell a tool answer, then briefly polls for the worker's next message. */
  answer(cell: number, call: number, ok: boolean, payload: string | undefined): void {
    if (this.#state === "dead") return;
    if (this.#answers === null || !this.#answers.offer(cell, call, ok ? 1 : 0, payload, this.#posted)) {
      this.post({ t: "tool", cell, call, ok, v: payload });
    }
    if (MAIN_SPIN_MS <= 0 || this.#calls === null) return;
    if (this.#spinSkips > 0) {
      this.#spinSkips--;
      return;
    }
    // Anything else the worker sends (text, done, …) comes by message.
    if (this.#calls.poll(MAIN_SPIN_MS, this.#receive, this.#callFromSlot, this.#fromPoll)) {
      this.#spinBackoff = 1;
    } else {
      this.#spinSkips = this.#spinBackoff;
      this.#spinBackoff = Math.min(MAX_SPIN_BACKOFF, this.#spinBackoff * 2);
    }
  }

  // The mailbox poll's callbacks, made once (answer() is the delegate round trip's hot path).
  readonly #receive = (): { message: unknown } | undefined => receiveMessageOnPort(this.#port);
  readonly #callFromSlot = ([cell, call, index, input]: SlotMessage): void =>
    this.#onMessage({ t: "tool", cell, call, i: index, v: input ?? "null" });
  readonly #fromPoll = (message: unknown): void => this.#onMessage(message as FromWorker);

  /** Every message taken from the port outside a poll passes here (the mailbox's order rule counts them). */
  #fromPort(message: FromWorker): void {
    this.#calls?.countReceived();
    this.#onMessage(message);
  }

  /** Stops the thread (interrupting any running code); resolves once it is gone. */
  terminate(): Promise<void> {
    if (this.#terminated === null) {
      const wasDead = this.#state === "dead";
      const listener = this.#markDead();
      this.#terminated = wasDead ? Promise.resolve() : this.#worker.terminate().then(() => undefined, () => undefined);
      // A cell queued behind a stuck predecessor learns that its worker is gone.
      listener?.onExit({ kind: "crash", message: "worker terminated" });
    }
    return this.#terminated;
  }

  #onMessage(message: FromWorker): void {
    if (message.t === "idle") {
      // Also when already busy again with a queued cell: the previous one has drained.
      this.#clearDrain();
      if (this.#state === "booting") {
        this.#state = "idle";
      } else if (this.#state === "draining") {
        this.#state = "idle";
        this.#worker.unref();
        this.#port.unref();
        this.#pool.release(this);
      }
      return;
    }
    if (message.cell !== this.#cell) return;
    // The worker took up a queued cell, so the previous one has drained.
    if (message.t === "started") this.#clearDrain();
    const listener = this.#listener;
    if (message.t === "done") {
      this.#listener = null;
      this.#state = "draining";
      this.#drainTimer = setTimeout(() => void this.terminate(), DRAIN_GRACE_MS);
      this.#drainTimer.unref();
      this.#pool.draining(this);
    }
    listener?.onMessage(message);
  }

  #died(exit: WorkerExit): void {
    if (this.#state === "dead") return;
    // What the worker posted before it died comes first (its own port is drained before `exit`;
    // this one is not).
    for (let queued = receiveMessageOnPort(this.#port); queued !== undefined; queued = receiveMessageOnPort(this.#port)) {
      this.#fromPort(queued.message as FromWorker);
      // A listener may have terminated the worker meanwhile.
      if (this.#terminated !== null) return;
    }
    this.#markDead()?.onExit(exit);
  }

  /** Lets go of the worker for good; returns the listener of the cell it had, if any. */
  #markDead(): CellListener | null {
    const listener = this.#listener;
    this.#state = "dead";
    this.#listener = null;
    this.#clearDrain();
    this.#pool.forget(this);
    this.#port.close();
    return listener;
  }

  #clearDrain(): void {
    if (this.#drainTimer !== null) clearTimeout(this.#drainTimer);
    this.#drainTimer = null;
  }
}
