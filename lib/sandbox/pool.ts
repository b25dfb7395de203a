// Warm sandbox workers, keyed by heap limit. A worker runs one cell at a time; after its cell
// finished it reports `idle` and goes back to the pool. A worker still draining its last cell
// may be handed the next one (the start message waits in its queue); if it turns out stuck it is
// discarded after a grace period and the not-yet-started cell is started elsewhere.
// Terminated, out-of-memory or stuck workers are replaced in the background.
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from "node:worker_threads";
import { FROM_WORKER_OFFSET, MAILBOX_BYTES, mailboxSlot, TO_WORKER_OFFSET, type MailboxSlot } from "./mailbox.ts";
import { cellRuntime } from "./runtime.ts";
import { CELL_PREFIX, CELL_SUFFIX, workerMain, type FromWorker, type ToWorker, type WorkerConfig } from "./worker_main.ts";

/** What every sandbox worker evaluates (`eval: true`): workerMain called with the worker's config. */
export const WORKER_CODE =
  `"use strict";(${String(workerMain)})(require, require("node:worker_threads").workerData, ${String(mailboxSlot)});`;
const RUNTIME_SOURCE = String(cellRuntime);
/**
 * How long a worker may keep running cell code after its cell finished before it is discarded
 * (a healthy worker reports idle within a millisecond or so; a queued cell waits this long at most).
 */
const DRAIN_GRACE_MS = 250;
/**
 * See `answerSpinUs` in worker_main.ts. SCV_SANDBOX_SPIN_US overrides it (benchmarks; 0 turns it off).
 */
const ANSWER_SPIN_US = Number(process.env.SCV_SANDBOX_SPIN_US ?? 500) || 0;
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
    const calls = this.#calls;
    if (MAIN_SPIN_MS <= 0 || calls === null) return;
    if (this.#spinSkips > 0) {
      this.#spinSkips--;
      return;
    }
    calls.open();
    const until = performance.now() + MAIN_SPIN_MS;
    let round = 0;
    do {
      if (calls.ready()) {
        this.#spinBackoff = 1;
        this.#takeCall(calls);
        return;
      }
      // Anything else the worker sends (text, done, …) comes by message.
      if ((++round & 15) === 0) {
        const received = receiveMessageOnPort(this.#port);
        if (received !== undefined) {
          this.#spinBackoff = 1;
          // A call in the slot now was offered before this message was counted: it is older.
          if (calls.close()) this.#takeCall(calls);
          this.#fromPort(received.message as FromWorker);
          return;
        }
      }
    } while (performance.now() < until);
    this.#spinSkips = this.#spinBackoff;
    this.#spinBackoff = Math.min(MAX_SPIN_BACKOFF, this.#spinBackoff * 2);
    if (calls.close()) this.#takeCall(calls);
  }

  #takeCall(slot: MailboxSlot): void {
    const [cell, call, index, input] = slot.take();
    this.#onMessage({ t: "tool", cell, call, i: index, v: input ?? "null" });
  }

  /** Every message taken from the port passes here (the mailbox's order rule counts them). */
  #fromPort(message: FromWorker): void {
    this.#calls?.countReceived();
    this.#onMessage(message);
  }

  /** Stops the thread (interrupting any running code); resolves once it is gone. */
  terminate(): Promise<void> {
    if (this.#terminated === null) {
      const wasDead = this.#state === "dead";
      const listener = this.#listener;
      this.#state = "dead";
      this.#listener = null;
      this.#clearDrain();
      this.#pool.forget(this);
      this.#port.close();
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
    this.#port.close();
    const listener = this.#listener;
    this.#state = "dead";
    this.#listener = null;
    this.#clearDrain();
    this.#pool.forget(this);
    listener?.onExit(exit);
  }

  #clearDrain(): void {
    if (this.#drainTimer !== null) clearTimeout(this.#drainTimer);
    this.#drainTimer = null;
  }
}

