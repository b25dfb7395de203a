// `provider.stream_idle_timeout_seconds` (issue 27 item 5): a provider that stops sending mid-stream is cut after
// the idle timeout and retried like a dropped connection, and `scv exec` says on stderr that the provider is slow.
// The fake provider stalls for real; the test asserts the retry and the notice, not how long anything took.
import { describe, expect, it } from "vitest";
import { useCliHarness } from "../support/cli_harness.ts";
import { textResponse } from "../support/fake_provider.ts";
import type { ServerEvent } from "../support/server_client.ts";

const harness = useCliHarness();

/** Sends `response.created`, then nothing more, with the connection left open. */
const stalling = {
  events: [{ type: "response.created", response: {} }],
  mode: "chunked" as const,
  end: "hang" as const,
};

describe("a provider stream that stalls", () => {
  it("is retried after the idle timeout, and exec's stderr says the provider is slow", async () => {
    await harness.sandbox.writeUserConfig("[provider]\nstream_idle_timeout_seconds = 0.2\n");
    harness.provider.push(stalling, textResponse(["after the stall"]));
    const result = await harness.start(["exec", "go"]).done;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe("after the stall\n");
    expect(result.stderr).toMatch(
      /^scv exec: retrying 1\/3 in \d+(\.\d+)? ?m?s: the provider is slow: nothing arrived for 0\.2 s$/m,
    );
    expect(harness.provider.requests).toHaveLength(2);
  });

  it("scv chat shows the notice too (a row in plain mode, where there is no status line)", async () => {
    await harness.sandbox.writeUserConfig("[provider]\nstream_idle_timeout_seconds = 0.2\n");
    harness.provider.push(stalling, textResponse(["after the stall"]));
    const result = await harness.start(["chat"], { stdin: "go\n" }).done;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/\(retrying 1\/3 in [^:]+: the provider is slow: nothing arrived for 0\.2 s\)/);
    expect(result.stdout).toContain("after the stall");
  });

  it("--json carries the turn.retrying event; a stall on every attempt fails the turn naming the setting", async () => {
    await harness.sandbox.writeUserConfig(
      "[provider]\nstream_idle_timeout_seconds = 0.2\n[provider_limits]\nmax_retries = 1\n",
    );
    harness.provider.push(stalling, stalling);
    const result = await harness.start(["exec", "--json", "go"]).done;
    expect(result.code).toBe(1);
    const events: ServerEvent[] = result.stdout.trim().split("\n").map((line) => JSON.parse(line));
    expect(events.filter((event) => event.type === "turn.retrying")).toMatchObject([
      { attempt: 1, max_attempts: 2, reason: "the provider is slow: nothing arrived for 0.2 s" },
    ]);
    expect(events.at(-1)).toMatchObject({
      type: "turn.failed",
      code: "provider_error",
      message:
        "provider stream stalled: nothing arrived for 0.2 seconds (provider.stream_idle_timeout_seconds) (gave up after 2 attempts)",
    });
  });
});
