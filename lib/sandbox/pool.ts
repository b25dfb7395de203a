// Warm sandbox workers, keyed by heap limit. A worker runs one cell at a time; after its cell
// finished it reports `idle` and goes back to the pool. Terminated, out-of-memory or stuck
// workers are discarded and replaced in the background.
import { Worker } from "node:worker_threads";
import { cellRuntime } from "./runtime.ts";
import { CELL_PREFIX, CELL_SUFFIX, workerMain, type FromWorker, type ToWorker, type WorkerConfig } from "./worker-main.ts";

const WORKER_CODE = `"use strict";(${String(workerMain)})(require, require("node:worker_threads").workerData);`;
const RUNTIME_SOURCE = String(cellRuntime);
/** How long a worker may keep running cell code after its cell finished before it is discarded. */
const DRAIN_GRACE_MS = 2_000;
/** Idle default workers kept after a burst of concurrent cells (at least `warmWorkers`). */
const MIN_KEPT_IDLE = 4;

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
  #state: "booting" | "idle" | "busy" | "draining" | "dead" = "booting";
  #listener: CellListener | null = null;
  #cell = 0;
  #drainTimer: ReturnType<typeof setTimeout> | null = null;
  #terminated: Promise<void> | null = null;

  constructor(pool: WorkerPool, heapMb: number, config: WorkerConfig) {
    this.#pool = pool;
    this.heapMb = heapMb;
    this.#worker = new Worker(WORKER_CODE, {
      eval: true,
      workerData: config,
      // Without this flag a dynamic-import callback is refused and `import()` would hand the cell
      // an error of the worker's realm. (vm.SourceTextModule is not used: it leaks its context.)
      execArgv: ["--experimental-vm-modules", "--no-warnings"],
      resourceLimits: { maxOldGenerationSizeMb: heapMb, maxYoungGenerationSizeMb: Math.min(16, Math.max(1, heapMb >> 3)) },
      // The host's stdout may carry protocol frames: nothing from a worker may reach it.
      stdout: true,
    });
    this.#worker.stdout.resume();
    this.#worker.unref();
    this.#worker.on("message", (message: FromWorker) => this.#onMessage(message));
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
    this.#state = "busy";
    this.#cell = cell;
    this.#listener = listener;
    this.#worker.ref();
    this.post({ t: "start", cell, ...start });
  }

  post(message: ToWorker): void {
    if (this.#state !== "dead") this.#worker.postMessage(message);
  }

  /** Stops the thread (interrupting any running code); resolves once it is gone. */
  terminate(): Promise<void> {
    if (this.#terminated === null) {
      const wasDead = this.#state === "dead";
      this.#state = "dead";
      this.#listener = null;
      this.#clearDrain();
      this.#pool.forget(this);
      this.#terminated = wasDead ? Promise.resolve() : this.#worker.terminate().then(() => undefined, () => undefined);
    }
    return this.#terminated;
  }

  #onMessage(message: FromWorker): void {
    if (message.t === "idle") {
      this.#clearDrain();
      if (this.#state === "booting") {
        this.#state = "idle";
      } else if (this.#state === "draining") {
        this.#state = "idle";
        this.#worker.unref();
        this.#pool.release(this);
      }
      return;
    }
    if (message.cell !== this.#cell) return;
    const listener = this.#listener;
    if (message.t === "done") {
      this.#listener = null;
      this.#state = "draining";
      this.#drainTimer = setTimeout(() => void this.terminate(), DRAIN_GRACE_MS);
      this.#drainTimer.unref();
    }
    listener?.onMessage(message);
  }

  #died(exit: WorkerExit): void {
    if (this.#state === "dead") return;
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
  readonly #all = new Set<SandboxWorker>();
  #closed = false;

  constructor(options: PoolOptions) {
    this.options = options;
    this.#topUp();
  }

  /** A worker for the given heap limit: an idle or booting one if any, else a new one (messages queue until it boots). */
  acquire(heapMb: number = this.options.defaultHeapMb): SandboxWorker {
    const idle = this.#idle.get(heapMb);
    const worker = idle?.shift() ?? this.#spawn(heapMb);
    if (heapMb === this.options.defaultHeapMb && (idle?.length ?? 0) === 0) queueMicrotask(() => this.#topUp());
    return worker;
  }

  /** Takes back a worker whose cell finished and whose context was reset. */
  release(worker: SandboxWorker): void {
    const list = this.#idle.get(worker.heapMb) ?? [];
    const keep = worker.heapMb === this.options.defaultHeapMb ? Math.max(MIN_KEPT_IDLE, this.options.warmWorkers) : 1;
    if (this.#closed || list.length >= keep) {
      void worker.terminate();
      return;
    }
    list.push(worker);
    this.#idle.set(worker.heapMb, list);
  }

  forget(worker: SandboxWorker): void {
    this.#all.delete(worker);
    const list = this.#idle.get(worker.heapMb);
    const index = list?.indexOf(worker) ?? -1;
    if (index >= 0) list!.splice(index, 1);
    if (!this.#closed) queueMicrotask(() => this.#topUp());
  }

  async shutdown(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#all].map((worker) => worker.terminate()));
    this.#idle.clear();
  }

  #spawn(heapMb: number): SandboxWorker {
    const worker = new SandboxWorker(this, heapMb, {
      runtimeSource: RUNTIME_SOURCE,
      maxOutputChars: this.options.maxOutputChars,
      cellPrefix: CELL_PREFIX,
      cellSuffix: CELL_SUFFIX,
    });
    this.#all.add(worker);
    return worker;
  }

  /** Keeps `warmWorkers` default workers booting or idle. */
  #topUp(): void {
    if (this.#closed) return;
    const heapMb = this.options.defaultHeapMb;
    const list = this.#idle.get(heapMb) ?? [];
    this.#idle.set(heapMb, list);
    while (list.length < this.options.warmWorkers) list.push(this.#spawn(heapMb));
  }
}
