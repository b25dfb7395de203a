// Waiting on conditions with deadlines instead of fixed sleeps: a test waits exactly as long as the thing takes,
// and fails with what it waited for when it does not happen in time. Deadlines only catch hangs: a passing test
// never comes near one, however busy the machine.
import { setImmediate as nextMacrotask } from "node:timers/promises";

/**
 * How long a test waits for something that must happen before calling it a hang. Long on purpose, since a test that
 * passes never waits this long: measured on 2 cores at a load average of 30 (both cores kept busy, other work
 * running), a test that needs 9 s of CPU (a 64 MiB WebSocket message) took 150 s.
 */
export const HANG_MS = 300_000;

/**
 * The deadline a waiting helper uses: what its caller asked for, but never less than HANG_MS, since a deadline is
 * not a latency check (a latency that matters is measured by a benchmark under scripts/bench/).
 */
export function hangDeadline(timeoutMs: number | undefined): number {
  return Math.max(timeoutMs ?? HANG_MS, HANG_MS);
}

// Taken before any test installs fake timers (vi.useFakeTimers), so that waiting works under a fake clock too.
const realSetTimeout = globalThis.setTimeout;
const realClearTimeout = globalThis.clearTimeout;
const realNow = Date.now;

export type WaitOptions = {
  /** Give up after this long (at least HANG_MS, the default). */
  timeoutMs?: number;
  /** Poll period for conditions nothing notifies about (default 10 ms). */
  intervalMs?: number;
  /** Named in the timeout error: "timed out after 5000 ms waiting for <what>". */
  what?: string;
};

/**
 * Resolves with the first truthy value `condition` returns (it may be async), polling until `timeoutMs`;
 * rejects with an error naming `what` (and the last error the condition threw, if any) when time runs out.
 */
export async function waitFor<T>(condition: () => T | Promise<T>, options: WaitOptions = {}): Promise<NonNullable<T>> {
  const { intervalMs = 10, what = "the condition" } = options;
  const timeoutMs = hangDeadline(options.timeoutMs);
  const deadline = realNow() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await condition();
      if (value) return value as NonNullable<T>;
      lastError = undefined;
    } catch (error) {
      lastError = error;
    }
    if (realNow() >= deadline) {
      const cause = lastError instanceof Error ? ` (last error: ${lastError.message})` : "";
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}${cause}`);
    }
    await new Promise((resolve) => realSetTimeout(resolve, Math.max(0, Math.min(intervalMs, deadline - realNow()))));
  }
}

/**
 * `promise`, or a rejection naming `what` if it has not settled after `timeoutMs`: for an outcome that must come
 * (a cancel that must end a turn, a process that must exit), where only a hang would keep it away.
 */
export async function within<T>(promise: Promise<T>, what: string, atLeastMs?: number): Promise<T> {
  const timeoutMs = hangDeadline(atLeastMs);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = realSetTimeout(() => reject(new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`)), timeoutMs);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    realClearTimeout(timer);
  }
}

/**
 * Lets everything already scheduled in this process run: promise jobs, nextTick callbacks and `rounds` turns of
 * the event loop. For "has not happened (yet)" checks on in-process code, where nothing outside the process is
 * involved, so a fixed sleep only adds time.
 */
export async function settle(rounds = 3): Promise<void> {
  for (let round = 0; round < rounds; round += 1) await nextMacrotask();
}
