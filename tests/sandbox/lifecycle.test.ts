// Cell lifecycle (host spec §6.2–§6.5): observers, yield timers, buffered results, terminate,
// session close, and store snapshots (§7.3).
import { describe, expect, it } from "vitest";
import { effectiveYieldMs } from "../../lib/sandbox/yield_time.ts";
import type { Observation } from "../../lib/sandbox/index.ts";
import { recorder, sleep, tool, until, useSandbox } from "./helpers.ts";

const box = useSandbox();
const texts = (observation: Observation): string[] =>
  observation.items.map((item) => (item.type === "input_text" ? item.text : item.type));

describe("yield timers", () => {
  it("compute the effective timeout with the grace and the session cap", () => {
    expect(effectiveYieldMs(9_999, null)).toBe(9_999);
    expect(effectiveYieldMs(10_000, null)).toBe(11_000);
    expect(effectiveYieldMs(null, undefined)).toBe(11_000);
    expect(effectiveYieldMs(30_000, null)).toBe(31_000);
    expect(effectiveYieldMs(9_999, 500)).toBe(500);
    expect(effectiveYieldMs(10_000, 10_500)).toBe(10_500);
    expect(effectiveYieldMs(10_000, 0)).toBe(0);
    expect(effectiveYieldMs(0, null)).toBe(0);
  });

  it("yield the items so far when the execute timer fires, and the cell keeps running", async () => {
    const session = box.session();
    const started = Date.now();
    const cell = box.start(session, "text('x'); await new Promise((r) => setTimeout(r, 300)); text('y')", {
      yieldTimeMs: 100,
    });
    const initial = await cell.initial;
    const elapsed = Date.now() - started;
    expect(initial).toEqual({ kind: "yielded", cellId: "1", items: [{ type: "input_text", text: "x" }] });
    expect(elapsed).toBeGreaterThanOrEqual(90);
    expect(elapsed).toBeLessThan(2_000);
    const outcome = await session.wait("1", 5_000);
    expect(outcome).toEqual({
      kind: "observation",
      observation: {
        kind: "result",
        cellId: "1",
        items: [{ type: "input_text", text: "y" }],
        errorText: null,
        bufferedForNs: 0,
      },
    });
    await cell.closed;
    await session.close();
  });

  it("0 yields [] at once; maxYieldTimeMs caps the requested time", async () => {
    const session = box.session({ maxYieldTimeMs: 60 });
    const zero = box.start(session, "text('late')", { yieldTimeMs: 0 });
    expect(await zero.initial).toEqual({ kind: "yielded", cellId: "1", items: [] });
    const started = Date.now();
    const capped = box.start(session, "await new Promise(() => {})", { yieldTimeMs: 9_999 });
    expect((await capped.initial).kind).toBe("yielded");
    expect(Date.now() - started).toBeLessThan(1_000);
    const waitStarted = Date.now();
    expect(await session.wait("2", 20_000)).toMatchObject({ kind: "observation", observation: { kind: "yielded" } });
    expect(Date.now() - waitStarted).toBeLessThan(1_000);
    await session.close();
  });

  it("a wait's timer starts at registration; new items alone do not end it", async () => {
    const session = box.session();
    await box.start(
      session,
      "yield_control(); for (let i = 0; i < 5; i++) { text(i); await new Promise((r) => setTimeout(r, 20)) } await new Promise(() => {})",
    ).initial;
    const started = Date.now();
    const outcome = await session.wait("1", 250);
    expect(Date.now() - started).toBeGreaterThanOrEqual(240);
    expect(outcome.kind === "observation" && texts(outcome.observation)).toEqual(["0", "1", "2", "3", "4"]);
    await session.close();
  });
});

