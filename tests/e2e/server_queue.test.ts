// Spec §11 items 11–13: the prompt queue, pause, cancel and clear, against the real CLI. A turn is held active
// deterministically by an approval wait (the fake provider asks for a `bash` call, which on-risk asks about).
import { describe, expect, it } from "vitest";
import { type FakeResponse, textResponse, toolCallResponse } from "../support/fake_provider.ts";
import type { ServerClient } from "../support/server_client.ts";
import { useServerHarness } from "../support/server_harness.ts";

// Protocol rules: the server runs in-process (tests/e2e/server_seeds and the others keep the process level).
const harness = useServerHarness(undefined, { inProcess: true });

const bashCall = (callId = "call_1", command = "echo hi; true") =>
  toolCallResponse([{ call_id: callId, name: "bash", arguments: { command } }]);

function startServer(script: FakeResponse[]): Promise<ServerClient> {
  return harness.startServer(script);
}

describe("queue (§6.3)", () => {
  it("queues behind an active turn, updates, moves, removes and dequeues in order", async () => {
    const client = await startServer([
      bashCall(),
      textResponse(["A done"]),
      textResponse(["C done"]),
      textResponse(["B done"]),
    ]);
    const sid = client.sessionId;
    client.turn("A", "ra");
    const started = await client.next("turn.started");
    const approval = await client.next("approval.requested");

    client.turn("B", "rb");
    const queuedB = await client.next();
    expect(queuedB).toMatchObject({ type: "queue.enqueued", request_id: "rb", session_id: sid, position: 0 });
    expect(queuedB.entry).toEqual({ queue_id: queuedB.entry.queue_id, revision: 1, prompt: "B", submitter: "rb" });
    expect(Object.keys(queuedB)).toEqual(["type", "request_id", "session_id", "seq", "entry", "position"]);
    client.turn("C", "rc");
    const queuedC = await client.next();
    expect(queuedC).toMatchObject({
      type: "queue.enqueued",
      position: 1,
      entry: { prompt: "C", revision: 1, submitter: "rc" },
    });
    const b = queuedB.entry.queue_id;
    const c = queuedC.entry.queue_id;

    client.send({ type: "queue.update", request_id: "u1", session_id: sid, queue_id: b, revision: 1, prompt: "B2" });
    expect(await client.next()).toMatchObject({
      type: "queue.updated",
      request_id: "u1",
      entry: { queue_id: b, revision: 2, prompt: "B2", submitter: "rb" },
    });
    client.send({ type: "queue.update", request_id: "u2", session_id: sid, queue_id: b, revision: 1, prompt: "stale" });
    expect(await client.next()).toEqual({
      type: "error",
      request_id: "u2",
      code: "queue_conflict",
      message: "queue entry was not found or revision is stale",
      fatal: false,
    });
    client.send({ type: "queue.update", request_id: "u3", session_id: sid, queue_id: b, revision: 2, prompt: " " });
    expect(await client.next()).toMatchObject({ request_id: "u3", code: "invalid_request" });

    client.send({
      type: "queue.move",
      request_id: "m1",
      session_id: sid,
      queue_id: c,
      revision: 1,
      before_queue_id: b,
    });
    const moved = await client.next();
    expect(moved).toMatchObject({ type: "queue.moved", request_id: "m1", queue_id: c, position: 0, revision: 2 });
    expect(Object.keys(moved)).toEqual(["type", "request_id", "session_id", "seq", "queue_id", "position", "revision"]);
    client.send({
      type: "queue.move",
      request_id: "m2",
      session_id: sid,
      queue_id: c,
      revision: 2,
      before_queue_id: c,
    });
    expect(await client.next()).toMatchObject({ type: "queue.moved", queue_id: c, position: 0, revision: 2 });
    client.send({
      type: "queue.move",
      request_id: "m3",
      session_id: sid,
      queue_id: "nope",
      revision: 1,
      before_queue_id: null,
    });
    expect(await client.next()).toMatchObject({
      request_id: "m3",
      code: "queue_not_found",
      message: "queue entry was not found or revision is stale",
    });
    client.send({
      type: "queue.move",
      request_id: "m4",
      session_id: sid,
      queue_id: c,
      revision: 2,
      before_queue_id: "nope",
    });
    expect(await client.next()).toMatchObject({ request_id: "m4", code: "queue_not_found" });
    client.send({ type: "queue.remove", request_id: "r0", session_id: sid, queue_id: b, revision: 1 });
    expect(await client.next()).toMatchObject({ request_id: "r0", code: "queue_conflict" });
    client.send({ type: "turn.start", request_id: "rd", session_id: sid, prompt: "D" });
    const queuedD = await client.next("queue.enqueued");
    expect(queuedD.position).toBe(2);
    client.send({
      type: "queue.remove",
      request_id: "r1",
      session_id: sid,
      queue_id: queuedD.entry.queue_id,
      revision: 1,
    });
    expect(await client.next()).toMatchObject({
      type: "queue.removed",
      request_id: "r1",
      queue_id: queuedD.entry.queue_id,
      revision: 1,
    });
    client.send({
      type: "queue.remove",
      request_id: "r2",
      session_id: sid,
      queue_id: queuedD.entry.queue_id,
      revision: 1,
    });
    expect(await client.next()).toMatchObject({ request_id: "r2", code: "queue_not_found" });

    // A ends → C (now the head) is dequeued under its submitter, then B.
    client.send({
      type: "approval.resolve",
      request_id: "ok",
      session_id: sid,
      approval_id: approval.approval_id,
      approved: false,
    });
    const completedA = await client.next("turn.completed");
    expect(completedA.turn_id).toBe(started.turn_id);
    const dequeued = await client.next();
    expect(dequeued).toMatchObject({ type: "queue.dequeued", request_id: "rc", queue_id: c });
    expect(Object.keys(dequeued)).toEqual(["type", "request_id", "session_id", "seq", "queue_id", "turn_id"]);
    const startedC = await client.next();
    expect(startedC).toMatchObject({ type: "turn.started", request_id: "rc", turn_id: dequeued.turn_id });
    const completedC = await client.next("turn.completed");
    expect(completedC).toMatchObject({ request_id: "rc", turn_id: dequeued.turn_id });
    expect(await client.next("queue.dequeued")).toMatchObject({ request_id: "rb", queue_id: b });
    expect(await client.next("turn.completed")).toMatchObject({ request_id: "rb" });
    // The dequeued turn's replay carries the updated prompt after A's and C's history.
    await client.finish();
    const replay = harness.provider.requests[3]!.body.input;
    expect(replay.at(-1)).toEqual({ role: "user", content: "B2" });
    expect(
      replay.filter((item: Record<string, unknown>) => item.role === "user").map((item: Record<string, unknown>) =>
        item.content
      ),
    ).toEqual(["A", "C", "B2"]);
  });

  it("refuses the 65th entry and more than 4194304 queued prompt bytes", async () => {
    const client = await startServer([bashCall()]);
    client.turn("A");
    await client.next("approval.requested");
    for (let index = 0; index < 64; index += 1) {
      client.turn(`prompt ${index}`, `q${index}`);
      expect((await client.next()).position).toBe(index);
    }
    client.turn("one too many", "q64");
    expect(await client.next()).toEqual({
      type: "error",
      request_id: "q64",
      code: "queue_limit",
      message: "session queue limit reached",
      fatal: false,
    });
    await client.finish();
  });

  it("refuses queued prompts beyond 4 MiB in total", async () => {
    const client = await startServer([bashCall()]);
    client.turn("A");
    await client.next("approval.requested");
    const big = "x".repeat(262_144);
    for (let index = 0; index < 15; index += 1) {
      client.turn(big, `q${index}`);
      expect((await client.next()).type).toBe("queue.enqueued");
    }
    client.turn(`${big.slice(0, 262_144 - 10)}`, "q15");
    const last = await client.next();
    expect(last.type).toBe("queue.enqueued");
    client.turn("0123456789a", "q16");
    expect(await client.next()).toMatchObject({ request_id: "q16", code: "queue_limit" });
    client.turn("0123456789", "q17");
    expect(await client.next()).toMatchObject({ type: "queue.enqueued", request_id: "q17" });
    await client.finish();
  });
});

