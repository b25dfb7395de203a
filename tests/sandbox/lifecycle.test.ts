// Cell lifecycle (host spec §6.2–§6.5): observers, yield timers, buffered results, terminate,
// session close, and store snapshots (§7.3).
import { describe, expect, it, vi } from "vitest";
import { effectiveYieldMs } from "../../lib/sandbox/yield_time.ts";
import type { Observation, SandboxSession } from "../../lib/sandbox/index.ts";
import { HANG_MS, settle, waitFor } from "../support/wait.ts";
import { peek, recorder, tool, until, useFakeClock, useSandbox } from "./helpers.ts";

const box = useSandbox();
const texts = (observation: Observation): string[] =>
  observation.items.map((item) => (item.type === "input_text" ? item.text : item.type));

/** A tool whose calls wait until the test releases them, one by one. */
function gate() {
  const releases: (() => void)[] = [];
  const rec = recorder(() => new Promise((resolve) => releases.push(() => resolve(1))));
  return { rec, tools: [tool("gate")], release: (index: number) => releases[index]!() };
}

/** Waits until the cells of `session` that stored `key` have completed: store writes commit at completion. */
async function committed(session: SandboxSession, key: string): Promise<void> {
  const probe = `text(String(load(${JSON.stringify(key)}) === true))`;
  await waitFor(async () => texts(await box.start(session, probe).initial)[0] === "true", {
    what: `the cell storing ${key} to complete`,
  });
}

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
    useFakeClock();
    const session = box.session();
    const { rec, tools, release } = gate();
    const cell = box.start(session, "text('x'); await tools.gate(); text('y')", { yieldTimeMs: 100, rec, tools });
    const initial = peek(cell.initial);
    // The tool call comes after `x` on the same pipe: the cell has started and `x` is in.
    await waitFor(() => rec.calls.length === 1, { what: "the cell's tool call" });
    await vi.advanceTimersByTimeAsync(99);
    await settle();
    expect(initial.value).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    await settle();
    expect(initial.value).toEqual({ kind: "yielded", cellId: "1", items: [{ type: "input_text", text: "x" }] });
    vi.useRealTimers();
    release(0);
    const outcome = await session.wait("1", HANG_MS);
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
    useFakeClock();
    const session = box.session({ maxYieldTimeMs: 60 });
    const zero = box.start(session, "text('late')", { yieldTimeMs: 0 });
    expect(await zero.initial).toEqual({ kind: "yielded", cellId: "1", items: [] });
    const rec = recorder();
    const capped = box.start(session, "notify('started'); await new Promise(() => {})", { yieldTimeMs: 9_999, rec });
    await waitFor(() => rec.notifications.length === 1, { what: "the capped cell to start" });
    const initial = peek(capped.initial);
    await vi.advanceTimersByTimeAsync(59);
    await settle();
    expect(initial.value).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    await settle();
    expect(initial.value?.kind).toBe("yielded");
    const waited = peek(session.wait("2", 20_000));
    await vi.advanceTimersByTimeAsync(59);
    await settle();
    expect(waited.value).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    await settle();
    expect(waited.value).toMatchObject({ kind: "observation", observation: { kind: "yielded" } });
    await session.close();
  });

  it("a wait's timer starts at registration; new items alone do not end it", async () => {
    useFakeClock();
    const session = box.session();
    const { rec, tools, release } = gate();
    await box.start(
      session,
      "yield_control(); await tools.gate(); for (let i = 0; i < 5; i++) text(i); await tools.gate(); await new Promise(() => {})",
      { rec, tools },
    ).initial;
    const waited = peek(session.wait("1", 250));
    await waitFor(() => rec.calls.length === 1, { what: "the first tool call" });
    release(0);
    // The second call comes after the five items on the same pipe.
    await waitFor(() => rec.calls.length === 2, { what: "the items and the second tool call" });
    await vi.advanceTimersByTimeAsync(249);
    await settle();
    expect(waited.value).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    await settle();
    const outcome = waited.value!;
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
    expect(await until(() => releases.length === 1)).toBe(true);
    const waiting = session.wait("1", HANG_MS);
    releases[0]!();
    const outcome = await waiting;
    expect(outcome).toMatchObject({ kind: "observation", observation: { kind: "yielded" } });
    expect(outcome.kind === "observation" && texts(outcome.observation)).toEqual(["b", "c"]);
    expect(await until(() => releases.length === 2)).toBe(true);
    const lastWait = session.wait("1", HANG_MS);
    releases[1]!();
    const last = await lastWait;
    expect(last).toMatchObject({ kind: "observation", observation: { kind: "result", bufferedForNs: 0 } });
    expect(last.kind === "observation" && texts(last.observation)).toEqual(["d"]);
    await session.close();
  });

  it("buffers a result nobody observed, then reports it once with bufferedForNs > 0", async () => {
    useFakeClock();
    const session = box.session();
    const cell = box.start(session, "text('a'); yield_control(); store('k', 'v'); store('done', true); text('b')");
    expect(texts(await cell.initial)).toEqual(["a"]);
    await committed(session, "done");
    // Committed on completion, while still buffered.
    expect(texts(await box.start(session, "text(load('k'))").initial)).toEqual(["v"]);
    // bufferedForNs is read from the fake clock.
    await vi.advanceTimersByTimeAsync(30);
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
    // On the fake clock the wait's own timer never fires: only yieldNow can resolve it.
    useFakeClock();
    const second = session.wait("1", 10_000);
    await settle();
    expect(session.yieldNow("1")).toBe(true);
    expect(await second).toEqual({ kind: "observation", observation: { kind: "yielded", cellId: "1", items: [] } });
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
  // How fast a terminate stops a busy cell is measured by scripts/bench/latency.ts.
  it("stops a cell before its initial response: both get Terminated", async () => {
    const session = box.session();
    const rec = recorder();
    const cell = box.start(session, "text('x'); notify('spinning'); while (true) {}", { yieldTimeMs: HANG_MS, rec });
    await waitFor(() => rec.notifications.length > 0, { what: "the cell to start spinning" });
    const outcome = await session.terminate("1");
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
      "store('k', 1); text('a'); tools.t({}); yield_control(); text('b'); notify('b is out'); await new Promise(() => {})",
      {
        rec,
        tools: [tool("t")],
      },
    );
    expect(texts(await cell.initial)).toEqual(["a"]);
    await waitFor(() => rec.notifications.length === 1, { what: "the cell to write b" });
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
      "yield_control(); await new Promise((r) => setTimeout(r, 10)); store('done', true); text('done'); throw 'bare'",
    );
    expect(await cell.initial).toMatchObject({ kind: "yielded" });
    // An error commits the store too.
    await committed(session, "done");
    const outcome = await session.terminate("1");
    expect(outcome).toMatchObject({ kind: "observation", observation: { kind: "result", errorText: "bare" } });
    if (outcome.kind === "observation" && outcome.observation.kind === "result") {
      expect(outcome.observation.bufferedForNs).toBeGreaterThan(0);
    }
    await cell.closed;
    await session.close();
  });

  it("while the result waits for a notification: terminated, nothing committed", async () => {
    // The yield timer runs on a fake clock, moved once `x` is in (the notification comes after it on the pipe).
    useFakeClock();
    const session = box.session();
    const rec = recorder();
    let notified = false;
    rec.callbacks.notify = () => {
      notified = true;
      return new Promise(() => {});
    };
    const cell = box.start(session, "store('n', 1); text('x'); notify('hello')", { rec, yieldTimeMs: 100 });
    await waitFor(() => notified, { what: "the cell's notification" });
    await vi.advanceTimersByTimeAsync(100);
    vi.useRealTimers();
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
    expect(await until(() => rec.calls.length === 1)).toBe(true);
    release();
    await session.wait(slow.id, HANG_MS);
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
    const buffered = box.start(session, "yield_control(); store('buffered', true); text('never seen')");
    await buffered.initial;
    await committed(session, "buffered");
    await session.close();
    expect(await pending.initial).toEqual({ kind: "terminated", cellId: "1", items: [] });
    expect(await wait).toEqual({ kind: "observation", observation: { kind: "terminated", cellId: "2", items: [] } });
    await Promise.all([pending.closed, yielded.closed, buffered.closed]);
    expect(await session.wait(buffered.id, 100)).toEqual({ kind: "missing", errorText: "exec cell 3 not found" });
  });
});