describe("observers and deliveries", () => {
  it("yield_control delivers the items since the previous delivery; without an observer it does nothing", async () => {
    const session = box.session();
    // The cell goes on only once the test says so (tool answers), so that no timing decides the order.
    const releases: (() => void)[] = [];
    const rec = recorder(() => new Promise((resolve) => releases.push(() => resolve(1))));
    const cell = box.start(
      session,
      "text('a'); yield_control(); text('b'); yield_control(); text('c'); await tools.gate(); yield_control(); await tools.gate(); text('d')",
      { rec, tools: [tool("gate")] },
    );
    expect(texts(await cell.initial)).toEqual(["a"]);
    // The second yield_control() ran while nobody observed: 'b' and 'c' wait for the next delivery.
    expect(await until(() => releases.length === 1, 5_000)).toBe(true);
    const waiting = session.wait("1", 5_000);
    releases[0]!();
    const outcome = await waiting;
    expect(outcome).toMatchObject({ kind: "observation", observation: { kind: "yielded" } });
    expect(outcome.kind === "observation" && texts(outcome.observation)).toEqual(["b", "c"]);
    expect(await until(() => releases.length === 2, 5_000)).toBe(true);
    const lastWait = session.wait("1", 5_000);
    releases[1]!();
    const last = await lastWait;
    expect(last).toMatchObject({ kind: "observation", observation: { kind: "result", bufferedForNs: 0 } });
    expect(last.kind === "observation" && texts(last.observation)).toEqual(["d"]);
    await session.close();
  });

  it("buffers a result nobody observed, then reports it once with bufferedForNs > 0", async () => {
    const session = box.session();
    const cell = box.start(session, "text('a'); yield_control(); store('k', 'v'); text('b')");
    expect(texts(await cell.initial)).toEqual(["a"]);
    await sleep(30);
    // Committed on completion, while still buffered.
    expect(texts(await box.start(session, "text(load('k'))").initial)).toEqual(["v"]);
    const outcome = await session.wait("1", 5_000);
    expect(outcome).toMatchObject({
      kind: "observation",
      observation: { kind: "result", cellId: "1", errorText: null },
    });
    if (outcome.kind !== "observation" || outcome.observation.kind !== "result") throw new Error("expected a result");
    expect(outcome.observation.bufferedForNs).toBeGreaterThan(10_000_000);
    expect(texts(outcome.observation)).toEqual(["b"]);
    await cell.closed;
    expect(await session.wait("1", 100)).toEqual({ kind: "missing", errorText: "exec cell 1 not found" });
    expect(await session.terminate("1")).toEqual({ kind: "missing", errorText: "exec cell 1 not found" });
    expect(await session.wait("nope", 100)).toEqual({ kind: "missing", errorText: "exec cell nope not found" });
    await session.close();
  });

  it("allows a single observer; a cancelled wait frees the slot", async () => {
    const session = box.session();
    const cell = box.start(session, "await new Promise(() => {})", { yieldTimeMs: 5_000 });
    expect(await session.wait("1", 100)).toEqual({
      kind: "error",
      code: "observer_active",
      message: "exec cell 1 already has an active observer",
    });
    expect(session.yieldNow("1")).toBe(true);
    expect(await cell.initial).toEqual({ kind: "yielded", cellId: "1", items: [] });
    const controller = new AbortController();
    const first = session.wait("1", 10_000, controller.signal);
    expect(await session.wait("1", 100)).toEqual({
      kind: "error",
      code: "observer_active",
      message: "exec cell 1 already has an active observer",
    });
    controller.abort();
    expect(await first).toEqual({ kind: "error", code: "cancelled", message: "code-mode request cancelled" });
    const started = Date.now();
    const second = session.wait("1", 10_000);
    await sleep(10);
    expect(session.yieldNow("1")).toBe(true);
    expect(await second).toEqual({ kind: "observation", observation: { kind: "yielded", cellId: "1", items: [] } });
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(session.yieldNow("1")).toBe(false);
    expect(session.yieldNow("9")).toBe(false);
    await session.close();
  });

  it("numbers cells per session; a failed cell keeps its id", async () => {
    const a = box.session();
    const b = box.session();
    expect((await box.start(a, "throw new Error('boom')").initial).cellId).toBe("1");
    expect((await box.start(a, "text(1)").initial).cellId).toBe("2");
    expect((await box.start(b, "text(1)").initial).cellId).toBe("1");
    await Promise.all([a.close(), b.close()]);
  });
});

