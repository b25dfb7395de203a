// Warm sandbox processes that belong to no session yet, keyed by heap limit. A session takes one
// for good (session.ts): a process is never handed from one session to another, so nothing a
// session's code leaves behind (timers, finalizers, globals, caches) can run in another's cells.
// Processes that die in the pool are replaced in the background; a process that refuses to run
// cells (its restrictions are not on) makes the whole sandbox unavailable.
import type { Launch } from "./launch.ts";
import { type ProcessOwner, SandboxProcess, type WorkerExit } from "./sandbox_process.ts";

/** Boots in a row that die before they are ready, after which the sandbox is declared unavailable. */
const MAX_FAILED_BOOTS = 3;

export interface PoolOptions {
  /** Idle processes kept ready for the default heap limit. */
  warmWorkers: number;
  defaultHeapMb: number;
  maxOutputChars: number;
  storeQuotaChars: number;
  /** Longest string a sandbox process may send in parts, in UTF-16 units. */
  maxMessageChars: number;
  /** A session's idle process is checked after this long without a cell (session.ts). */
  idleRecycleMs: number;
  /** ... and replaced by a fresh one if it holds this much more resident memory than when it started. */
  idleRecycleGrowthBytes: number;
  launch(heapMb: number): Launch;
  log(line: string): void;
}

export class WorkerPool implements ProcessOwner {
  readonly options: PoolOptions;
  readonly #idle = new Map<number, SandboxProcess[]>();
  readonly #all = new Set<SandboxProcess>();
  #closed = false;
  /** Set by the first `warm()`: until then no process exists (an idle host stays small). */
  #warmed = false;
  #failedBoots = 0;
  /** Why no cell can run here (a refused self-test, or processes that cannot start). */
  unavailable: string | null = null;

  constructor(options: PoolOptions) {
    this.options = options;
  }

  /**
   * Boots the warm processes when a session opens, for its first cell. A process a session took
   * is not replaced until the next session opens: a host with one session (Codex starts one host
   * per session) keeps one sandbox process, not two.
   */
  warm(): void {
    this.#warmed = true;
    this.#topUp();
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** A process for the given heap limit, now owned by `owner`: an idle (or booting) one, else a new one. */
  take(heapMb: number, owner: ProcessOwner): SandboxProcess {
    const process = this.#idle.get(heapMb)?.shift() ?? this.#spawn(heapMb);
    this.#all.delete(process);
    process.owner = owner;
    return process;
  }

  /**
   * Boots a process for `heapMb` unless one is idle (or booting) already: a session's second
   * concurrent cell would otherwise wait for a boot.
   */
  ensureIdle(heapMb: number): void {
    if (this.#closed || this.unavailable !== null) return;
    const list = this.#idle.get(heapMb) ?? [];
    this.#idle.set(heapMb, list);
    if (list.length === 0) list.push(this.#spawn(heapMb));
  }

  release(process: SandboxProcess): void {
    // Only booting processes belong to the pool; a ready one reports idle once and stays listed.
    if (this.#closed) void process.terminate();
  }

  forget(process: SandboxProcess, exit: WorkerExit): void {
    this.#all.delete(process);
    const list = this.#idle.get(process.heapMb);
    const index = list?.indexOf(process) ?? -1;
    if (index >= 0) list!.splice(index, 1);
    if (this.#closed) return;
    if (exit.kind === "refused") {
      this.unavailable = `exec sandbox unavailable: ${exit.message}`;
      this.options.log(`sandbox: ${this.unavailable}`);
      return;
    }
    if (process.ready || process.killed) this.#failedBoots = 0;
    else if (++this.#failedBoots >= MAX_FAILED_BOOTS && this.unavailable === null) {
      this.unavailable = `exec sandbox unavailable: sandbox processes die while starting (${
        exit.kind === "crash" ? exit.message : "out of memory"
      })`;
      this.options.log(`sandbox: ${this.unavailable}`);
      return;
    }
    if (this.#warmed) queueMicrotask(() => this.#topUp());
  }

  async shutdown(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#all].map((process) => process.terminate()));
    this.#idle.clear();
  }

  #spawn(heapMb: number): SandboxProcess {
    const process = new SandboxProcess(
      this,
      heapMb,
      this.options.launch(heapMb),
      this.options.maxMessageChars,
      this.options.log,
    );
    this.#all.add(process);
    return process;
  }

  /** Keeps `warmWorkers` default processes booting or idle (at start and when they are taken or die). */
  #topUp(): void {
    if (this.#closed || this.unavailable !== null) return;
    const heapMb = this.options.defaultHeapMb;
    const list = this.#idle.get(heapMb) ?? [];
    this.#idle.set(heapMb, list);
    while (list.length < this.options.warmWorkers) list.push(this.#spawn(heapMb));
  }
}
