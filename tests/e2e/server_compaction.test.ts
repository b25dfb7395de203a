// Compaction by the model through the real server (docs/sessions.md#compaction): past `compaction.auto_percent` of
// a small window the older turns go to the model as a summary request and the next request carries the summary and
// the kept turn word for word; a failed summary falls back to the deterministic note; a resume restores the
// compacted history; `session.compact` with a focus.
import { describe, expect, it } from "vitest";
import { type FakeResponse, textResponse } from "../support/fake_provider.ts";
import { type ServerClient, type ServerEvent, spawnServer } from "../support/server_client.ts";
import { useServerHarness } from "../support/server_harness.ts";

const harness = useServerHarness();

// About 3000 bytes of answer: a thousand estimated tokens, a third of the window.
const LONG_A = "alpha ".repeat(500);
const LONG_B = "bravo ".repeat(500);
const SMALL_WINDOW = `
[context]
max_tokens = 3000
reserve_output_tokens = 200
safety_margin_tokens = 100

[compaction]
auto_percent = 60
keep_turns = 1
`;

const input = (index: number) => JSON.stringify(harness.provider.requests[index]!.body.input);

async function turn(client: ServerClient, prompt: string): Promise<ServerEvent[]> {
  const seen: ServerEvent[] = [];
  client.turn(prompt, `turn-${prompt}`);
  for (;;) {
    const event = await client.next();
    seen.push(event);
    if (["turn.completed", "turn.failed", "turn.cancelled"].includes(event.type)) return seen;
  }
}

async function twoLongTurns(script: FakeResponse[], toml = SMALL_WINDOW): Promise<ServerClient> {
  const client = await harness.startServer(
    [textResponse([LONG_A]), textResponse([LONG_B]), ...script],
    { toml, start: { no_tools: true } },
  );
  for (const prompt of ["first question", "second question"]) {
    const events = await turn(client, prompt);
    expect(events.map((event) => event.type)).not.toContain("session.compacted");
  }
  return client;
}

describe("automatic compaction", () => {
  it("summarises the older turns by the model, keeps the last one, and a resume sees the same", async () => {
    const client = await twoLongTurns([
      textResponse(["SUMMARY: the user asked a first question, answered at length with alphas."]),
      textResponse(["third answer"]),
      textResponse(["fourth answer"]),
    ]);
    const id = client.sessionId;
    const events = await turn(client, "third question");
    const compacted = events.find((event) => event.type === "session.compacted")!;
    expect(compacted).toMatchObject({
      request_id: "turn-third question",
      turn_id: expect.any(String),
      method: "model",
      removed_messages: 2,
    });
    expect(compacted.summary).toContain("SUMMARY: the user asked a first question");
    expect(compacted.before_tokens).toBeGreaterThan(compacted.after_tokens);
    expect(events.at(-1)!.type).toBe("turn.completed");

    // The summary request: the summary instructions, no tools, the older turn and the ask; not the kept turn.
    const summaryRequest = harness.provider.requests[2]!.body;
    expect(summaryRequest.instructions).toContain("You compact the conversation of a coding agent");
    expect(summaryRequest.tools).toBeUndefined();
    expect(input(2)).toContain("first question");
    expect(input(2)).toContain("alpha alpha");
    expect(input(2)).toContain("Summarise the conversation above");
    expect(input(2)).not.toContain("second question");
    // The turn's request: the summary, the kept turn word for word, the new prompt; the summarised answer is gone.
    expect(input(3)).toContain("[SCV compacted 2 earlier messages into this summary.]");
    expect(input(3)).toContain("SUMMARY: the user asked a first question");
    expect(input(3)).toContain("second question");
    expect(input(3)).toContain("bravo bravo");
    expect(input(3)).toContain("third question");
    expect(input(3)).not.toContain("alpha alpha");
    await client.finish();

    const again = spawnServer({ args: harness.flags(harness.provider.url), env: harness.env() });
    await again.initialize();
    again.send({ type: "session.resume", request_id: "resume", session_id: id, no_tools: true });
    await again.next("session.started");
    await again.next("queue.snapshot");
    again.sessionId = id;
    await turn(again, "fourth question");
    expect(input(4)).toContain("SUMMARY: the user asked a first question");
    expect(input(4)).toContain("third answer");
    expect(input(4)).not.toContain("alpha alpha");
    await again.finish();
  });

  it("falls back to the deterministic note when the summary request fails", async () => {
    const client = await twoLongTurns([
      { status: 400, body: { error: { message: "no summaries today", type: "invalid_request_error" } } },
      textResponse(["third answer"]),
    ]);
    const events = await turn(client, "third question");
    const compacted = events.find((event) => event.type === "session.compacted")!;
    expect(compacted).toMatchObject({ method: "note", removed_messages: 2 });
    expect(compacted.error).toContain("no summaries today");
    expect(compacted.summary).toContain("[SCV compacted 2 earlier messages. Bounded extracts follow.]");
    expect(events.at(-1)!.type).toBe("turn.completed");
    expect(input(3)).toContain("Bounded extracts follow");
    expect(input(3)).toContain("second question");
    await client.finish();
  });

  it("stays off with auto_percent = 0", async () => {
    const client = await twoLongTurns(
      [textResponse(["third answer"])],
      SMALL_WINDOW.replace("auto_percent = 60", "auto_percent = 0"),
    );
    const events = await turn(client, "third question");
    expect(events.map((event) => event.type)).not.toContain("session.compacted");
    expect(harness.provider.requests).toHaveLength(3);
    await client.finish();
  });
});

describe("session.compact", () => {
  it("compacts on request with a focus, and refuses when there is nothing to compact", async () => {
    const client = await harness.startServer(
      [textResponse(["one"]), textResponse(["two"]), textResponse(["SUMMARY focused"]), textResponse(["three"])],
      { toml: "[compaction]\nkeep_turns = 1\n", start: { no_tools: true } },
    );
    client.send({ type: "session.compact", request_id: "early", session_id: client.sessionId });
    expect(await client.next("error")).toMatchObject({ request_id: "early", code: "invalid_request" });
    await turn(client, "first question");
    await turn(client, "second question");
    client.send({
      type: "session.compact",
      request_id: "compact",
      session_id: client.sessionId,
      focus: "the parser bug",
    });
    const compacted = await client.next("session.compacted");
    expect(compacted).toMatchObject({ request_id: "compact", method: "model", removed_messages: 2 });
    expect(compacted.turn_id).toBeUndefined();
    expect(compacted.summary).toContain("(focus: the parser bug)");
    expect(input(2)).toContain("Pay particular attention to: the parser bug");
    await turn(client, "third question");
    expect(input(3)).toContain("SUMMARY focused");
    expect(input(3)).not.toContain('"first question"');
    await client.finish();
  });
});
