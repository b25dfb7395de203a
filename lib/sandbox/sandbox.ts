import { WorkerPool } from "./pool.ts";
import { Session } from "./session.ts";
import type { Sandbox, SandboxSession, SessionLimits } from "./types.ts";

/** Heap limit of workers for sessions without `maxHeapSizeBytes`, in MiB. */
export const DEFAULT_HEAP_MB = 512;

export interface SandboxOptions {
  /**
   * Idle workers kept ready for sessions without a heap limit (default 1: each is a V8 isolate
   * of its own; more are started only for concurrent cells). None boot before the first session.
   */
  warmWorkers?: number;
  /** Heap limit of workers for sessions without `maxHeapSizeBytes` (default DEFAULT_HEAP_MB). */
  defaultHeapMb?: number;
  /** A cell whose output (text, notifications, image and audio URLs) exceeds this many UTF-16 code units fails (default 128 Mi). */
  maxOutputChars?: number;
}

export function createSandbox(options: SandboxOptions = {}): Sandbox {
  const pool = new WorkerPool({
    warmWorkers: options.warmWorkers ?? 1,
    defaultHeapMb: options.defaultHeapMb ?? DEFAULT_HEAP_MB,
    maxOutputChars: options.maxOutputChars ?? 128 * 1024 * 1024,
  });
  const sessions = new Set<Session>();
  let stopped = false;
  return {
    openSession(limits?: SessionLimits): SandboxSession {
      // Closed sessions are dropped, so that a long-lived host does not keep every session's store.
      const session: Session = new Session(pool, limits, () => sessions.delete(session));
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
    },
  };
}
