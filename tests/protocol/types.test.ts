// The agent protocol's types are derived from its validator and builders: tsc (`npm test` runs it first) checks the
// `@ts-expect-error` lines below, so a renamed or retyped event field fails the type check of every reader, and a
// message type the validator does not know is not a ClientMessage.
import { describe, expect, expectTypeOf, it } from "vitest";
import { Transcript } from "../../lib/render/transcript.ts";
import { createStyle } from "../../lib/render/style.ts";
import {
  type ClientMessage,
  type ClientRequest,
  type EventOf,
  events,
  parseClientMessage,
  type ServerEvent,
} from "../../lib/protocol/index.ts";

const scope = { request_id: "r1", session_id: "s1", turn_id: "t1" };

// Never called: only type-checked. A renderer reading event fields the way lib/chat does.
function readFields(event: ServerEvent): unknown[] {
  switch (event.type) {
    case "assistant.delta":
      // @ts-expect-error: the delta's text is `content`, not `text`
      return [event.text];
    case "tool.progress":
      // @ts-expect-error: tool.progress carries no tool name (the call's tool.proposed does)
      return [event.name];
    case "turn.completed":
      // @ts-expect-error: usage counts are numbers, not strings
      return [event.usage.input_tokens?.toUpperCase()];
    case "tool.completed":
      // `error` is present only on a failed call.
      expectTypeOf(event.error).toEqualTypeOf<string | undefined>();
      return [event.output, event.truncated];
    default:
      // @ts-expect-error: not every event belongs to a turn
      return [event.turn_id];
  }
}

describe("protocol types", () => {
  it("gives each builder a literal type that narrows the ServerEvent union", () => {
    expectTypeOf(events.turnStarted(scope).type).toEqualTypeOf<"turn.started">();
    expectTypeOf<EventOf<"assistant.delta">["content"]>().toEqualTypeOf<string>();
    expectTypeOf<EventOf<"error">["request_id"]>().toEqualTypeOf<string | undefined>();
    expectTypeOf(readFields).parameter(0).toEqualTypeOf<ServerEvent>();
    // @ts-expect-error: no such event
    expectTypeOf<EventOf<"assistant.started">>().toBeNever();
  });

  it("derives ClientMessage from the validator: optional fields are optional, unknown types are not messages", () => {
    expectTypeOf<Extract<ClientMessage, { type: "session.start" }>["model"]>().toEqualTypeOf<string | undefined>();
    expectTypeOf<Extract<ClientMessage, { type: "queue.move" }>["before_queue_id"]>().toEqualTypeOf<string | null>();
    const cancel: ClientRequest = { type: "turn.cancel", turn_id: "t1" };
    // @ts-expect-error: turn.cancel needs its turn_id
    const incomplete: ClientRequest = { type: "turn.cancel" };
    // @ts-expect-error: not a client message type
    const unknown: ClientRequest = { type: "turn.begin", prompt: "x" };
    expect([cancel, incomplete, unknown].length).toBe(3);
    const parsed = parseClientMessage({ type: "session.start", request_id: "1", cwd: "/w", model: null, extra: 1 });
    expect(parsed).toEqual({ ok: true, message: { type: "session.start", request_id: "1", cwd: "/w" } });
  });

  it("the renderer reads the builders' events (a failed tool call with its error code)", () => {
    const transcript = new Transcript(createStyle(false), 80);
    transcript.apply(events.toolProposed(scope, "c1", "bash", { command: "false" }));
    const rows = transcript.apply(
      events.toolCompleted(scope, {
        call_id: "c1",
        name: "bash",
        success: false,
        output: "",
        truncated: false,
        error: "exit_1",
      }),
    );
    expect(rows).toEqual(["⏺ bash false", "  ✗ exit_1"]);
  });
});
