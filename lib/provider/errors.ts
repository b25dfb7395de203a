// Provider error texts (spec §8.1): details extraction, sanitising and transient classification.
import { isPermanent } from "./retry_policy.ts";
import { redactSecrets } from "../util/redact.ts";
import { ProviderError } from "./types.ts";

const MAX_PROVIDER_TEXT_CHARS = 300;
const TRANSIENT_LABELS = ["overload", "unavailable", "rate_limit", "server_error", "timeout"];

/** Provider-originated text: credential → `[REDACTED]`, control characters → spaces, trimmed, ≤300 characters + `…`. */
export function sanitize(text: string, credential: string): string {
  let clean = credential ? redactSecrets(text, [credential], { minChars: 1 }) : text;
  clean = clean.replace(/[\u0000-\u001f\u007f-\u009f]/g, " ").trim();
  const chars = Array.from(clean);
  return chars.length > MAX_PROVIDER_TEXT_CHARS ? chars.slice(0, MAX_PROVIDER_TEXT_CHARS).join("") + "…" : clean;
}

export type ErrorDetails = { message?: string; labels: string[] };

function label(value: unknown): string | undefined {
  if (typeof value === "string") return value.trim() || undefined;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return undefined;
}

/**
 * Message and labels of an `error` object, else of the top-level `code`/`message`.
 * Returns undefined when the value carries neither.
 */
export function extractDetails(value: unknown): ErrorDetails | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  const inner = record.error;
  if (typeof inner === "object" && inner !== null && !Array.isArray(inner)) {
    const error = inner as Record<string, unknown>;
    return { message: label(error.message), labels: dedupe([label(error.code), label(error.type)]) };
  }
  if (typeof inner === "string" && inner.trim()) {
    return { message: inner.trim(), labels: dedupe([label(record.code)]) };
  }
  if (record.code !== undefined || record.message !== undefined) {
    return { message: label(record.message), labels: dedupe([label(record.code)]) };
  }
  return undefined;
}

/** `<message or "no details"> (<code>, <type>)` */
export function formatDetails(details: ErrorDetails | undefined, credential: string): string {
  const message = details?.message ?? "no details";
  const labels = details?.labels.length ? ` (${details.labels.join(", ")})` : "";
  return sanitize(message + labels, credential);
}

function dedupe(values: Array<string | undefined>): string[] {
  return [...new Set(values.filter((value): value is string => value !== undefined))];
}

/**
 * An error whose code or type names a transient condition, or whose message says overloaded, unless it is one
 * that a retry cannot fix (quota, an over-long request, a server configuration problem).
 */
export function isTransientDetails(details: ErrorDetails | undefined): boolean {
  if (!details || isPermanent(details)) return false;
  const labelHit = details.labels.some((value) => {
    const lower = value.toLowerCase();
    return TRANSIENT_LABELS.some((needle) => lower.includes(needle));
  });
  return labelHit || (details.message ?? "").toLowerCase().includes("overloaded");
}

/**
 * A failed attempt: the error to report, whether another attempt may follow (spec §8.1
 * transient failures) and the server's `Retry-After` in milliseconds.
 */
export class AttemptFailure extends Error {
  error: ProviderError;
  transient: boolean;
  retryAfterMs: number | undefined;
  /** A few words for a retry notice (`HTTP 429`, `connection reset`); the message stands in when unset. */
  reason: string | undefined;
  constructor(error: ProviderError, transient: boolean, retryAfterMs?: number) {
    super(error.message);
    this.name = "AttemptFailure";
    this.error = error;
    this.transient = transient;
    this.retryAfterMs = retryAfterMs;
  }
}

export function providerFailure(message: string, transient: boolean, retryAfterMs?: number): AttemptFailure {
  return new AttemptFailure(new ProviderError("provider_error", message), transient, retryAfterMs);
}

export function limitFailure(code: "response_limit" | "tool_limit", message: string): AttemptFailure {
  return new AttemptFailure(new ProviderError(code, message), false);
}

/** Message of a transport error, with the low-level code when the message lacks it. */
export function describeTransportError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  const cause = (error as { cause?: unknown }).cause;
  let text = error.message || error.name;
  if (cause instanceof Error && cause.message && !text.includes(cause.message)) text += `: ${cause.message}`;
  if (typeof code === "string" && !text.includes(code) && !code.startsWith("UND_ERR")) text += ` (${code})`;
  return text;
}

const TRANSPORT_REASONS: Record<string, string> = {
  ECONNRESET: "connection reset",
  ECONNREFUSED: "connection refused",
  ECONNABORTED: "connection aborted",
  EPIPE: "connection closed",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "name lookup failed",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  UND_ERR_SOCKET: "connection closed",
  UND_ERR_CLOSED: "connection closed",
};

/** The short name of a transport failure (`connection reset`), or undefined when its code is not a known one. */
export function transportReason(error: unknown): string | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 4; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && TRANSPORT_REASONS[code]) return TRANSPORT_REASONS[code];
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
