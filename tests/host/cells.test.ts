// Host spec §12 items 8, 10–18, 21 and 29–30, 32, 37: the cell lifecycle on the wire. In process
// (in_process.ts: the real stdio transport and connection, one real sandbox for the file); the
// stdin-EOF exit runs the real CLI.
import { afterAll, describe, expect, test } from "vitest";
import {
  execute,
  type Frame,
  hello,
  killAllHosts,
  open,
  shutdown,
  startHost,
  terminate,
  tool,
  toolResult,
  wait,
} from "../support/frame_client.ts";
import { HANG_MS, within } from "../support/wait.ts";
import { fileSandbox, logContains, readyInProcess, type TestHost } from "./in_process.ts";

const { sandbox, stop } = fileSandbox();
afterAll(async () => {
  killAllHosts();
  await stop();
});

const started = (id: number, cellId: string) => ({
  type: "operation/response",
  id,
  result: { status: "ok", value: { type: "execution/started", cellId } },
});
const closed = (sessionId: string, cellId: string) => ({ type: "cell/closed", sessionId, cellId });
const text = (value: string) => ({ type: "input_text", text: value });
const errResponse = (id: number, message: string) => ({
  type: "operation/response",
  id,
  result: { status: "error", message },
});

/** The runtime response inside an initial response or a wait/completed outcome. */
function runtime(frame: Frame): { kind: string; body: Frame; outer?: string } {
  const value = frame.result.value;
  if (frame.type === "execute/initialResponse") {
    const kind = Object.keys(value)[0]!;
    return { kind, body: value[kind] };
  }
  const outer = Object.keys(value.outcome)[0]!;
  const kind = Object.keys(value.outcome[outer])[0]!;
  return { kind, body: value.outcome[outer][kind], outer };
}

async function withSession(
  optional: string[] = [],
  env: Record<string, string> = {},
  extra: Record<string, unknown> = {},
) {
  const host = await readyInProcess(optional, { env, sandbox });
  host.send(open(1, "s1", extra));
  expect((await host.frames.next()).result.value.type).toBe("session/ready");
  return host;
}

/**
 * Frames are handled in order: once a session opened after `host`'s last frames is ready, the
 * requests sent before it have started (a wait has registered as its cell's observer).
 */
let barriers = 0;
async function barrier(host: TestHost): Promise<void> {
  const sessionId = `barrier-${++barriers}`;
  host.send(open(900_000 + barriers, sessionId));
  expect(await host.frames.next()).toMatchObject({
    id: 900_000 + barriers,
    result: { value: { type: "session/ready", sessionId } },
  });
}

/**
 * Waits until the cells of `sessionId` that `store(key, …)` completed: a result's store writes
 * commit at completion, even while the result stays buffered (host spec §7.3), and a new cell
 * sees what was committed when it starts. Each probe is a cell of its own, started after the others.
 */
async function committed(
  host: TestHost,
  sessionId: string,
  keys: string[],
  firstId: number,
): Promise<number> {
  const timeoutMs = HANG_MS;
  const deadline = Date.now() + timeoutMs;
  const probe = `text(${JSON.stringify(keys)}.every((k) => load(k) === true))`;
  for (let id = firstId;; id++) {
    host.send(execute(id, sessionId, probe));
    const frames = await host.frames.take(3);
    if (runtime(frames[1]).body.content_items[0].text === "true") return id + 1;
    if (Date.now() > deadline) throw new Error(`cells storing ${keys.join(", ")} did not complete in ${timeoutMs} ms`);
  }
}

function byType(frames: Frame[], type: string): Frame[] {
  return frames.filter((frame) => frame.type === type);
}