export interface PoolOptions {
  /** Idle workers kept ready for the default heap limit. */
  warmWorkers: number;
  defaultHeapMb: number;
  maxOutputChars: number;
}

export class WorkerPool {
  readonly options: PoolOptions;
  readonly #idle = new Map<number, SandboxWorker[]>();
  readonly #draining = new Set<SandboxWorker>();
  readonly #all = new Set<SandboxWorker>();
  #closed = false;
  /** Set by the first `warm()`: until then no worker exists (an idle host stays small). */
  #warmed = false;

  constructor(options: PoolOptions) {
    this.options = options;
  }

  /** Starts booting the warm workers (once, when the first session opens). */
  warm(): void {
    if (this.#warmed) return;
    this.#warmed = true;
    this.#topUp();
  }

  get closed(): boolean {
    return this.#closed;
  }

  /**
   * A worker for the given heap limit: an idle (or booting) one, else one draining its last cell,
   * else a new one. Messages queue until a worker is ready for them.
   */
  acquire(heapMb: number = this.options.defaultHeapMb, allowDraining = true): SandboxWorker {
    let worker = this.#idle.get(heapMb)?.shift();
    // The most recently finished one is the likeliest to be ready soon.
    if (allowDraining) worker ??= [...this.#draining].reverse().find((candidate) => candidate.heapMb === heapMb);
    return worker ?? this.#spawn(heapMb);
  }

  /**
   * Boots a worker for `heapMb` unless one is idle (or booting) already: with one warm worker,
   * a second concurrent cell would otherwise wait for a boot (≈ 55 ms).
   */
  ensureIdle(heapMb: number): void {
    if (this.#closed) return;
    const list = this.#idle.get(heapMb) ?? [];
    this.#idle.set(heapMb, list);
    if (list.length === 0) list.push(this.#spawn(heapMb));
  }

  /** The worker starts a cell: it is neither idle nor draining any more. */
  claim(worker: SandboxWorker): void {
    this.#draining.delete(worker);
    const list = this.#idle.get(worker.heapMb);
    const index = list?.indexOf(worker) ?? -1;
    if (index >= 0) list!.splice(index, 1);
  }

  draining(worker: SandboxWorker): void {
    this.#draining.add(worker);
  }

  /** Takes back a worker whose cell finished and whose context was reset. */
  release(worker: SandboxWorker): void {
    this.#draining.delete(worker);
    const list = this.#idle.get(worker.heapMb) ?? [];
    const keep = worker.heapMb === this.options.defaultHeapMb ? Math.max(1, this.options.warmWorkers) : 1;
    if (this.#closed || list.length >= keep) {
      void worker.terminate();
      return;
    }
    list.push(worker);
    this.#idle.set(worker.heapMb, list);
  }

  forget(worker: SandboxWorker): void {
    this.#all.delete(worker);
    this.claim(worker);
    if (!this.#closed && this.#warmed) queueMicrotask(() => this.#topUp());
  }

  async shutdown(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#all].map((worker) => worker.terminate()));
    this.#idle.clear();
    this.#draining.clear();
  }

  #spawn(heapMb: number): SandboxWorker {
    const worker = new SandboxWorker(this, heapMb, {
      runtimeSource: RUNTIME_SOURCE,
      maxOutputChars: this.options.maxOutputChars,
      cellPrefix: CELL_PREFIX,
      cellSuffix: CELL_SUFFIX,
      answerSpinUs: ANSWER_SPIN_US,
    });
    this.#all.add(worker);
    return worker;
  }

  /** Keeps `warmWorkers` default workers booting or idle (at start and when workers die). */
  #topUp(): void {
    if (this.#closed) return;
    const heapMb = this.options.defaultHeapMb;
    const list = this.#idle.get(heapMb) ?? [];
    this.#idle.set(heapMb, list);
    while (list.length < this.options.warmWorkers) list.push(this.#spawn(heapMb));
  }
}
