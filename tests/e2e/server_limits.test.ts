// Spec §11 item 25 (usage and limits), §6.6 (context compaction, session trimming) and the §2 server frame limit
// for replies, against the real CLI.
import { describe, expect, it } from "vitest";
import { type FakeResponse, textResponse, toolCallResponse } from "../support/fake_provider.ts";
import type { ServerClient } from "../support/server_client.ts";
import { terminal, useServerHarness } from "../support/server_harness.ts";

// Protocol rules: the server runs in-process (tests/e2e/server_seeds and the others keep the process level).
const harness = useServerHarness(undefined, { inProcess: true });

function startServer(script: FakeResponse[], toml = "", fields: Record<string, unknown> = {}): Promise<ServerClient> {
  return harness.startServer(script, { toml, start: fields });
}

describe("usage (§8.1)", () => {
  it("sums usage over steps and reports {} when no step reported it", async () => {
    const client = await startServer([
      {
        events: [...toolCallResponse([{ call_id: "c1", name: "nope", arguments: {} }]).events.slice(0, -1), {
          type: "response.completed",
          response: { usage: { input_tokens: 5, output_tokens: 1 } },
        }],
      },
      textResponse(["done"], { input_tokens: 7, output_tokens: 3 }),
      textResponse(["plain"]),
    ]);
    client.turn("one");
    expect(await terminal(client)).toMatchObject({
      type: "turn.completed",
      steps: 2,
      usage: { input_tokens: 12, output_tokens: 4 },
    });
    client.turn("two");
    const second = await terminal(client);
    expect(second).toMatchObject({ type: "turn.completed", steps: 1 });
    expect(second.usage).toEqual({});
    await client.finish();
  });
});

describe("limits (§5.2)", () => {
  it("fails with response_limit when the assistant text exceeds its limit, restoring the history", async () => {
    const client = await startServer(
      [textResponse(["0123456789", "0123456789"]), textResponse(["fine"])],
      "[provider_limits]\nmax_assistant_bytes = 16\n",
    );
    client.turn("too long");
    const failed = await terminal(client);
    expect(failed).toMatchObject({
      type: "turn.failed",
      code: "response_limit",
      message: "assistant response exceeded byte limit",
    });
    expect(client.events.some((event) => event.type === "assistant.completed")).toBe(false);
    client.turn("short");
    expect((await terminal(client)).type).toBe("turn.completed");
    expect(harness.provider.requests[1]!.body.input).toEqual([{ role: "user", content: "short" }]);
    await client.finish();
  });

  it("fails with tool_limit on 33 calls and runs none of them", async () => {
    const calls = Array.from(
      { length: 33 },
      (_, index) => ({ call_id: `c${index}`, name: "bash", arguments: { command: "touch ran" } }),
    );
    const client = await startServer([toolCallResponse(calls)]);
    client.turn("many");
    expect(await terminal(client)).toMatchObject({
      type: "turn.failed",
      code: "tool_limit",
      message: "provider returned too many tool calls",
    });
    expect(client.events.some((event) => event.type === "tool.proposed")).toBe(false);
    await client.finish();
  });

  it("fails with step_limit after agent.max_steps and restores the checkpoint", async () => {
    const call = (id: string) => toolCallResponse([{ call_id: id, name: "nope", arguments: {} }]);
    const client = await startServer([call("c1"), call("c2"), textResponse(["after"])], "[agent]\nmax_steps = 2\n");
    client.turn("loop", "t1");
    expect(await terminal(client)).toMatchObject({
      type: "turn.failed",
      request_id: "t1",
      code: "step_limit",
      message: "agent reached 2 steps",
    });
    expect(client.events.filter((event) => event.type === "assistant.completed")).toHaveLength(2);
    client.turn("again", "t2");
    expect((await terminal(client)).type).toBe("turn.completed");
    expect(harness.provider.requests[2]!.body.input).toEqual([{ role: "user", content: "again" }]);
    await client.finish();
  });
});

