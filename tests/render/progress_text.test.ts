// The short texts of a running turn shared by chat's status line and exec's stderr.
import { describe, expect, it } from "vitest";
import { formatDelay, formatElapsed, formatTokens, retryText } from "../../lib/render/progress_text.ts";

describe("progress texts", () => {
  it("rounds token counts the way the status line shows them", () => {
    expect([950, 1000, 1540, 12_345, 99_949, 128_000, 131_072, 1_048_576].map(formatTokens)).toEqual([
      "950",
      "1k",
      "1.5k",
      "12.3k",
      "99.9k",
      "128k",
      "131k",
      "1M",
    ]);
  });

  it("says delays and elapsed times in words a user reads at a glance", () => {
    expect([30, 450, 1000, 1800, 59_400, 125_000].map(formatDelay)).toEqual([
      "0.1 s",
      "0.5 s",
      "1 s",
      "2 s",
      "59 s",
      "2 min 5 s",
    ]);
    expect([0, 999, 7_200, 65_000, 3_725_000].map(formatElapsed)).toEqual(["0s", "0s", "7s", "1m 05s", "1h 02m"]);
  });

  it("counts a retry's wait down and keeps control characters of the reason off the terminal", () => {
    const event = {
      type: "turn.retrying" as const,
      request_id: "r",
      session_id: "s",
      turn_id: "t",
      seq: 3,
      attempt: 2,
      max_attempts: 3,
      delay_ms: 4000,
      reason: "over\x1b[2Jloaded",
    };
    expect(retryText(event)).toBe("retrying 2/3 in 4 s: over[2Jloaded");
    expect(retryText(event, 1200)).toBe("retrying 2/3 in 1 s: over[2Jloaded");
  });
});