describe("terminate", () => {
  it("stops a cell before its initial response: both get Terminated, within 100 ms", { retry: 2 }, async () => {
    const session = box.session();
    const rec = recorder();
    const cell = box.start(session, "text('x'); notify('spinning'); while (true) {}", { yieldTimeMs: 10_000, rec });
    while (rec.notifications.length === 0) await sleep(5);
    const started = performance.now();
    const outcome = await session.terminate("1");
    expect(performance.now() - started).toBeLessThan(100);
    const expected = { kind: "terminated", cellId: "1", items: [{ type: "input_text", text: "x" }] };
    expect(outcome).toEqual({ kind: "observation", observation: expected });
    expect(await cell.initial).toEqual(expected);
    await cell.closed;
    expect(await session.terminate("1")).toEqual({ kind: "missing", errorText: "exec cell 1 not found" });
    expect(texts(await box.start(session, "text('next')").initial)).toEqual(["next"]);
    await session.close();
  });

  it("mid-yield: a second terminate is refused, a pending wait is terminated, tool calls are aborted, nothing is committed", async () => {
    const session = box.session();
    const rec = recorder(() => new Promise(() => {}));
    const cell = box.start(
      session,
      "store('k', 1); text('a'); tools.t({}); yield_control(); text('b'); await new Promise(() => {})",
      {
        rec,
        tools: [tool("t")],
      },
    );
    expect(texts(await cell.initial)).toEqual(["a"]);
    await sleep(20);
    const wait = session.wait("1", 10_000);
    const [first, second] = await Promise.all([session.terminate("1"), session.terminate("1")]);
    expect(first).toEqual({
      kind: "observation",
      observation: { kind: "terminated", cellId: "1", items: [{ type: "input_text", text: "b" }] },
    });
    expect(second).toEqual({
      kind: "error",
      code: "already_terminating",
      message: "exec cell 1 is already terminating",
    });
    expect(await wait).toEqual(first);
    expect(rec.aborted).toEqual(["tool-1"]);
    await cell.closed;
    expect(texts(await box.start(session, "text(String(load('k')))").initial)).toEqual(["undefined"]);
    await session.close();
  });

  it("after completion returns the buffered result", async () => {
    const session = box.session();
    const cell = box.start(
      session,
      "yield_control(); await new Promise((r) => setTimeout(r, 10)); text('done'); throw 'bare'",
    );
    expect(await cell.initial).toMatchObject({ kind: "yielded" });
    await sleep(50);
    const outcome = await session.terminate("1");
    expect(outcome).toMatchObject({ kind: "observation", observation: { kind: "result", errorText: "bare" } });
    if (outcome.kind === "observation" && outcome.observation.kind === "result") {
      expect(outcome.observation.bufferedForNs).toBeGreaterThan(0);
    }
    await cell.closed;
    await session.close();
  });

  it("while the result waits for a notification: terminated, nothing committed", async () => {
    const session = box.session();
    const rec = recorder();
    rec.callbacks.notify = () => new Promise(() => {});
    const cell = box.start(session, "store('n', 1); notify('hello'); text('x')", { rec, yieldTimeMs: 100 });
    expect(await cell.initial).toEqual({ kind: "yielded", cellId: "1", items: [{ type: "input_text", text: "x" }] });
    expect(await session.terminate("1")).toEqual({
      kind: "observation",
      observation: { kind: "terminated", cellId: "1", items: [] },
    });
    expect(texts(await box.start(session, "text(String(load('n')))").initial)).toEqual(["undefined"]);
    await session.close();
  });
});

