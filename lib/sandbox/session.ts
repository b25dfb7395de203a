// A sandbox session: its cells, their observers and yield timers, and the session store
// (host spec §6.2–§6.5, §7.3). Protocol-level conditions are returned as ObserveOutcomes.
import { setMaxListeners } from "node:events";
import { checkMessage, INVALID_MESSAGE, OutputMeter, storeCharge } from "./checks.ts";
import { cleanErrorText } from "./error_text.ts";
import type { WorkerPool } from "./pool.ts";
import type { CellListener, ProcessOwner, SandboxProcess, WorkerExit } from "./sandbox_process.ts";
import type {
  CellCallbacks,
  ContentItem,
  ImageDetail,
  Observation,
  ObserveOutcome,
  SandboxCell,
  SandboxSession,
  SessionLimits,
  StartCellOptions,
  ToolDefinition,
} from "./types.ts";
import type { FromWorker, ToWorker } from "./worker_main.ts";
import type { OutputBudget } from "./output_budget.ts";
import { moduleSource } from "./module_source.ts";
import { effectiveYieldMs } from "./yield_time.ts";

const MIB = 1024 * 1024;
/** Longest a single timer may be armed for (Node clamps larger values to 1 ms). */
const MAX_TIMER_MS = 2_147_483_647;

let nextInternalCellId = 1;
/** How often a cell whose process died before starting it is started on another process. */
const MAX_RESTARTS = 2;
/** Unanswered tool calls a cell may have (the sandbox process enforces it too). */
const MAX_PENDING_CALLS = 4096;

type StartPayload = Omit<Extract<ToWorker, { t: "start" }>, "t" | "cell">;

export const heapLimitText = (bytes: number): string => `exec cell heap limit exceeded (maxHeapSizeBytes: ${bytes})`;
export const RUNTIME_ENDED_TEXT = "exec runtime ended unexpectedly";

interface Observer {
  /** Resolves the observer and frees the cell's observer slot. */
  deliver(observation: Observation): void;
  /** Frees the slot without resolving. */
  cancel(): void;
  /** Starts the yield timer (if not yet started). */
  arm(ms: number): void;
}

type CellStatus = "running" | "finishing" | "completed" | "terminating" | "closed";

class Cell implements SandboxCell, CellListener {
  readonly id: string;
  readonly initial: Promise<Observation>;
  readonly closed: Promise<void>;
  readonly internalId = nextInternalCellId++;
  status: CellStatus = "running";
  items: ContentItem[] = [];
  observer: Observer | null = null;
  result: { items: ContentItem[]; errorText: string | null; completedAt: bigint } | null = null;
  worker: SandboxProcess | null = null;
  /** The host's own count of the cell's output (the process's count is not trusted). */
  readonly meter: OutputMeter;
  /** Unanswered tool calls, each with a token that tells its answer from a later call's. */
  readonly toolCalls = new Map<number, object>();
  /**
   * Aborts every unanswered tool call at once (the cell ended). One per cell, made at its first call:
   * an AbortSignal costs ~10 µs to create, the largest single cost of a nested call in the host.
   */
  #toolAbort: AbortController | null = null;
  readonly notifications: Promise<void>[] = [];
  readonly #session: Session;
  readonly #tools: ToolDefinition[];
  readonly #callbacks: CellCallbacks;
  readonly #yieldMs: number;
  /** What the worker needs to start the cell, kept until it started (it may be restarted elsewhere). */
  #start: StartPayload | null = null;
  #restarts = 0;
  /** What the undelivered items hold of the session's output budget. */
  #held = 0;
  #resolveClosed!: () => void;

