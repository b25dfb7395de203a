export const DEFAULT_YIELD_TIME_MS = 10_000;
const GRACE_FROM_MS = 10_000;
const GRACE_MS = 1_000;

/**
 * The effective yield timeout (host spec §6.2): the requested time (execute: 10,000 when
 * `null`), plus 1,000 ms of grace at ≥ 10,000, capped by the session's `maxYieldTimeMs`.
 */
export function effectiveYieldMs(requested: number | null, maxYieldTimeMs: number | null | undefined): number {
  let ms = requested ?? DEFAULT_YIELD_TIME_MS;
  if (ms >= GRACE_FROM_MS) ms += GRACE_MS;
  if (maxYieldTimeMs !== null && maxYieldTimeMs !== undefined) ms = Math.min(ms, maxYieldTimeMs);
  return Math.max(0, ms);
}