describe("pause (§6.3)", () => {
  it("holds a paused queue and starts its head right after unpausing", async () => {
    const client = await startServer([bashCall(), textResponse(["A done"]), textResponse(["B done"])]);
    const sid = client.sessionId;
    client.turn("A", "ra");
    const approval = await client.next("approval.requested");
    client.send({ type: "session.pause", request_id: "p1", session_id: sid, paused: true });
    expect(await client.next()).toMatchObject({ type: "session.paused", request_id: "p1", paused: true });
    client.turn("B", "rb");
    const queued = await client.next("queue.enqueued");
    client.send({
      type: "approval.resolve",
      request_id: "ok",
      session_id: sid,
      approval_id: approval.approval_id,
      approved: false,
    });
    await client.next("turn.completed");
    // Still paused, B does not start: messages are handled in order, so a dequeue would come before this answer.
    client.send({ type: "session.pause", request_id: "p1b", session_id: sid, paused: true });
    expect(await client.next()).toMatchObject({ type: "session.paused", request_id: "p1b", paused: true });
    client.send({ type: "session.pause", request_id: "p2", session_id: sid, paused: false });
    expect(await client.next()).toMatchObject({ type: "session.paused", request_id: "p2", paused: false });
    expect(await client.next()).toMatchObject({
      type: "queue.dequeued",
      request_id: "rb",
      queue_id: queued.entry.queue_id,
    });
    expect(await client.next()).toMatchObject({ type: "turn.started", request_id: "rb" });
    expect(await client.next("turn.completed")).toMatchObject({ request_id: "rb" });
    // A clear keeps the pause flag and reports it in the snapshot.
    client.send({ type: "session.pause", request_id: "p3", session_id: sid, paused: true });
    await client.next("session.paused");
    client.send({ type: "session.clear", request_id: "cl", session_id: sid });
    expect(await client.next()).toMatchObject({ type: "session.cleared", request_id: "cl" });
    expect(await client.next()).toMatchObject({ type: "queue.snapshot", request_id: null, entries: [], paused: true });
    await client.finish();
  });
});

