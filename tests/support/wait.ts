// Waiting on conditions with deadlines instead of fixed sleeps: a test waits exactly as long as the thing takes,
// and fails with what it waited for when it does not happen in time.
import { setImmediate as nextMacrotask } from "node:timers/promises";

export type WaitOptions = {
  /** Give up after this long (default 5 s: generous, a loaded machine can stall a process for a while). */
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
  const { timeoutMs = 5_000, intervalMs = 10, what = "the condition" } = options;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await condition();
      if (value) return value as NonNullable<T>;
      lastError = undefined;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const cause = lastError instanceof Error ? ` (last error: ${lastError.message})` : "";
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}${cause}`);
    }
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Math.min(intervalMs, deadline - Date.now()))));
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
