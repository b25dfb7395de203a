// Warm sandbox workers, keyed by heap limit. A worker runs one cell at a time; after its cell
// finished it reports `idle` and goes back to the pool. A worker still draining its last cell
// may be handed the next one (the start message waits in its queue); if it turns out stuck it is
// discarded after a grace period and the not-yet-started cell is started elsewhere.
// Terminated, out-of-memory or stuck workers are replaced in the background.
import { cellRuntime } from "./runtime.ts";
import { SandboxWorker } from "./worker.ts";
import { CELL_PREFIX, CELL_SUFFIX } from "./worker_main.ts";

const RUNTIME_SOURCE = String(cellRuntime);
/**
 * See `answerSpinUs` in worker_main.ts. SCV_SANDBOX_SPIN_US overrides it (benchmarks; 0 turns it off).
 */
const ANSWER_SPIN_US = Number(process.env.SCV_SANDBOX_SPIN_US ?? 500) || 0;

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