describe("cancel and clear (§6.7, §6.3)", () => {
  it("cancels an approval wait, restores the history, and gates clear on idleness", async () => {
    const client = await startServer([bashCall(), textResponse(["second"]), textResponse(["third"])]);
    const sid = client.sessionId;
    client.turn("forget me", "r1");
    const started = await client.next("turn.started");
    const approval = await client.next("approval.requested");
    client.send({ type: "session.clear", request_id: "busy", session_id: sid });
    expect(await client.next()).toEqual({
      type: "error",
      request_id: "busy",
      code: "turn_active",
      message: "cancel the active turn before clearing",
      fatal: false,
    });
    client.send({ type: "turn.cancel", request_id: "wrong", session_id: sid, turn_id: "not-the-turn" });
    expect(await client.next()).toMatchObject({
      request_id: "wrong",
      code: "turn_not_found",
      message: "active turn was not found",
    });
    client.send({ type: "turn.cancel", request_id: "c", session_id: sid, turn_id: started.turn_id });
    const cancelled = await client.next();
    expect(cancelled).toEqual({
      type: "turn.cancelled",
      request_id: "r1",
      session_id: sid,
      turn_id: started.turn_id,
      seq: cancelled.seq,
    });
    // The withdrawn approval can no longer be resolved.
    client.send({
      type: "approval.resolve",
      request_id: "late",
      session_id: sid,
      approval_id: approval.approval_id,
      approved: true,
    });
    expect(await client.next()).toMatchObject({ request_id: "late", code: "approval_not_found" });

    client.turn("remember me", "r2");
    await client.next("turn.completed");
    expect(harness.provider.requests[1]!.body.input).toEqual([{ role: "user", content: "remember me" }]);

    client.send({ type: "session.clear", request_id: "idle", session_id: sid });
    expect(await client.next()).toEqual({
      type: "session.cleared",
      request_id: "idle",
      session_id: sid,
      seq: expect.any(Number),
    });
    expect(await client.next()).toMatchObject({ type: "queue.snapshot", request_id: null, entries: [], paused: false });
    client.turn("after clear", "r3");
    await client.next("turn.completed");
    expect(harness.provider.requests[2]!.body.input).toEqual([{ role: "user", content: "after clear" }]);
    await client.finish();
  });

  it("cancels a provider stream that has not answered yet", async () => {
    const client = await startServer([
      textResponse(["never"], undefined, { headerDelayMs: 20_000 }),
      textResponse(["ok"]),
    ]);
    client.turn("slow", "r1");
    const started = await client.next("turn.started");
    await harness.provider.waitForRequests(1);
    client.send({ type: "turn.cancel", request_id: "c", session_id: client.sessionId, turn_id: started.turn_id });
    expect(await client.next(["turn.cancelled", "turn.failed", "turn.completed"])).toMatchObject({
      type: "turn.cancelled",
    });
    client.turn("fast", "r2");
    expect(await client.next(["turn.completed", "turn.failed"])).toMatchObject({
      type: "turn.completed",
      request_id: "r2",
    });
    expect(harness.provider.requests[1]!.body.input).toEqual([{ role: "user", content: "fast" }]);
    await client.finish();
  });
});