  constructor(session: Session, id: string, options: StartCellOptions) {
    this.#session = session;
    this.id = id;
    this.#tools = options.tools;
    this.#callbacks = options.callbacks;
    this.closed = new Promise((resolve) => (this.#resolveClosed = resolve));
    this.#yieldMs = effectiveYieldMs(options.yieldTimeMs, session.limits.maxYieldTimeMs);
    this.meter = new OutputMeter(session.pool.options.maxOutputChars);
    // The execute's timer starts once the worker starts the cell (a booting worker may take a while).
    this.initial = new Promise((resolve) => {
      this.observer = timedObserver(this, this.#yieldMs === 0 ? 0 : null, resolve);
    });
  }

  onMessage(message: FromWorker, charge: number): boolean {
    // A terminating cell still takes the output its process wrote before it was killed.
    const late = this.status === "terminating" &&
      (message.t === "text" || message.t === "image" || message.t === "audio");
    if (this.status !== "running" && !late) return false;
    // Everything from the process is checked here, as if an attacker had written it.
    const violation = checkMessage(message, this.#tools.length, this.meter);
    if (violation !== null) {
      if (!late) this.#fail(violation);
      return false;
    }
    switch (message.t) {
      case "started":
        this.#start = null;
        if (this.#yieldMs !== 0) this.observer?.arm(this.#yieldMs);
        break;
      case "text":
        this.items.push({ type: "input_text", text: message.v });
        this.#held += charge;
        return true;
      case "image":
        this.items.push({ type: "input_image", image_url: message.v, detail: message.d as ImageDetail });
        this.#held += charge;
        return true;
      case "audio":
        this.items.push({ type: "input_audio", audio_url: message.v });
        this.#held += charge;
        return true;
      case "yield":
        this.yieldNow();
        break;
      case "notify":
        this.notifications.push(
          Promise.resolve()
            .then(() => this.#callbacks.notify(message.v, this.id))
            .catch(() => undefined),
        );
        break;
      case "tool":
        this.#callTool(message.call, message.i, message.v);
        break;
      case "done":
        void this.#complete(message.e === null ? null : this.meter.errorText(cleanErrorText(message.e)), message.w);
        break;
    }
    return false;
  }

  onExit(exit: WorkerExit): void {
    if (this.status !== "running" && this.status !== "finishing") return;
    this.worker = null;
    // Queued behind a worker that died or got stuck before starting this cell: start it elsewhere.
    if (
      this.#start !== null && exit.kind === "crash" && this.#session.canRestart() && this.#restarts++ < MAX_RESTARTS
    ) {
      this.dispatch(this.#start, false);
      return;
    }
    const text = exit.kind === "oom"
      ? heapLimitText(this.#session.heapBytes)
      : exit.kind === "refused"
      ? `exec sandbox unavailable: ${exit.message}`
      : RUNTIME_ENDED_TEXT;
    this.#settle(text, null);
  }

  /** Hands the cell to one of the session's processes (a restart never queues behind a draining one). */
  dispatch(start: StartPayload, allowDraining = true): void {
    this.#start = start;
    const worker = this.#session.acquire(allowDraining);
    this.worker = worker;
    worker.run(this.internalId, this, start);
  }

  /** Resolves the current observer with the items since the previous delivery. */
  yieldNow(): boolean {
    const observer = this.observer;
    if (observer === null || (this.status !== "running" && this.status !== "finishing")) return false;
    observer.deliver({ kind: "yielded", cellId: this.id, items: this.takeItems() });
    this.#delivered();
    // A cell that yields keeps its process: have one ready for the client's next cell.
    this.#session.pool.ensureIdle(this.#session.heapMb);
    return true;
  }

  takeItems(): ContentItem[] {
    const items = this.items;
    this.items = [];
    return items;
  }

  /** The items taken so far were delivered (or dropped): their output no longer waits in the host. */
  #delivered(): void {
    this.#session.budget?.release(this.#held);
    this.#held = 0;
  }

  /** The buffered result as an observation; closes the cell. */
  takeResult(): Observation {
    const result = this.result!;
    this.close();
    this.#delivered();
    return {
      kind: "result",
      cellId: this.id,
      items: result.items,
      errorText: result.errorText,
      bufferedForNs: Math.max(1, Number(process.hrtime.bigint() - result.completedAt)),
    };
  }

  /** Stops the cell (nothing committed); every observer gets `terminated`. */
  async terminate(): Promise<Observation> {
    this.status = "terminating";
    this.#abortToolCalls();
    await this.worker?.terminate(true);
    this.worker = null;
    const observation: Observation = { kind: "terminated", cellId: this.id, items: this.takeItems() };
    this.#delivered();
    // The terminate request is answered first, then a pending observer, then the cell closes.
    setImmediate(() => {
      this.observer?.deliver(observation);
      this.close();
    });
    return observation;
  }

  close(): void {
    if (this.status === "closed") return;
    this.status = "closed";
    // A result nobody took.
    this.#delivered();
    this.#session.cells.delete(this.id);
    this.#resolveClosed();
  }

  /** Ends the cell with `errorText` because its process broke a rule: the process is killed, nothing committed. */
  #fail(errorText: string): void {
    const worker = this.worker;
    this.worker = null;
    this.#settle(errorText, null);
    void worker?.terminate();
  }

  async #complete(errorText: string | null, writes: string): Promise<void> {
    this.status = "finishing";
    this.worker = null;
    // A result waits for every notification the cell sent (no more arrive once it is done).
    await Promise.all(this.notifications);
    if (this.status !== "finishing") return;
    const quota = this.#session.checkWrites(writes);
    if (quota !== null) this.#settle(quota, null);
    else this.#settle(errorText, writes);
  }

  #settle(errorText: string | null, writes: string | null): void {
    this.#abortToolCalls();
    if (writes !== null) this.#session.commit(writes);
    this.status = "completed";
    this.result = { items: this.takeItems(), errorText, completedAt: process.hrtime.bigint() };
    const observer = this.observer;
    if (observer !== null) {
      this.observer = null;
      const result = this.result;
      this.close();
      observer.deliver({ kind: "result", cellId: this.id, items: result.items, errorText, bufferedForNs: 0 });
    }
  }

  #callTool(call: number, index: number, inputJson: string): void {
    const tool = this.#tools[index];
    if (tool === undefined) return;
    // The process rejects calls beyond this itself; one that sends more (or repeats an id) is not ours.
    if (this.toolCalls.size >= MAX_PENDING_CALLS || this.toolCalls.has(call)) {
      this.#fail(INVALID_MESSAGE);
      return;
    }
    const token = {};
    this.toolCalls.set(call, token);
    if (this.#toolAbort === null) {
      this.#toolAbort = new AbortController();
      // One listener per unanswered call (a delegate's cancel) is by design, not a leak.
      setMaxListeners(0, this.#toolAbort.signal);
    }
    const signal = this.#toolAbort.signal;
    const nested = { cellId: this.id, runtimeToolCallId: `tool-${call}`, tool, input: parseJson(inputJson, null) };
    const answer = (ok: boolean, value: unknown): void => {
      if (this.toolCalls.get(call) !== token) return;
      this.toolCalls.delete(call);
      if (this.status !== "running" || this.worker === null) return;
      let payload: string | undefined;
      if (ok) {
        try {
          payload = JSON.stringify(value);
        } catch (error) {
          ok = false;
          payload = error instanceof Error ? error.message : String(error);
        }
      } else {
        payload = typeof value === "string" ? value : value instanceof Error ? value.message : String(value);
      }
      this.worker.answer(this.internalId, call, ok, payload);
    };
    let pending: Promise<unknown>;
    try {
      pending = this.#callbacks.callTool(nested, signal);
    } catch (error) {
      pending = Promise.reject(error);
    }
    pending.then(
      (value) => answer(true, value),
      (error: unknown) => answer(false, error),
    );
  }

  #abortToolCalls(): void {
    this.toolCalls.clear();
    const controller = this.#toolAbort;
    this.#toolAbort = null;
    controller?.abort();
  }
}

/** An observer that yields on its own `ms` after it is armed (0: at once; null: armed later). */
function timedObserver(cell: Cell, ms: number | null, resolve: (observation: Observation) => void): Observer {
  let timer: ReturnType<typeof setTimeout> | null = null;
  let armed = false;
  const observer: Observer = {
    deliver(observation) {
      observer.cancel();
      resolve(observation);
    },
    cancel() {
      if (timer !== null) clearTimeout(timer);
      timer = null;
      if (cell.observer === observer) cell.observer = null;
    },
    arm(delay) {
      if (armed) return;
      armed = true;
      if (delay === 0) queueMicrotask(() => cell.observer === observer && cell.yieldNow());
      else timer = setTimeout(() => cell.observer === observer && cell.yieldNow(), Math.min(delay, MAX_TIMER_MS));
    },
  };
  if (ms !== null) observer.arm(ms);
  return observer;
}

export class Session implements SandboxSession, ProcessOwner {
  readonly limits: SessionLimits;
  readonly cells = new Map<string, Cell>();
  readonly heapBytes: number;
  readonly heapMb: number;
  readonly pool: WorkerPool;
  /** The caller's output budget, shared by all its sessions (a host connection's), if any. */
  readonly budget: OutputBudget | null;
  readonly #store = new Map<string, string>();
  /** Keys plus values of the store, in UTF-16 units (charged against the store quota). */
  #storeSize = 0;
  /** The session's own processes: never handed to another session, killed when it closes. */
  readonly #processes = new Set<SandboxProcess>();
  /** Its processes without a cell (at most one is kept), and those still draining their last cell. */
  readonly #idle: SandboxProcess[] = [];
  readonly #draining = new Set<SandboxProcess>();
  /** Checks the idle process's memory once it has sat idle for a while (#recycleIfGrown). */
  #idleTimer: ReturnType<typeof setTimeout> | null = null;
  #nextCellId = 1;
  #closed = false;

  readonly #onClose: (() => void) | null;

  /** `onClose` runs when `close()` is first called (the sandbox stops tracking the session). */
  constructor(
    pool: WorkerPool,
    limits: SessionLimits = {},
    onClose: (() => void) | null = null,
    budget: OutputBudget | null = null,
  ) {
    this.pool = pool;
    this.limits = limits;
    this.budget = budget;
    this.#onClose = onClose;
    const requested = limits.maxHeapSizeBytes;
    if (requested !== null && requested !== undefined) {
      this.heapBytes = requested;
      this.heapMb = Math.max(8, Math.ceil(requested / MIB));
    } else {
      this.heapMb = pool.options.defaultHeapMb;
      this.heapBytes = this.heapMb * MIB;
    }
  }

  startCell(options: StartCellOptions): SandboxCell {
    const cell = new Cell(this, String(this.#nextCellId++), options);
    if (this.#closed) {
      void cell.terminate();
      return cell;
    }
    this.cells.set(cell.id, cell);
    if (this.pool.unavailable !== null) {
      cell.onExit({ kind: "refused", message: this.pool.unavailable.replace(/^exec sandbox unavailable: /, "") });
      return cell;
    }
    const { code, firstImport } = moduleSource(options.source);
    cell.dispatch({
      source: code,
      firstImport,
      tools: JSON.stringify(options.tools.map((tool) => ({ name: tool.name, description: tool.description }))),
      store: JSON.stringify(Object.fromEntries(this.#store)),
      storeSize: this.#storeSize,
    });
    return cell;
  }

  async wait(cellId: string, yieldTimeMs: number, signal?: AbortSignal): Promise<ObserveOutcome> {
    const cell = this.cells.get(cellId);
    if (cell === undefined) return missing(cellId);
    if (cell.observer !== null)
      return { kind: "error", code: "observer_active", message: `exec cell ${cellId} already has an active observer` };
    if (cell.status === "completed") return { kind: "observation", observation: cell.takeResult() };
    if (signal?.aborted) return cancelled();
    return new Promise<ObserveOutcome>((resolve) => {
      const onAbort = (): void => {
        observer.cancel();
        resolve(cancelled());
      };
      const observer = timedObserver(cell, effectiveYieldMs(yieldTimeMs, this.limits.maxYieldTimeMs), (observation) => {
        signal?.removeEventListener("abort", onAbort);
        resolve({ kind: "observation", observation });
      });
      cell.observer = observer;
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  async terminate(cellId: string): Promise<ObserveOutcome> {
    const cell = this.cells.get(cellId);
    if (cell === undefined) return missing(cellId);
    if (cell.status === "terminating")
      return { kind: "error", code: "already_terminating", message: `exec cell ${cellId} is already terminating` };
    if (cell.status === "completed") return { kind: "observation", observation: cell.takeResult() };
    return { kind: "observation", observation: await cell.terminate() };
  }

  yieldNow(cellId: string): boolean {
    return this.cells.get(cellId)?.yieldNow() ?? false;
  }

  async close(): Promise<void> {
    if (!this.#closed) this.#onClose?.();
    this.#closed = true;
    this.#clearIdleTimer();
    const cells = [...this.cells.values()];
    await Promise.all(
      cells.map(async (cell) => {
        if (cell.status === "completed") cell.close();
        else if (cell.status !== "terminating") await cell.terminate();
        await cell.closed;
      }),
    );
    await Promise.all([...this.#processes].map((process) => process.terminate()));
  }

  /** One of the session's processes for a cell: an idle one, else one draining its last cell, else a new one. */
  acquire(allowDraining: boolean): SandboxProcess {
    this.#clearIdleTimer();
    let process = this.#idle.shift();
    // The most recently finished one is the likeliest to be ready soon.
    if (process === undefined && allowDraining) process = [...this.#draining].pop();
    if (process === undefined) {
      process = this.pool.take(this.heapMb, this);
      process.budget = this.budget;
      this.#processes.add(process);
    }
    this.#draining.delete(process);
    return process;
  }

  /** A process finished its cell and drained (ProcessOwner). */
  release(process: SandboxProcess): void {
    this.#draining.delete(process);
    if (this.#closed || this.#idle.length > 0) {
      void process.terminate();
      return;
    }
    this.#idle.push(process);
    this.#armIdleTimer();
  }

  #armIdleTimer(): void {
    this.#clearIdleTimer();
    const { idleRecycleMs } = this.pool.options;
    if (!Number.isFinite(idleRecycleMs)) return;
    this.#idleTimer = setTimeout(() => {
      this.#idleTimer = null;
      this.#recycleIfGrown();
    }, idleRecycleMs);
    // An idle session must not keep the host alive.
    this.#idleTimer.unref();
  }

  #clearIdleTimer(): void {
    if (this.#idleTimer !== null) clearTimeout(this.#idleTimer);
    this.#idleTimer = null;
  }

  /**
   * Replaces the idle process by a fresh one when it holds much more memory than it started with: V8 keeps
   * heap pages, code and malloc arenas that thousands of cells grew, and gives little of it back on its own.
   * The session's state is in the host (its store), so a new process serves its next cell alike.
   */
  #recycleIfGrown(): void {
    const process = this.#idle[0];
    if (process === undefined || this.#closed || !this.canRestart()) return;
    const growth = process.residentGrowthBytes();
    if (growth < this.pool.options.idleRecycleGrowthBytes) return;
    this.pool.options.log(
      `sandbox process ${process.pid}: idle with ${
        Math.round(growth / 1024 / 1024)
      } MiB more than at its start; replaced`,
    );
    this.#idle.shift();
    void process.terminate();
    const fresh = this.pool.take(this.heapMb, this);
    fresh.budget = this.budget;
    this.#processes.add(fresh);
    this.#idle.push(fresh);
  }

  /** A process is gone (ProcessOwner). */
  forget(process: SandboxProcess): void {
    this.#processes.delete(process);
    this.#draining.delete(process);
    const index = this.#idle.indexOf(process);
    if (index >= 0) this.#idle.splice(index, 1);
  }

  /** A process reported its cell done and may still be running leftover code of it. */
  draining(process: SandboxProcess): void {
    if (this.#processes.has(process)) this.#draining.add(process);
  }

  canRestart(): boolean {
    return !this.#closed && !this.pool.closed && this.pool.unavailable === null;
  }

  /** The store quota error for a cell's writes, or null when they fit. */
  checkWrites(writes: string): string | null {
    if (writes === "{}") return null;
    const entries = parseJson(writes, null);
    if (entries === null || typeof entries !== "object") return null;
    const size = storeCharge(this.#storeSize, this.#store, entries as Record<string, unknown>);
    const quota = this.pool.options.storeQuotaChars;
    return size > quota
      ? `exec store quota exceeded: the session store would hold ${size} characters (limit ${quota})`
      : null;
  }

  /** Merges a finished cell's writes (`{key: json}`) into the session store. */
  commit(writes: string): void {
    if (writes === "{}") return;
    const entries = parseJson(writes, {}) as Record<string, unknown>;
    for (const [key, json] of Object.entries(entries)) {
      if (typeof json !== "string") continue;
      const old = this.#store.get(key);
      this.#storeSize += json.length - (old === undefined ? -key.length : old.length);
      this.#store.set(key, json);
    }
  }
}

/** The process id of the sandbox process running a cell (tests kill it from outside). */
export function cellProcessId(session: SandboxSession, cellId: string): number | undefined {
  return session instanceof Session ? session.cells.get(cellId)?.worker?.pid : undefined;
}

/** JSON from a worker is produced by the runtime's own JSON.stringify; a host never crashes on it anyway. */
function parseJson(json: string, fallback: unknown): unknown {
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return fallback;
  }
}

function missing(cellId: string): ObserveOutcome {
  return { kind: "missing", errorText: `exec cell ${cellId} not found` };
}

function cancelled(): ObserveOutcome {
  return { kind: "error", code: "cancelled", message: "code-mode request cancelled" };
}
