// Which failures a retry can fix and how long the server asks us to wait (spec §8.1 "Retries", Changed).
import type { ErrorDetails } from "./errors.ts";
import type { ProviderHttpResponse } from "./http.ts";

/** Codes and types that no retry fixes, even under a 429 or 5xx. */
const PERMANENT_LABELS = ["insufficient_quota", "context_length_exceeded", "exceed_context_size", "billing"];

/**
 * Messages that no retry fixes: an over-long or over-large request, and a server configuration problem such as
 * llama-server run without `--jinja` (HTTP 500 "tools param requires --jinja flag").
 */
const PERMANENT_MESSAGES = [
  /request too large/i,
  /maximum context length/i,
  /exceeds? the available context/i,
  /context (?:size|length|window) (?:has been )?exceeded/i,
  /--jinja/,
  /--enable-auto-tool-choice/,
  /--tool-call-parser/,
  /does not support tools/i,
  /exceeded your current quota/i,
];

export function isPermanent(details: ErrorDetails | undefined, status?: number): boolean {
  if (status === 413) return true;
  if (!details) return false;
  const labels = details.labels.map((value) => value.toLowerCase());
  if (labels.some((value) => PERMANENT_LABELS.some((needle) => value.includes(needle)))) return true;
  const message = details.message ?? "";
  return PERMANENT_MESSAGES.some((pattern) => pattern.test(message));
}

function header(headers: ProviderHttpResponse["headers"], name: string): string | undefined {
  const raw = headers[name];
  const value = (Array.isArray(raw) ? raw[0] : raw)?.trim();
  return value === "" ? undefined : value;
}

/**
 * The server's hint in milliseconds: `retry-after-ms`, else `Retry-After` in seconds or as an HTTP date, else a
 * `try again in 11.75s` / `in 500ms` phrase in a rate-limit message.
 */
export function retryHintMs(
  headers: ProviderHttpResponse["headers"],
  details: ErrorDetails | undefined,
  now: number = Date.now(),
): number | undefined {
  const ms = header(headers, "retry-after-ms");
  if (ms !== undefined && /^\d+(?:\.\d+)?$/.test(ms)) return Math.ceil(Number(ms));
  const after = header(headers, "retry-after");
  if (after !== undefined) {
    if (/^\d+(?:\.\d+)?$/.test(after)) return Math.ceil(Number(after) * 1000);
    const date = Date.parse(after);
    if (!Number.isNaN(date)) return Math.max(0, date - now);
  }
  return messageHintMs(details);
}

export function messageHintMs(details: ErrorDetails | undefined): number | undefined {
  if (!details?.message) return undefined;
  const rateLimited = details.labels.some((value) => value.toLowerCase().includes("rate_limit")) ||
    /rate limit/i.test(details.message);
  if (!rateLimited) return undefined;
  const match = /try again in\s+(\d+(?:\.\d+)?)\s*(ms|s)\b/i.exec(details.message);
  if (!match) return undefined;
  const value = Number(match[1]);
  return Math.ceil(match[2]!.toLowerCase() === "ms" ? value : value * 1000);
}