describe("tool calls", () => {
  it("unanswered calls are aborted before the result is delivered", async () => {
    const rec = recorder((call) => (call.input === "fast" ? Promise.resolve("ok") : new Promise(() => {})));
    const session = box.session();
    const cell = box.start(session, "tools.t('slow'); text(await tools.t('fast'))", { rec, tools: [tool("t")] });
    const initial = await cell.initial;
    expect(rec.aborted).toEqual(["tool-1"]);
    expect(texts(initial)).toEqual(["ok"]);
    await session.close();
  });

  it("answers after completion are ignored", async () => {
    let release!: () => void;
    const rec = recorder(() => new Promise((resolve) => (release = () => resolve("late"))));
    const session = box.session();
    const cell = box.start(session, "tools.t('x').then((v) => text(v)); text('first')", { rec, tools: [tool("t")] });
    expect(texts(await cell.initial)).toEqual(["first"]);
    release();
    expect(texts(await box.start(session, "await new Promise((r) => setTimeout(r, 20)); text('second')").initial))
      .toEqual(["second"]);
    await session.close();
  });
});

describe("store snapshots", () => {
  it("a concurrent cell sees its own snapshot; commits merge per key, last commit wins", async () => {
    const session = box.session();
    await box.start(session, "store('a', 0); store('b', 0)").initial;
    // The slow cell commits after the fast one: it waits for a tool answer given once the fast one is done.
    let release!: () => void;
    const rec = recorder(() => new Promise((resolve) => (release = () => resolve(1))));
    const slow = box.start(session, "store('a', 'slow'); yield_control(); await tools.gate(); store('c', 'slow')", {
      rec,
      tools: [tool("gate")],
    });
    expect((await slow.initial).kind).toBe("yielded");
    const fast = await box.start(session, "text(load('a')); store('b', 'fast'); store('c', 'fast')").initial;
    expect(texts(fast)).toEqual(["0"]);
    expect(await until(() => rec.calls.length === 1, 5_000)).toBe(true);
    release();
    await session.wait(slow.id, 5_000);
    const after = await box.start(session, "text([load('a'), load('b'), load('c')].join())").initial;
    expect(texts(after)).toEqual(["slow,fast,slow"]);
    await session.close();
  });

  it("errors and exit() commit; termination and heap failures do not", async () => {
    const session = box.session();
    await box.start(session, "store('err', 1); throw new Error('x')").initial;
    await box.start(session, "store('exit', 1); exit(); store('after-exit', 1)").initial;
    const hanging = box.start(session, "store('term', 1); await new Promise(() => {})", { yieldTimeMs: 0 });
    await hanging.initial;
    await session.terminate(hanging.id);
    const seen = await box.start(
      session,
      "text(['err', 'exit', 'after-exit', 'term'].map((k) => String(load(k))).join())",
    ).initial;
    expect(texts(seen)).toEqual(["1,1,undefined,undefined"]);
    await session.close();
  });
});

describe("session close", () => {
  it("terminates pending and yielded cells, discards buffered results, and closes every cell", async () => {
    const session = box.session();
    const pending = box.start(session, "await new Promise(() => {})", { yieldTimeMs: 10_000 });
    const yielded = box.start(session, "yield_control(); await new Promise(() => {})");
    expect((await yielded.initial).kind).toBe("yielded");
    const wait = session.wait(yielded.id, 10_000);
    const buffered = box.start(session, "yield_control(); text('never seen')");
    await buffered.initial;
    await sleep(20);
    await session.close();
    expect(await pending.initial).toEqual({ kind: "terminated", cellId: "1", items: [] });
    expect(await wait).toEqual({ kind: "observation", observation: { kind: "terminated", cellId: "2", items: [] } });
    await Promise.all([pending.closed, yielded.closed, buffered.closed]);
    expect(await session.wait(buffered.id, 100)).toEqual({ kind: "missing", errorText: "exec cell 3 not found" });
  });
});
