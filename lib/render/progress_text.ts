// Short texts for a running turn, shared by chat's status line and exec's stderr: a retry notice, a delay, an
// elapsed time and a token count.
import type { EventOf } from "../protocol/index.ts";
import { stripControls } from "./style.ts";

/** `1 s`, `0.5 s`, `2 min 5 s`. */
export function formatDelay(ms: number): string {
  if (ms < 1000) return `${Math.max(0.1, Math.round(ms / 100) / 10)} s`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

/** `retrying 1/3 in 2 s: HTTP 429`; `remainingMs` counts the wait down (default: the whole delay). */
export function retryText(event: EventOf<"turn.retrying">, remainingMs: number = event.delay_ms): string {
  const reason = stripControls(event.reason);
  return `retrying ${event.attempt}/${event.max_attempts} in ${formatDelay(Math.max(0, remainingMs))}: ${reason}`;
}

/** `7s`, `1m 05s`, `1h 02m`. */
export function formatElapsed(ms: number): string {
  const seconds = Math.floor(Math.max(0, ms) / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${String(seconds % 60).padStart(2, "0")}s`;
  return `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, "0")}m`;
}

/** `950`, `12.3k`, `128k`, `1.2M`. */
export function formatTokens(count: number): string {
  const trim = (text: string) => text.replace(/\.0$/, "");
  if (count < 1000) return String(Math.max(0, Math.round(count)));
  if (count < 100_000) return `${trim((count / 1000).toFixed(1))}k`;
  if (count < 1_000_000) return `${Math.round(count / 1000)}k`;
  return `${trim((count / 1_000_000).toFixed(1))}M`;
}
