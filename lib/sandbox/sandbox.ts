import { prepareLaunch } from "./launch.ts";
import { WorkerPool } from "./pool.ts";
import { Session } from "./session.ts";
import type { Sandbox, SandboxSession, SessionLimits } from "./types.ts";
import type { OutputBudget } from "./output_budget.ts";

/** Heap limit of sandbox processes for sessions without `maxHeapSizeBytes`, in MiB. */
export const DEFAULT_HEAP_MB = 512;
/** Default store quota per session, in UTF-16 units of keys and JSON values. */
export const DEFAULT_STORE_QUOTA_CHARS = 64 * 1024 * 1024;

export interface SandboxOptions {
  /**
   * Idle sandbox processes kept ready for sessions without a heap limit (default 1; more are
   * started only for concurrent cells). None boot before the first session.
   */
  warmWorkers?: number;
  /** Heap limit of processes for sessions without `maxHeapSizeBytes` (default DEFAULT_HEAP_MB). */
  defaultHeapMb?: number;
  /** A cell whose output (text, notifications, image and audio URLs, error text) exceeds this many UTF-16 code units fails (default 128 Mi). */
  maxOutputChars?: number;
  /** A session's store may hold this many UTF-16 code units of keys and values (default 64 Mi). */
  storeQuotaChars?: number;
  /**
   * A session's sandbox process that has run no cell for this long (default 10 s) and holds more than
   * `idleRecycleGrowthBytes` (default 8 MiB) of resident memory beyond its size when it started is replaced
   * by a fresh process: V8 keeps what thousands of cells left behind, a new process does not.
   */
  idleRecycleMs?: number;
  idleRecycleGrowthBytes?: number;
}

const IDLE_RECYCLE_MS = 10_000;
const IDLE_RECYCLE_GROWTH_BYTES = 8 * 1024 * 1024;

const debugLog = (line: string): void => {
  if (process.env.SCV_LOG?.trim().toLowerCase() === "debug") process.stderr.write(`scv sandbox debug: ${line}\n`);
};

export function createSandbox(options: SandboxOptions = {}): Sandbox {
  const maxOutputChars = options.maxOutputChars ?? 128 * 1024 * 1024;
  const storeQuotaChars = options.storeQuotaChars ?? DEFAULT_STORE_QUOTA_CHARS;
  let launcher: ReturnType<typeof prepareLaunch> | null = null;
  // Prepared on first use (a temporary folder), so a host that never runs a cell makes none.
  const launch = (heapMb: number) => {
    if (launcher === null) {
      launcher = prepareLaunch({ maxOutputChars, storeQuotaChars });
      debugLog(`sandbox processes run with: ${launcher.layers.join("; ")}`);
    }
    return launcher.forHeap(heapMb);
  };
  const pool = new WorkerPool({
    warmWorkers: options.warmWorkers ?? 1,
    defaultHeapMb: options.defaultHeapMb ?? DEFAULT_HEAP_MB,
    maxOutputChars,
    storeQuotaChars,
    // A message carries at most one output item, a tool input, or a cell's store writes: the JSON
    // of its keys and JSON values, whose quotes and backslashes are escaped once more.
    maxMessageChars: Math.max(maxOutputChars, 2 * storeQuotaChars) + 1024 * 1024,
    idleRecycleMs: options.idleRecycleMs ?? IDLE_RECYCLE_MS,
    idleRecycleGrowthBytes: options.idleRecycleGrowthBytes ?? IDLE_RECYCLE_GROWTH_BYTES,
    launch,
    log: debugLog,
  });
  const sessions = new Set<Session>();
  let stopped = false;
  return {
    openSession(limits?: SessionLimits, budget?: OutputBudget): SandboxSession {
      // Closed sessions are dropped, so that a long-lived host does not keep every session's store.
      const session: Session = new Session(pool, limits, () => sessions.delete(session), budget ?? null);
      // After shutdown a session exists but every cell it starts is terminated at once.
      if (stopped) {
        void session.close();
      } else {
        sessions.add(session);
        pool.warm();
      }
      return session;
    },
    async shutdown(): Promise<void> {
      stopped = true;
      await Promise.all([...sessions].map((session) => session.close()));
      sessions.clear();
      await pool.shutdown();
      launcher?.dispose();
    },
  };
}