describe.concurrent("execute (§12.10)", () => {
  test("text(1) → started, Result, closed", async () => {
    const host = await withSession();
    host.send(execute(2, "s1", "text(1)"));
    const [first, initial, last] = await host.frames.take(3);
    expect(first).toEqual(started(2, "1"));
    expect(initial.type).toBe("execute/initialResponse");
    expect(initial.id).toBe(2);
    const { kind, body } = runtime(initial);
    expect(kind).toBe("Result");
    expect(Object.keys(body)).toEqual([
      "cell_id",
      "content_items",
      "error_text",
      "result_buffered_for_ns",
      "code_mode_host_duration_ns",
    ]);
    expect(body).toMatchObject({
      cell_id: "1",
      content_items: [text("1")],
      error_text: null,
      result_buffered_for_ns: 0,
    });
    expect(Number.isInteger(body.code_mode_host_duration_ns)).toBe(true);
    expect(body.code_mode_host_duration_ns).toBeGreaterThan(0);
    expect(last).toEqual(closed("s1", "1"));
    host.kill();
  });

  test("cell ids per session; failed cells keep theirs; rejected executes use none", async () => {
    const host = await withSession();
    host.send(execute(2, "s1", "throw 'boom'"));
    const frames = await host.frames.take(3);
    expect(runtime(frames[1]).body).toMatchObject({ cell_id: "1", content_items: [], error_text: "boom" });
    host.send(execute(3, "s1", "text(2)", { maxOutputTokens: -1 }));
    expect(await host.frames.next()).toEqual(
      errResponse(3, "invalid code-mode execute request: number too small to fit in target type"),
    );
    host.send(execute(4, "s1", "text(2)"));
    expect((await host.frames.take(3))[0]).toEqual(started(4, "2"));
    host.send(open(5, "s2"));
    await host.frames.next();
    host.send(execute(6, "s2", "text(3)"));
    expect((await host.frames.take(3))[0]).toEqual(started(6, "1"));
    host.kill();
  });

  test("an execute id stays active until its initial response (§12.8)", async () => {
    const host = await withSession();
    host.send(execute(2, "s1", "await new Promise(() => {})", { yieldTimeMs: 10 * HANG_MS }));
    expect(await host.frames.next()).toEqual(started(2, "1"));
    host.send(execute(2, "s1", "text(1)"));
    expect((await host.exit).code).toBe(1);
    expect(host.stderr()).toContain("duplicate code-mode request ID RequestId(2)");
  });
});