describe("context budget (§6.6)", () => {
  const tightContext =
    "[context]\nmax_tokens = 2000\nreserve_output_tokens = 1\nsafety_margin_tokens = 1\nbytes_per_token = 1\n";

  it("compacts older groups into one note and keeps the newest", async () => {
    const client = await startServer([textResponse(["ok"]), textResponse(["ok2"])], tightContext, { no_tools: true });
    client.turn("a".repeat(900), "t1");
    expect((await terminal(client)).type).toBe("turn.completed");
    client.turn("b".repeat(900), "t2");
    const compacted = await client.next(["context.compacted", "turn.completed", "turn.failed"]);
    expect(compacted.type).toBe("context.compacted");
    expect(Object.keys(compacted)).toEqual([
      "type",
      "request_id",
      "session_id",
      "turn_id",
      "seq",
      "before_tokens",
      "after_tokens",
      "removed_messages",
    ]);
    expect(compacted.removed_messages).toBe(2);
    expect(compacted.before_tokens).toBeGreaterThan(compacted.after_tokens);
    const started = client.events.find((event) => event.type === "turn.started" && event.request_id === "t2")!;
    expect(compacted.seq).toBe(started.seq + 1);
    expect((await terminal(client)).type).toBe("turn.completed");
    const input = harness.provider.requests[1]!.body.input;
    expect(input).toHaveLength(2);
    expect(input[0].role).toBe("user");
    expect(input[0].content).toBe(
      `[SCV compacted 2 earlier messages. Bounded extracts follow.]\nuser: ${"a".repeat(240)}\nassistant: ok`,
    );
    expect(input[1]).toEqual({ role: "user", content: "b".repeat(900) });
    await client.finish();
  });

  it("fails with context_limit when the newest turn or the fixed part cannot fit", async () => {
    const client = await startServer([textResponse(["never"])], tightContext, { no_tools: true });
    client.turn("c".repeat(3000));
    expect(await terminal(client)).toMatchObject({
      type: "turn.failed",
      code: "context_limit",
      message: expect.stringMatching(
        /^newest turn exceeds context budget: .*; set context\.max_tokens to at least \d+ if the model's window/,
      ),
    });
    await client.finish();
    expect(harness.provider.requests).toHaveLength(0);
  });

  it("fails with context_limit when the system prompt and tool schemas exceed the budget", async () => {
    const client = await startServer(
      [textResponse(["never"])],
      tightContext.replace("max_tokens = 2000", "max_tokens = 600"),
    );
    client.turn("hi");
    expect(await terminal(client)).toMatchObject({
      type: "turn.failed",
      code: "context_limit",
      message: expect.stringMatching(
        /^system prompt and tool schemas exceed context budget: .*; set context\.max_tokens to at least \d+ if/,
      ),
    });
    await client.finish();
  });
});

describe("session history limits (§6.6)", () => {
  it("trims the oldest groups into a note, announced before turn.completed", async () => {
    const client = await startServer(
      [textResponse(["one"]), textResponse(["two"]), textResponse(["three"])],
      "[session]\nmax_messages = 3\n",
    );
    client.turn("first", "t1");
    expect((await terminal(client)).type).toBe("turn.completed");
    client.turn("second", "t2");
    const trimmed = await client.next(["session.trimmed", "turn.completed"]);
    expect(trimmed.type).toBe("session.trimmed");
    expect(Object.keys(trimmed)).toEqual([
      "type",
      "request_id",
      "session_id",
      "seq",
      "removed_messages",
      "history_bytes",
    ]);
    expect(trimmed).toMatchObject({ request_id: "t2", removed_messages: 2 });
    expect(trimmed.history_bytes).toBeGreaterThan(0);
    expect(await client.next()).toMatchObject({ type: "turn.completed", request_id: "t2" });
    client.turn("third", "t3");
    await terminal(client);
    const input = harness.provider.requests[2]!.body.input;
    expect(input.map((item: Record<string, unknown>) => item.content)).toEqual([
      "[SCV compacted 2 earlier messages. Bounded extracts follow.]\nuser: first\nassistant: one",
      "second",
      "two",
      "third",
    ]);
    await client.finish();
  });

  it("fails a turn that alone exceeds the history limit with history_limit", async () => {
    const client = await startServer(
      [
        toolCallResponse([{ call_id: "c1", name: "nope", arguments: {} }]),
        textResponse(["done"]),
        textResponse(["next"]),
      ],
      "[session]\nmax_messages = 3\n",
    );
    client.turn("big turn", "t1");
    expect(await terminal(client)).toMatchObject({
      type: "turn.failed",
      code: "history_limit",
      message: "active turn exceeds session history limit",
    });
    client.turn("small", "t2");
    expect((await terminal(client)).type).toBe("turn.completed");
    expect(harness.provider.requests[2]!.body.input).toEqual([{ role: "user", content: "small" }]);
    await client.finish();
  });
});

