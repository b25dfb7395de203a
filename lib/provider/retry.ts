// Retries of transient provider failures with exponential backoff (spec §8.1 "Retries").
import { abortError } from "../util/abort.ts";
import { AttemptFailure } from "./errors.ts";
import { ProviderError, type RetryNotice, type RetryTiming } from "./types.ts";

const BASE_DELAY_MS = 1000;
const MAX_WAIT_MS = 60_000;
const MAX_REASON_CHARS = 120;

export const defaultTiming: RetryTiming = {
  delay: (ms, signal) =>
    new Promise((resolve, reject) => {
      if (signal.aborted) return reject(abortError());
      const onAbort = () => {
        clearTimeout(timer);
        reject(abortError());
      };
      const timer = setTimeout(() => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      }, ms);
      signal.addEventListener("abort", onAbort, { once: true });
    }),
  random: Math.random,
};

/**
 * Runs `attempt` until it succeeds, fails for good, or `maxRetries` retries are spent.
 * Attempts signal failure with AttemptFailure; its `transient` flag allows a retry.
 */
export async function withRetries<T>(
  attempt: () => Promise<T>,
  options: {
    maxRetries: number;
    timing: RetryTiming;
    signal: AbortSignal;
    onRetry?: (notice: RetryNotice) => void | Promise<void>;
  },
): Promise<T> {
  for (let attempts = 1;; attempts += 1) {
    if (options.signal.aborted) throw abortError();
    try {
      return await attempt();
    } catch (error) {
      if (options.signal.aborted) throw abortError();
      if (!(error instanceof AttemptFailure)) throw error;
      const suffix = attempts > 1 ? ` (gave up after ${attempts} attempts)` : "";
      if (!error.transient || attempts > options.maxRetries) {
        throw new ProviderError(error.error.code, error.error.message + suffix);
      }
      const delay = error.retryAfterMs ?? BASE_DELAY_MS * 2 ** (attempts - 1) * (0.5 + options.timing.random());
      if (delay > MAX_WAIT_MS) {
        const seconds = Math.ceil(delay / 1000);
        throw new ProviderError(
          error.error.code,
          `${error.error.message} (retry delay of ${seconds} seconds exceeds 60 seconds; not retried)${suffix}`,
        );
      }
      await options.onRetry?.({
        attempt: attempts,
        max_attempts: options.maxRetries + 1,
        delay_ms: Math.round(delay),
        reason: retryReason(error),
      });
      if (options.signal.aborted) throw abortError();
      await options.timing.delay(delay, options.signal);
    }
  }
}

/** The failure's short reason, else its message without the `provider …:` lead-in, cut to 120 characters. */
export function retryReason(failure: AttemptFailure): string {
  if (failure.reason) return failure.reason;
  const text = failure.error.message.replace(/^provider (?:error|stream error|returned):\s*/, "");
  const chars = Array.from(text);
  return chars.length > MAX_REASON_CHARS ? `${chars.slice(0, MAX_REASON_CHARS - 1).join("")}…` : text;
}