describe.concurrent("yield, wait, terminate (§12.11–14)", () => {
  test("a hanging cell yields at ~100 ms; double terminate; then MissingCell", async () => {
    const host = await withSession();
    // A warm worker first: the 100 ms timer must not race a worker boot on a loaded machine.
    host.send(execute(20, "s1", "text(0)"));
    await host.frames.take(3);
    const t0 = Date.now();
    host.send(execute(2, "s1", "text('x'); await new Promise(() => {})", { yieldTimeMs: 100 }));
    const [, yielded] = await host.frames.take(2);
    // Not before the timer (how precisely it fires: tests/sandbox/lifecycle.test.ts, on a fake clock).
    expect(Date.now() - t0).toBeGreaterThanOrEqual(90);
    // On a loaded machine `x` may arrive after the timer: then it comes with the Terminated below.
    expect(runtime(yielded)).toMatchObject({ kind: "Yielded", body: { cell_id: "2" } });
    const yieldedItems = runtime(yielded).body.content_items;
    expect(Object.keys(runtime(yielded).body)).toEqual(["cell_id", "content_items", "code_mode_host_duration_ns"]);
    host.sendBatch([terminate(3, "s1", "2"), terminate(4, "s1", "2")]);
    const frames = await host.frames.take(3);
    const three = frames.find((f) => f.id === 3);
    expect(runtime(three)).toMatchObject({ outer: "LiveCell", kind: "Terminated", body: { cell_id: "2" } });
    expect([...yieldedItems, ...runtime(three).body.content_items]).toEqual([text("x")]);
    expect(frames.find((f) => f.id === 4)).toEqual(errResponse(4, "exec cell 2 is already terminating"));
    expect(frames.indexOf(three)).toBeLessThan(frames.findIndex((f) => f.type === "cell/closed"));
    expect(byType(frames, "cell/closed")).toEqual([closed("s1", "2")]);
    host.send(wait(5, "s1", "2", 100));
    host.send(terminate(6, "s1", "2"));
    for (const frame of await host.frames.take(2)) {
      expect(runtime(frame)).toMatchObject({
        outer: "MissingCell",
        kind: "Result",
        body: { cell_id: "2", content_items: [], error_text: "exec cell 2 not found", result_buffered_for_ns: 0 },
      });
      expect(typeof runtime(frame).body.code_mode_host_duration_ns).toBe("number");
    }
    host.kill();
  });

  test("terminate before the initial response → Terminated twice, then closed", async () => {
    const host = await withSession();
    host.send(execute(2, "s1", "text('a'); while (true) {}", { yieldTimeMs: 10 * HANG_MS }));
    expect(await host.frames.next()).toEqual(started(2, "1"));
    host.send(terminate(3, "s1", "1"));
    const frames = await host.frames.take(3);
    const fromTerminate = runtime(frames.find((f) => f.id === 3 && f.type === "operation/response"));
    const fromExecute = runtime(frames.find((f) => f.type === "execute/initialResponse"));
    expect(fromTerminate).toMatchObject({ outer: "LiveCell", kind: "Terminated" });
    expect(fromExecute).toMatchObject({ kind: "Terminated", body: { cell_id: "1" } });
    expect(frames[2]).toEqual(closed("s1", "1"));
    host.kill();
  });

  test("a second observer is refused; cancelling a wait frees the slot", async () => {
    const host = await withSession();
    // The cell finishes only once the test answers its tool call, after the observers have had their turn.
    host.send(execute(2, "s1", "yield_control(); await tools.t(); text('done')", { tools: [tool("t")] }));
    const request = byType(await host.frames.take(3), "delegate/request")[0];
    host.send(wait(3, "s1", "1", 10 * HANG_MS));
    await barrier(host);
    host.send(wait(4, "s1", "1", 10 * HANG_MS));
    expect(await host.frames.next()).toEqual(errResponse(4, "exec cell 1 already has an active observer"));
    host.send({ type: "operation/cancel", id: 3 });
    expect(await host.frames.next()).toEqual(errResponse(3, "code-mode request cancelled"));
    host.send(wait(5, "s1", "1", 10 * HANG_MS));
    await barrier(host);
    host.send(toolResult(request.id, null));
    const [result, last] = await host.frames.take(2);
    expect(runtime(result)).toMatchObject({
      outer: "LiveCell",
      kind: "Result",
      body: { content_items: [text("done")] },
    });
    expect(last).toEqual(closed("s1", "1"));
    host.kill();
  });

  test("an unobserved completion is buffered for the next wait or terminate", async () => {
    const host = await withSession();
    host.send(
      execute(
        2,
        "s1",
        "yield_control(); await new Promise((r) => setTimeout(r, 50)); store('one', true); text('late')",
      ),
    );
    host.send(
      execute(
        3,
        "s1",
        "yield_control(); await new Promise((r) => setTimeout(r, 50)); store('two', true); text('later')",
      ),
    );
    await host.frames.take(4);
    await committed(host, "s1", ["one", "two"], 100);
    host.send(wait(4, "s1", "1", 10_000));
    const [waited, closedOne] = await host.frames.take(2);
    expect(runtime(waited)).toMatchObject({
      outer: "LiveCell",
      kind: "Result",
      body: { content_items: [text("late")] },
    });
    expect(runtime(waited).body.result_buffered_for_ns).toBeGreaterThan(0);
    expect(closedOne).toEqual(closed("s1", "1"));
    host.send(terminate(5, "s1", "2"));
    const [terminated, closedTwo] = await host.frames.take(2);
    expect(runtime(terminated)).toMatchObject({
      outer: "LiveCell",
      kind: "Result",
      body: { content_items: [text("later")] },
    });
    expect(runtime(terminated).body.result_buffered_for_ns).toBeGreaterThan(0);
    expect(closedTwo).toEqual(closed("s1", "2"));
    host.kill();
  });

  test("shutdown terminates a cell awaiting its initial response and a yielded one (§12.15)", async () => {
    const host = await withSession();
    host.send(execute(2, "s1", "yield_control(); await new Promise(() => {})"));
    await host.frames.take(2);
    host.send(execute(3, "s1", "await new Promise(() => {})", { yieldTimeMs: 10 * HANG_MS }));
    await host.frames.next();
    host.send(shutdown(4, "s1"));
    const frames = await host.frames.take(4);
    expect(frames[0].type).toBe("execute/initialResponse");
    expect(runtime(frames[0])).toMatchObject({ kind: "Terminated", body: { cell_id: "2" } });
    expect(frames.slice(1, 3).sort((a, b) => a.cellId.localeCompare(b.cellId))).toEqual([
      closed("s1", "1"),
      closed("s1", "2"),
    ]);
    expect(frames[3]).toEqual({
      type: "operation/response",
      id: 4,
      result: { status: "ok", value: { type: "session/closed", sessionId: "s1" } },
    });
    host.kill();
  });
});