describe("server frame limit for replies (§2)", () => {
  // 131072 is the smallest round frame limit the §7.2 escaping rules allow once the tool limits are lowered.
  const smallFrames = [
    "[protocol]\nmax_server_frame_bytes = 131072",
    "[tools]\noutput_limit_bytes = 4096\nmax_read_bytes = 4096",
    "[skills]\nmax_skill_bytes = 8192",
    "[provider_limits]\nmax_assistant_bytes = 8192\nmax_tool_arguments_bytes = 8192",
    "",
  ].join("\n");

  it("refuses a request whose reply would exceed the limit, before changing any state", async () => {
    const client = await startServer([
      textResponse(["slow"], undefined, { headerDelayMs: 20_000 }),
      textResponse(["queued ran"]),
    ], smallFrames);
    expect(client.events.find((event) => event.type === "session.started")!.max_server_frame_bytes).toBe(131072);
    client.turn("first", "t1");
    const started = await client.next("turn.started");
    await harness.provider.waitForRequests(1);
    const tooBig = "x".repeat(140_000);

    // queue.enqueued would echo a 140 KB prompt: refused, nothing queued.
    client.turn(tooBig, "big");
    expect(await client.next()).toEqual({
      type: "error",
      request_id: "big",
      code: "invalid_request",
      message: "server event exceeds configured frame limit",
      fatal: false,
    });
    client.turn("second", "t2");
    const enqueued = await client.next("queue.enqueued");
    expect(enqueued).toMatchObject({ request_id: "t2", position: 0, entry: { revision: 1, prompt: "second" } });
    const queueId = enqueued.entry.queue_id;

    // queue.updated would echo it too: refused, the entry keeps its prompt and revision.
    client.send({
      type: "queue.update",
      request_id: "u1",
      session_id: client.sessionId,
      queue_id: queueId,
      revision: 1,
      prompt: tooBig,
    });
    expect(await client.next()).toMatchObject({
      type: "error",
      request_id: "u1",
      code: "invalid_request",
      message: "server event exceeds configured frame limit",
    });
    client.send({
      type: "queue.update",
      request_id: "u2",
      session_id: client.sessionId,
      queue_id: queueId,
      revision: 1,
      prompt: "second, edited",
    });
    expect(await client.next()).toMatchObject({
      type: "queue.updated",
      request_id: "u2",
      entry: { revision: 2, prompt: "second, edited" },
    });

    // A request id too large for any reply: refused without echoing it, and the pause never happens.
    client.send({ type: "session.pause", request_id: "r".repeat(140_000), session_id: client.sessionId, paused: true });
    expect(await client.next()).toEqual({
      type: "error",
      code: "invalid_request",
      message: "server event exceeds configured frame limit",
      fatal: false,
    });

    client.send({ type: "turn.cancel", request_id: "c", session_id: client.sessionId, turn_id: started.turn_id });
    expect(await terminal(client)).toMatchObject({ type: "turn.cancelled", request_id: "t1" });
    expect(await client.next("queue.dequeued")).toMatchObject({ request_id: "t2", queue_id: queueId });
    expect(await terminal(client)).toMatchObject({ type: "turn.completed", request_id: "t2" });
    expect(harness.provider.requests[1]!.body.input).toEqual([{ role: "user", content: "second, edited" }]);

    // Every frame written stayed within the limit, and seq has no gap.
    expect(Math.max(...client.lines.map((line) => Buffer.byteLength(line)))).toBeLessThanOrEqual(131072);
    const seqs = client.events.flatMap((event) => (typeof event.seq === "number" ? [event.seq] : []));
    expect(seqs).toEqual(seqs.map((_, index) => index + 1));
    await client.finish();
  });

  it("fails a turn with response_limit when one of its events would exceed the limit, writing nothing larger", async () => {
    const client = await startServer([textResponse(["y".repeat(2000)]), textResponse(["small"])], smallFrames);
    // Near the limit but accepted: turn.started and turn.failed fit, an assistant.delta with 2000 bytes does not.
    const requestId = "r".repeat(131072 - 1500);
    client.turn("hi", requestId);
    expect(await client.next("turn.started")).toMatchObject({ request_id: requestId });
    expect(await terminal(client)).toMatchObject({
      type: "turn.failed",
      request_id: requestId,
      code: "response_limit",
      message: "server event exceeds configured frame limit",
    });
    expect(client.events.some((event) => event.type === "assistant.delta" || event.type === "assistant.completed"))
      .toBe(false);
    client.turn("again", "t2");
    expect(await terminal(client)).toMatchObject({ type: "turn.completed", request_id: "t2" });
    expect(harness.provider.requests[1]!.body.input).toEqual([{ role: "user", content: "again" }]);
    expect(Math.max(...client.lines.map((line) => Buffer.byteLength(line)))).toBeLessThanOrEqual(131072);
    await client.finish();
  });
});
