// The status line's pure parts: TurnActivity following a session's events and formatStatus laying them out.
import { describe, expect, it } from "vitest";
import { formatStatus, TurnActivity } from "../../lib/chat/status.ts";
import { createStyle } from "../../lib/render/style.ts";
import type { ClientEvent } from "../../lib/protocol/index.ts";

const plain = createStyle(false);
const turn = { request_id: "r", session_id: "s", turn_id: "t", seq: 1 };
const ev = (event: Record<string, unknown>) => ({ ...turn, ...event }) as unknown as ClientEvent;
const started = ev({
  type: "session.started",
  cwd: "/w",
  model: "m",
  context_max_tokens: 100_000,
  context_window: { tokens: 128_000, source: "known_model" },
});

function line(activity: TurnActivity, now: number, state: "idle" | "working" = "working"): string {
  return formatStatus(
    { model: "m", state, lastUsage: undefined, totalUsage: {}, width: 200, activity: activity.view(now) },
    plain,
  );
}

describe("TurnActivity", () => {
  it("spins until the first token, again while the model thinks after a tool, and counts the turn's time", () => {
    const activity = new TurnActivity("ascii");
    activity.apply(started, 0);
    activity.apply(ev({ type: "turn.started" }), 1000);
    expect(line(activity, 1000)).toBe(
      "m · | waiting for the model 0s (Esc or Ctrl-C cancels) · last turn – · session –",
    );
    expect(line(activity, 3200)).toContain("- waiting for the model 2s");
    activity.apply(ev({ type: "tool.proposed", call_id: "c1", name: "exec", arguments: {} }), 3200);
    expect(line(activity, 4000)).toContain("· working 3s (Esc");
    // A nested call's result goes back to its cell, not to the model.
    activity.apply(ev({ type: "tool.completed", call_id: "c1:tool-1", name: "read", success: true }), 4100);
    expect(line(activity, 4200)).toContain("· working 3s (Esc");
    activity.apply(ev({ type: "tool.completed", call_id: "c1", name: "exec", success: true }), 4300);
    expect(line(activity, 4300)).toContain("waiting for the model 3s");
    expect(activity.key(4300)).not.toBe(activity.key(4400));
  });

  it("counts a retry down, then shows the context in use instead of the last turn's usage", () => {
    const activity = new TurnActivity("none");
    activity.apply(started, 0);
    activity.apply(ev({ type: "turn.started" }), 0);
    const retry = { type: "turn.retrying", attempt: 1, max_attempts: 3, delay_ms: 2000, reason: "HTTP 429" };
    activity.apply(ev(retry), 500);
    expect(line(activity, 500)).toContain("· retrying 1/3 in 2 s: HTTP 429 0s (Esc");
    expect(line(activity, 1600)).toContain("retrying 1/3 in 0.9 s: HTTP 429 1s");
    // No spinner frames at all without a terminal.
    expect(line(activity, 2600)).toContain("· working 2s (Esc");
    activity.apply(ev({ type: "turn.completed", steps: 1, usage: { input_tokens: 12_000, output_tokens: 345 } }), 3000);
    expect(activity.running).toBe(false);
    expect(line(activity, 3000, "idle")).toBe("m · ready · context 12.3k / 128k tokens · session –");
    activity.apply(ev({ type: "turn.started" }), 4000);
    activity.apply(ev({ type: "turn.completed", steps: 3, usage: { input_tokens: 60_000, output_tokens: 900 } }), 5000);
    expect(line(activity, 5000, "idle")).toContain("context ~20.3k / 128k tokens");
    // The server's own figure for the last request wins over any estimate from the summed usage.
    const counted = { type: "turn.completed", steps: 3, usage: { input_tokens: 60_000, output_tokens: 900 } };
    activity.apply(ev({ type: "turn.started" }), 5500);
    activity.apply(ev({ ...counted, context_tokens: 21_500 }), 5600);
    expect(line(activity, 5600, "idle")).toContain("context 21.5k / 128k tokens");
    activity.apply(ev({ type: "session.cleared" }), 6000);
    expect(line(activity, 6000, "idle")).toContain("last turn –");
  });
});