describe.concurrent("yield timing and operation/yield (§12.16–17)", () => {
  test("maxYieldTimeMs 500 caps a longer request; 0 yields [] at once", async () => {
    const host = await readyInProcess([], { sandbox });
    host.send(open(1, "capped", { cellExecutionLimits: { maxYieldTimeMs: 500 } }));
    host.send(open(2, "zero", { cellExecutionLimits: { maxYieldTimeMs: 0 } }));
    await host.frames.take(2);
    // Requested: far past the hang deadline, so that only the caps can make these cells yield in time.
    const t0 = Date.now();
    host.send(execute(3, "capped", "text('a'); await new Promise(() => {})", { yieldTimeMs: 10 * HANG_MS }));
    const [, capped] = await host.frames.take(2);
    expect(runtime(capped).kind).toBe("Yielded");
    expect(Date.now() - t0).toBeGreaterThanOrEqual(450);
    host.send(execute(4, "zero", "await new Promise(() => {})", { yieldTimeMs: 10 * HANG_MS }));
    const [, zero] = await host.frames.take(2);
    expect(runtime(zero)).toMatchObject({ kind: "Yielded", body: { content_items: [] } });
    host.kill();
  });

  test("operation/yield resolves an execute and a pending wait at once; unknown ids are ignored", async () => {
    const host = await withSession();
    // Yield times far past the hang deadline: only operation/yield can end these in time.
    host.send(execute(2, "s1", "await new Promise(() => {})", { yieldTimeMs: 10 * HANG_MS }));
    expect(await host.frames.next()).toEqual(started(2, "1"));
    host.send({ type: "operation/yield", id: 2 });
    const yielded = await host.frames.next();
    expect(runtime(yielded)).toMatchObject({ kind: "Yielded", body: { content_items: [] } });
    host.send(wait(3, "s1", "1", 10 * HANG_MS));
    await barrier(host);
    host.send({ type: "operation/yield", id: 3 });
    expect(runtime(await host.frames.next())).toMatchObject({ outer: "LiveCell", kind: "Yielded" });
    host.send({ type: "operation/yield", id: 999 });
    host.send({ type: "operation/cancel", id: 998 });
    // Frames are handled in order: anything the two would answer comes before the barrier's own answer.
    await barrier(host);
    host.kill();
  });

  test("cancel after execution/started is ignored; the cell runs on", async () => {
    const host = await withSession();
    host.send(execute(2, "s1", "await new Promise((r) => setTimeout(r, 100)); text('ran')"));
    expect(await host.frames.next()).toEqual(started(2, "1"));
    host.send({ type: "operation/cancel", id: 2 });
    const initial = await host.frames.next();
    expect(runtime(initial)).toMatchObject({ kind: "Result", body: { content_items: [text("ran")] } });
    host.kill();
  });

  test.skipIf(!process.env.SCV_SLOW_TESTS)(
    "9,999 ms → 10 s; 10,000 ms → 11 s (slow)",
    async () => {
      const host = await withSession();
      const t0 = Date.now();
      host.send(execute(2, "s1", "await new Promise(() => {})", { yieldTimeMs: 9_999 }));
      host.send(execute(3, "s1", "await new Promise(() => {})", { yieldTimeMs: 10_000 }));
      // Lower bounds only (a busy machine makes timers late, never early); the exact yield times are unit-tested
      // (effectiveYieldMs in tests/sandbox/lifecycle.test.ts).
      const frames = await host.frames.take(2);
      const yieldedAt: Record<number, number> = {};
      for (let i = 0; i < 2; i++) yieldedAt[(await host.frames.next()).id] = Date.now() - t0;
      expect(frames.map((frame) => frame.id)).toEqual([2, 3]);
      expect(yieldedAt[2]).toBeGreaterThanOrEqual(9_900);
      expect(yieldedAt[3]).toBeGreaterThanOrEqual(10_900);
      host.kill();
    },
  );
});

