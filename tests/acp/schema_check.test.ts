// The schema check the agent tests rely on catches what it should: a message that is not ACP v1 is reported.
import { describe, expect, it } from "vitest";
import { checkAgentLine } from "./acp_client.ts";

describe("the ACP v1 schema check", () => {
  it("accepts a valid session/update and rejects a bad tool kind, a missing field and a bad stop reason", () => {
    const update = (fields: object) =>
      JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { sessionId: "s", update: fields } });
    const methods = new Map([["7", "session/prompt"]]);
    expect(checkAgentLine(update({ sessionUpdate: "tool_call", toolCallId: "a", title: "t", kind: "read" }), methods))
      .toEqual([]);
    expect(
      checkAgentLine(update({ sessionUpdate: "tool_call", toolCallId: "a", title: "t", kind: "teleport" }), methods),
    ).not.toEqual([]);
    expect(checkAgentLine(update({ sessionUpdate: "agent_message_chunk" }), methods)).not.toEqual([]);
    const stop = (stopReason: string) => JSON.stringify({ jsonrpc: "2.0", id: 7, result: { stopReason } });
    expect(checkAgentLine(stop("end_turn"), methods)).toEqual([]);
    expect(checkAgentLine(stop("gave_up"), methods)).not.toEqual([]);
    expect(checkAgentLine("not json", methods)).not.toEqual([]);
  });
});
