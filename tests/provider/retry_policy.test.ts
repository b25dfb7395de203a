// The retry rules of spec §8.1 (Changed), as pure functions: the server's wait hints and the failures no retry fixes.
import { describe, expect, it } from "vitest";
import { isPermanent, messageHintMs, retryHintMs } from "../../lib/provider/retry_policy.ts";

const rateLimit = (message: string) => ({ message, labels: ["rate_limit_exceeded", "tokens"] });

describe("retryHintMs", () => {
  const now = Date.parse("2026-12-01T12:00:00Z");

  it("prefers retry-after-ms, then Retry-After seconds or date, then the message", () => {
    const details = rateLimit("Please try again in 11.75s.");
    expect(retryHintMs({ "retry-after-ms": "250.5", "retry-after": "7" }, details, now)).toBe(251);
    expect(retryHintMs({ "retry-after": "7" }, details, now)).toBe(7000);
    expect(retryHintMs({ "retry-after": "1.5" }, details, now)).toBe(1500);
    expect(retryHintMs({ "retry-after": "Tue, 01 Dec 2026 12:00:30 GMT" }, details, now)).toBe(30_000);
    expect(retryHintMs({}, details, now)).toBe(11_750);
  });

  it("a date in the past means now; garbage headers fall through to the message, then to nothing", () => {
    expect(retryHintMs({ "retry-after": "Tue, 01 Dec 2026 11:00:00 GMT" }, undefined, now)).toBe(0);
    expect(retryHintMs({ "retry-after-ms": "soon", "retry-after": "later" }, rateLimit("try again in 2s"), now)).toBe(
      2000,
    );
    expect(retryHintMs({ "retry-after": "later" }, undefined, now)).toBeUndefined();
  });
});

describe("messageHintMs", () => {
  it("reads seconds and milliseconds only in rate-limit errors", () => {
    expect(messageHintMs(rateLimit("Please try again in 120ms. Visit …"))).toBe(120);
    expect(messageHintMs(rateLimit("Please try again in 3s"))).toBe(3000);
    expect(messageHintMs({ message: "Rate limit reached. Please try again in 1.2s", labels: [] })).toBe(1200);
    expect(messageHintMs({ message: "Please try again in 5s", labels: ["invalid_request_error"] })).toBeUndefined();
    expect(messageHintMs(rateLimit("slow down"))).toBeUndefined();
  });
});

describe("isPermanent", () => {
  it("quota, context length, request too large, 413 and server configuration problems", () => {
    expect(isPermanent({ message: "You exceeded your current quota", labels: ["insufficient_quota"] })).toBe(true);
    expect(isPermanent({ message: "too long", labels: ["context_length_exceeded", "invalid_request_error"] })).toBe(
      true,
    );
    expect(isPermanent(rateLimit("Request too large for gpt-4o in organization org-1 on tokens per min (TPM)"))).toBe(
      true,
    );
    expect(isPermanent({ message: "tools param requires --jinja flag", labels: ["500", "server_error"] })).toBe(true);
    expect(isPermanent(undefined, 413)).toBe(true);
  });

  it("not an ordinary rate limit, overload or server error", () => {
    expect(isPermanent(rateLimit("Rate limit reached for gpt-4o. Please try again in 1s"))).toBe(false);
    expect(isPermanent({ message: "The server is overloaded", labels: ["server_error"] })).toBe(false);
    expect(isPermanent(undefined, 503)).toBe(false);
  });
});