describe.concurrent("tool catalog revisions (§12.18)", () => {
  const a = tool("a");
  const b = tool("b");
  const names = "text(Object.keys(tools).join(','))";

  async function run(host: TestHost, id: number, options: Parameters<typeof execute>[3]): Promise<Frame> {
    host.send(execute(id, "s1", names, options));
    const first = await host.frames.next();
    if (first.result?.status === "error") return first;
    const [initial] = await host.frames.take(2);
    return initial;
  }

  test("every row of §6.6", async () => {
    const host = await withSession(["tool-catalog-revision-v1"]);
    const items = (frame: Frame) => runtime(frame).body.content_items[0].text;
    // Absent revision: used as sent, cache untouched.
    expect(items(await run(host, 2, { tools: [a] }))).toBe("a");
    expect(await run(host, 3, { tools: [], catalogRevision: 1 })).toEqual(
      errResponse(3, "unknown code-mode catalog revision"),
    );
    expect(await run(host, 4, { tools: [a], catalogRevision: 0 })).toEqual(
      errResponse(4, "invalid code-mode catalog revision"),
    );
    // Cache (2, [a]), then reuse it with [].
    expect(items(await run(host, 5, { tools: [a], catalogRevision: 2 }))).toBe("a");
    expect(items(await run(host, 6, { tools: [], catalogRevision: 2 }))).toBe("a");
    // Same revision, different list (even only a description) → conflict.
    expect(await run(host, 7, { tools: [{ ...(a as object), description: "changed" }], catalogRevision: 2 })).toEqual(
      errResponse(7, "conflicting code-mode catalog revision"),
    );
    expect(items(await run(host, 8, { tools: [a], catalogRevision: 2 }))).toBe("a");
    // Lower revision: used, cache untouched.
    expect(items(await run(host, 9, { tools: [b], catalogRevision: 1 }))).toBe("b");
    expect(items(await run(host, 10, { tools: [], catalogRevision: 2 }))).toBe("a");
    expect(await run(host, 11, { tools: [], catalogRevision: 1 })).toEqual(
      errResponse(11, "unknown code-mode catalog revision"),
    );
    // Higher revision replaces the cache.
    expect(items(await run(host, 12, { tools: [a, b], catalogRevision: 3 }))).toBe("a,b");
    expect(items(await run(host, 13, { tools: [], catalogRevision: 3 }))).toBe("a,b");
    expect(await run(host, 14, { tools: [], catalogRevision: 2 })).toEqual(
      errResponse(14, "unknown code-mode catalog revision"),
    );
    // Catalogs are per session.
    host.send(open(15, "s2"));
    await host.frames.next();
    host.send(execute(16, "s2", names, { tools: [], catalogRevision: 3 }));
    expect(await host.frames.next()).toEqual(errResponse(16, "unknown code-mode catalog revision"));
    host.kill();
  });
});

describe.concurrent("oversize output (§12.21)", () => {
  test("a 70 MiB text → initial error, closed, connection lives", async () => {
    const host = await withSession();
    // Moving 70 MiB takes seconds on a busy machine: no yield may cut it short.
    host.send(execute(2, "s1", "text('x'.repeat(70*1024*1024))", { yieldTimeMs: 10 * HANG_MS }));
    const [, initial, last] = await host.frames.take(3, HANG_MS);
    expect(initial.type).toBe("execute/initialResponse");
    expect(initial.result.status).toBe("error");
    expect(initial.result.message).toMatch(
      /^code-mode initial response exceeds the IPC frame limit: code-mode IPC frame length \d+ exceeds 67108864 bytes$/,
    );
    expect(last).toEqual(closed("s1", "1"));
    host.send(execute(3, "s1", "text('small')"));
    expect(runtime((await host.frames.take(2))[1]).body.content_items).toEqual([text("small")]);
    host.kill();
  }, HANG_MS + 10_000);

  test("a 70 MiB tool input rejects the call inside the cell", async () => {
    const host = await withSession();
    host.send(
      execute(2, "s1", "try { await tools.t('x'.repeat(70*1024*1024)) } catch (e) { text(e) }", {
        tools: [tool("t")],
        yieldTimeMs: HANG_MS,
      }),
    );
    const [, initial] = await host.frames.take(2, HANG_MS);
    expect(runtime(initial).body.content_items[0].text).toMatch(
      /^code-mode IPC frame length \d+ exceeds 67108864 bytes$/,
    );
    host.kill();
  }, HANG_MS + 10_000);
});

