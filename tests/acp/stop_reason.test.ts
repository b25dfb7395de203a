// How each wire's unfinished response ends an ACP prompt: the token limit as `max_tokens`, a provider's refusal
// as `refusal`, whichever wire said it (the provider layer's exact texts, lib/provider).
import { describe, expect, it } from "vitest";
import { turnOutcome } from "../../lib/acp/stop_reason.ts";

const failed = (message: string) =>
  turnOutcome(
    {
      type: "turn.failed",
      request_id: "r",
      session_id: "s",
      turn_id: "t",
      seq: 1,
      code: "provider_error",
      message,
    } as Parameters<typeof turnOutcome>[0],
  );

describe("ACP stop reasons of unfinished responses", () => {
  it("the token limit of every wire is max_tokens", () => {
    for (const reason of ["max_output_tokens", "length", "max_tokens", "model_context_window_exceeded"]) {
      expect(failed(`provider response incomplete: ${reason}`), reason).toEqual({ stopReason: "max_tokens" });
    }
  });

  it("a content filter and a Messages refusal (with its explanation) are refusal", () => {
    expect(failed("provider response incomplete: content_filter")).toEqual({ stopReason: "refusal" });
    expect(failed("provider response incomplete: refusal (This request was refused due to policy.)")).toEqual({
      stopReason: "refusal",
    });
  });
});
