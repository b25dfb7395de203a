// Provider retries are visible (issue 22): the additive `turn.retrying` event before each retry's wait, as a line on
// `scv exec`'s stderr and as an NDJSON event with --json, against the fake provider over real HTTP.
import { describe, expect, it } from "vitest";
import { useCliHarness } from "../support/cli_harness.ts";
import { textResponse } from "../support/fake_provider.ts";
import type { ServerEvent } from "../support/server_client.ts";

const harness = useCliHarness();

const rateLimited = (headers: Record<string, string>) => ({
  status: 429,
  reason: "Too Many Requests",
  headers,
  body: { error: { message: "slow down", type: "rate_limit_error" } },
});

describe("turn.retrying", () => {
  it("--json writes the event with the attempt, the server's delay and the reason, before the retry", async () => {
    harness.provider.push(rateLimited({ "Retry-After": "1" }), textResponse(["after the wait"]));
    const started = Date.now();
    const result = await harness.start(["exec", "--json", "go"]).done;
    expect(result.code).toBe(0);
    const events: ServerEvent[] = result.stdout.trim().split("\n").map((line) => JSON.parse(line));
    const retrying = events.filter((event) => event.type === "turn.retrying");
    expect(retrying).toHaveLength(1);
    const turn = events.find((event) => event.type === "turn.started")!;
    expect(retrying[0]).toEqual({
      type: "turn.retrying",
      request_id: turn.request_id,
      session_id: turn.session_id,
      turn_id: turn.turn_id,
      seq: (turn.seq as number) + 1,
      attempt: 1,
      max_attempts: 3,
      delay_ms: 1000,
      reason: "HTTP 429",
    });
    // Written before the wait: the answer comes after it, and the seq stays gapless.
    const types = events.map((event) => event.type);
    expect(types.indexOf("turn.retrying")).toBeLessThan(types.indexOf("assistant.delta"));
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    const seqs = events.filter((event) => "seq" in event).map((event) => event.seq);
    expect(seqs).toEqual(seqs.map((_, index) => index + 1));
    expect(harness.provider.requests).toHaveLength(2);
  });

  it("scv exec says on stderr that it retries, then prints the answer", async () => {
    harness.provider.push(
      rateLimited({ "retry-after-ms": "30" }),
      {
        status: 503,
        reason: "Service Unavailable",
        headers: { "retry-after-ms": "20" },
        body: { error: { message: "busy", type: "server_error" } },
      },
      textResponse(["third time lucky"]),
    );
    const result = await harness.start(["exec", "go"]).done;
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("third time lucky\n");
    const lines = result.stderr.split("\n").filter((line) => line.includes("retrying"));
    expect(lines[0]).toBe("scv exec: retrying 1/3 in 0.1 s: HTTP 429");
    expect(lines[1]).toBe("scv exec: retrying 2/3 in 0.1 s: HTTP 503");
    expect(lines).toHaveLength(2);
  });
});