describe.concurrent("delegates (§12.27–30)", () => {
  test("tool inputs, freeform kinds, runtime ids per cell and rising delegate ids", async () => {
    const host = await withSession();
    const tools = [tool("t"), {
      ...(tool("f") as object),
      kind: "freeform",
      tool_name: { name: "f", namespace: "mcp__srv__" },
    }];
    host.send(
      execute(
        2,
        "s1",
        "for (const v of [[], [undefined], ['str'], [5], [null], [{a: undefined}]]) text(JSON.stringify(await tools.t(...v)));",
        { tools },
      ),
    );
    expect(await host.frames.next()).toEqual(started(2, "1"));
    const inputs: unknown[] = [];
    for (let i = 0; i < 6; i++) {
      const request = await host.frames.next();
      expect(request).toMatchObject({ type: "delegate/request", id: i + 1, sessionId: "s1" });
      expect(request.request.invocation).toMatchObject({
        cell_id: "1",
        runtime_tool_call_id: `tool-${i + 1}`,
        tool_name: { name: "t", namespace: null },
        tool_kind: "function",
      });
      inputs.push(request.request.invocation.input);
      host.send(toolResult(request.id, { n: i }));
    }
    expect(inputs).toEqual([null, null, "str", 5, null, {}]);
    await host.frames.take(2);
    host.send(execute(3, "s1", "text(await tools.f('raw text'))", { tools }));
    await host.frames.next();
    const request = await host.frames.next();
    expect(request.id).toBe(7);
    expect(Object.keys(request.request.invocation)).toEqual([
      "cell_id",
      "runtime_tool_call_id",
      "tool_name",
      "tool_kind",
      "input",
    ]);
    expect(request.request.invocation).toEqual({
      cell_id: "2",
      runtime_tool_call_id: "tool-1",
      tool_name: { name: "f", namespace: "mcp__srv__" },
      tool_kind: "freeform",
      input: "raw text",
    });
    host.send({ type: "delegate/response", id: 7, result: { status: "error", message: "nope" } });
    const initial = await host.frames.next();
    expect(runtime(initial).body.error_text).toBe("nope");
    // Answers for unknown or answered ids are ignored.
    host.send(toolResult(7, 1));
    host.send(toolResult(12345, 1));
    await host.frames.next();
    // Frames are handled in order: anything the two answers caused comes before the barrier's own answer.
    await barrier(host);
    host.kill();
  });

  test("notification/delivered for a tool call rejects inside the cell", async () => {
    const host = await withSession();
    host.send(
      execute(2, "s1", "try { await tools.t() } catch (e) { text(typeof e + ':' + e) }", { tools: [tool("t")] }),
    );
    const [, request] = await host.frames.take(2);
    host.send({
      type: "delegate/response",
      id: request.id,
      result: { status: "ok", value: { type: "notification/delivered" } },
    });
    const initial = await host.frames.next();
    expect(runtime(initial).body.content_items).toEqual([
      text("string:code-mode client returned an invalid tool result"),
    ]);
    host.kill();
  });

  test("notify sends notification/send and the result waits for delivery", async () => {
    const host = await withSession();
    host.send(execute(2, "s1", "notify({a:1}); text('after')", { toolCallId: "call_exec_yield" }));
    const [, notification] = await host.frames.take(2);
    expect(notification).toEqual({
      type: "delegate/request",
      id: 1,
      sessionId: "s1",
      request: { type: "notification/send", callId: "call_exec_yield", cellId: "1", text: '{"a":1}' },
    });
    await host.frames.expectNothing(150);
    host.send({
      type: "delegate/response",
      id: 1,
      result: { status: "ok", value: { type: "notification/delivered" } },
    });
    expect(runtime(await host.frames.next()).body.content_items).toEqual([text("after")]);
    // An invalid answer is only logged; the cell still completes.
    expect(await host.frames.next()).toEqual(closed("s1", "1"));
    host.send(execute(3, "s1", "notify('x'); text('y')"));
    const [, second] = await host.frames.take(2);
    host.send(toolResult(second.id, null));
    expect(runtime((await host.frames.take(1))[0]).body.content_items).toEqual([text("y")]);
    expect(
      await logContains(
        host,
        "failed to deliver code mode notification: code-mode client returned an invalid notification result",
      ),
    ).toBe(true);
    host.kill();
  });

  test("an unawaited tool call is cancelled before the result; a terminate cancels too", async () => {
    const host = await withSession();
    host.send(
      execute(2, "s1", "tools.t(1); await new Promise((r) => setTimeout(r, 50)); text('done')", { tools: [tool("t")] }),
    );
    const frames = await host.frames.take(5);
    expect(frames.map((f) => f.type)).toEqual([
      "operation/response",
      "delegate/request",
      "delegate/cancel",
      "execute/initialResponse",
      "cell/closed",
    ]);
    expect(frames[2]).toEqual({ type: "delegate/cancel", id: frames[1].id });
    host.send(execute(3, "s1", "await tools.t(2)", { tools: [tool("t")], yieldTimeMs: 10 * HANG_MS }));
    const [, request] = await host.frames.take(2);
    host.send(terminate(4, "s1", "2"));
    const after = await host.frames.take(4);
    expect(after[0]).toEqual({ type: "delegate/cancel", id: request.id });
    expect(after.slice(1, 3).map((f) => runtime(f).kind)).toEqual(["Terminated", "Terminated"]);
    expect(after[3]).toEqual(closed("s1", "2"));
    host.kill();
  });

  for (
    const [capability, cap] of [
      [[], 1024],
      [["delegate-capacity-4096"], 4096],
    ] as const
  ) {
    test(`the pending delegate cap is ${cap}`, async () => {
      const host = await withSession([...capability]);
      // The over-cap calls reject at once; the cell yields only after they have, so every call has been made
      // before the test answers (a starved sandbox could otherwise send its last calls after the first answers).
      const source = `const calls = Array.from({ length: ${cap + 5} }, (_, i) => tools.t(i));
        await Promise.allSettled(calls.slice(${cap}));
        yield_control();
        const results = await Promise.allSettled(calls);
        const rejected = results.filter((r) => r.status === 'rejected');
        text(rejected.length + ':' + rejected[0].reason);`;
      host.send(execute(2, "s1", source, { tools: [tool("t")], yieldTimeMs: 10 * HANG_MS }));
      const frames = await host.frames.take(cap + 2, 20_000);
      expect(byType(frames, "delegate/request").length).toBe(cap);
      expect(runtime(frames.at(-1)!).kind).toBe("Yielded");
      for (const frame of byType(frames, "delegate/request")) host.send(toolResult(frame.id, 0));
      host.send(wait(3, "s1", "1", 10 * HANG_MS));
      const final = await host.frames.next(20_000);
      expect(runtime(final)).toMatchObject({
        kind: "Result",
        body: { content_items: [text("5:code-mode host has too many pending delegate calls")] },
      });
      host.kill();
    });
  }
});

describe.concurrent("heap limit and shutdown (§12.32, §12.37)", () => {
  test("a cell over maxHeapSizeBytes fails with the heap text; the next cell runs", async () => {
    const host = await readyInProcess([], { sandbox });
    host.send(open(1, "s1", { cellExecutionLimits: { maxHeapSizeBytes: 16777216 } }));
    await host.frames.next();
    host.send(execute(2, "s1", "const a = []; for (let i = 0; i < 3e6; i++) a.push({ i }); text(a.length)"));
    const [, initial, last] = await host.frames.take(3, 15_000);
    expect(runtime(initial).body.error_text).toBe("exec cell heap limit exceeded (maxHeapSizeBytes: 16777216)");
    expect(last).toEqual(closed("s1", "1"));
    host.send(execute(3, "s1", "text('next')"));
    expect(runtime((await host.frames.take(2, 15_000))[1]).body.content_items).toEqual([text("next")]);
    host.kill();
  });

  test("stdin EOF with a hanging cell, a pending tool call and an unanswered notify → exit 0 without them", async () => {
    const host = startHost();
    host.send(hello());
    host.send(open(1, "s1"));
    host.send(execute(2, "s1", "while (true) {}", { yieldTimeMs: 10 * HANG_MS }));
    host.send(execute(3, "s1", "await tools.t()", { tools: [tool("t")], yieldTimeMs: 10 * HANG_MS }));
    host.send(execute(4, "s1", "notify('n')", { yieldTimeMs: 10 * HANG_MS }));
    // Both delegate requests (the tool call and the notification) are out before EOF.
    await host.frames.until(() => byType(host.frames.received, "delegate/request").length === 2);
    expect(byType(host.frames.received, "delegate/request").map((f) => f.request.type).sort()).toEqual([
      "notification/send",
      "tool/invoke",
    ]);
    const before = host.frames.received.length;
    host.closeStdin();
    // Waiting for the cells would never end (a busy loop, a tool call and a notification nobody answers).
    const exit = await within(host.exit, "the host to exit");
    expect(exit.code).toBe(0);
    // Found by scripts/conformance: like the reference, nothing more is sent after EOF.
    expect(host.frames.received.length).toBe(before);
  });
});
