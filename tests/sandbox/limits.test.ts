// Limits that hold (issue point 4): runaway cells end as specified, and the process and other cells keep
// working. How fast a terminate stops a runaway cell is measured by scripts/bench/latency.ts, not here.
import { describe, expect, it } from "vitest";
import { cellProcessId } from "../../lib/sandbox/session.ts";
import type { SandboxSession } from "../../lib/sandbox/index.ts";
import { HANG_MS, waitFor } from "../support/wait.ts";
import { recorder, tool, useSandbox } from "./helpers.ts";

const MAX_OUTPUT_CHARS = 1_000_000;
const box = useSandbox({ maxOutputChars: MAX_OUTPUT_CHARS, defaultHeapMb: 64 });

async function stillWorks(session: SandboxSession): Promise<void> {
  const observation = await box.start(session, "text(await Promise.resolve('alive'))").initial;
  expect(observation).toMatchObject({
    kind: "result",
    items: [{ type: "input_text", text: "alive" }],
    errorText: null,
  });
}

async function terminateRunaway(source: string): Promise<void> {
  const session = box.session();
  // The neighbour finishes only once the runaway cell is gone, so it is in flight during the terminate.
  let release!: () => void;
  const rec = recorder(() => new Promise((resolve) => (release = () => resolve("go"))));
  const neighbour = box.start(session, "await tools.gate(); text('neighbour')", {
    yieldTimeMs: HANG_MS,
    rec,
    tools: [tool("gate")],
  });
  const cell = box.start(session, source, { yieldTimeMs: 100 });
  expect(await cell.initial).toMatchObject({ kind: "yielded", cellId: "2" });
  await waitFor(() => rec.calls.length === 1, { what: "the neighbour's tool call" });
  const outcome = await session.terminate("2");
  expect(outcome).toMatchObject({ kind: "observation", observation: { kind: "terminated", cellId: "2" } });
  await cell.closed;
  release();
  expect(await neighbour.initial).toMatchObject({ kind: "result", items: [{ type: "input_text", text: "neighbour" }] });
  await stillWorks(session);
  await session.close();
}

describe("runaway cells", () => {
  it("a busy loop yields and is terminated", async () => {
    await terminateRunaway("text('spinning'); while (true) {}");
  });

  it("an infinite microtask chain is terminated", async () => {
    await terminateRunaway("await (async function spin() { for (;;) await null })()");
  });

  it("a cell that never settles yields and is terminated", async () => {
    await terminateRunaway("await new Promise(() => {})");
  });

  it("a worker still busy after its cell finished is replaced; later cells run", async () => {
    const session = box.session();
    expect(await box.start(session, "text('a'); try { exit() } catch { while (true) {} }").initial).toMatchObject({
      kind: "result",
      items: [{ type: "input_text", text: "a" }],
      errorText: null,
    });
    expect(await box.start(session, "const f = () => Promise.resolve().then(f); f(); text('b')").initial).toMatchObject(
      {
        kind: "result",
        items: [{ type: "input_text", text: "b" }],
      },
    );
    expect(await box.start(session, "text('c'); try { exit() } catch { for (;;) {} }").initial).toMatchObject({
      kind: "result",
    });
    // The next cell may be queued behind a stuck worker: it is restarted on another one (a hang if not).
    const next = await box.start(session, "text('d')").initial;
    expect(next).toMatchObject({ kind: "result", items: [{ type: "input_text", text: "d" }], errorText: null });
    for (let i = 0; i < 3; i++) await stillWorks(session);
    await session.close();
  });
});

describe("memory", () => {
  it("a cell over maxHeapSizeBytes fails with the heap-limit text and commits nothing", async () => {
    const session = box.session({ maxHeapSizeBytes: 16 * 1024 * 1024 });
    await box.start(session, "store('before', 1)").initial;
    const bomb = box.start(
      session,
      "store('bomb', 1); text('allocating'); const a = []; for (let i = 0; i < 3e6; i++) a.push({ i }); text(a.length)",
      {
        yieldTimeMs: 20_000,
      },
    );
    expect(await bomb.initial).toEqual({
      kind: "result",
      cellId: "2",
      items: [{ type: "input_text", text: "allocating" }],
      errorText: "exec cell heap limit exceeded (maxHeapSizeBytes: 16777216)",
      bufferedForNs: 0,
    });
    await bomb.closed;
    const after = await box.start(session, "text([load('before'), load('bomb')].map(String).join())").initial;
    expect(after).toMatchObject({ kind: "result", items: [{ type: "input_text", text: "1,undefined" }] });
    await session.close();
  });

  it("a memory bomb in a session without a limit hits the default heap limit", async () => {
    const session = box.session();
    const bomb = await box.start(session, "const a = []; while (true) a.push(new Array(1e5).fill(1.5))", {
      yieldTimeMs: 20_000,
    }).initial;
    expect(bomb).toMatchObject({
      kind: "result",
      errorText: `exec cell heap limit exceeded (maxHeapSizeBytes: ${64 * 1024 * 1024})`,
    });
    await stillWorks(session);
    await session.close();
  });
});

describe("output and timers", () => {
  it("a huge text() output ends the cell with an error", async () => {
    const session = box.session();
    const observation = await box.start(session, "for (;;) text('x'.repeat(100_000))").initial;
    expect(observation).toMatchObject({
      kind: "result",
      errorText: `exec cell output exceeded ${MAX_OUTPUT_CHARS} characters`,
    });
    // Each message is charged 256 characters on top of its text.
    expect(observation.items.length).toBe(Math.floor(MAX_OUTPUT_CHARS / 100_256));
    const images = await box.start(session, "for (;;) image('data:' + 'x'.repeat(99_995))").initial;
    expect(images).toMatchObject({
      kind: "result",
      errorText: `exec cell output exceeded ${MAX_OUTPUT_CHARS} characters`,
    });
    expect(images.items.length).toBe(Math.floor(MAX_OUTPUT_CHARS / 100_256));
    for (const flood of ["for (;;) text('')", "for (;;) notify('n')"]) {
      const ended = await box.start(session, flood).initial;
      expect(ended, flood).toMatchObject({
        kind: "result",
        errorText: `exec cell output exceeded ${MAX_OUTPUT_CHARS} characters`,
      });
    }
    const yielding = box.start(session, "for (;;) yield_control()");
    expect(await yielding.initial).toMatchObject({ kind: "yielded" });
    // Poll with zero-time waits until the flood ended the cell.
    const outcome = await waitFor(async () => {
      const seen = await session.wait(yielding.id, 0);
      return seen.kind === "observation" && seen.observation.kind === "yielded" ? undefined : seen;
    }, { what: "the yield flood to end the cell" });
    expect(outcome).toMatchObject({
      kind: "observation",
      observation: { kind: "result", errorText: `exec cell output exceeded ${MAX_OUTPUT_CHARS} characters` },
    });
    await stillWorks(session);
    await session.close();
  });

  it("a synchronous flood of tool calls stops at 4,096 unanswered calls", async () => {
    const session = box.session();
    const rec = recorder(() => new Promise(() => {}));
    const observation = await box.start(
      session,
      "const calls = []; for (let i = 0; i < 5000; i++) calls.push(tools.t(i));" +
        "const settled = await Promise.race([Promise.allSettled(calls.slice(4096)), new Promise((r) => setTimeout(r, 1000))]);" +
        "text(settled.length); text(settled[0].reason)",
      { rec, tools: [tool("t")] },
    ).initial;
    expect(observation).toMatchObject({
      kind: "result",
      items: [
        { type: "input_text", text: "904" },
        { type: "input_text", text: "code-mode host has too many pending delegate calls" },
      ],
    });
    expect(rec.calls.length).toBe(4096);
    expect(rec.aborted.length).toBe(4096);
    await session.close();
  });

  it("10,000 pending timers neither delay completion nor leak into the next cell", async () => {
    const session = box.session();
    const observation = await box.start(
      session,
      "for (let i = 0; i < 10_000; i++) setTimeout(() => text('late'), 50); text('done')",
    ).initial;
    // Completion waited for no timer: none of them wrote into the result.
    expect(observation).toMatchObject({ kind: "result", items: [{ type: "input_text", text: "done" }] });
    // The next cell outlives the first cell's timers (it waits 50 ms after they were set): none fires into it.
    const fired = await box.start(
      session,
      "let n = 0; for (let i = 0; i < 10_000; i++) setTimeout(() => n++, 1); await new Promise((r) => setTimeout(r, 50)); text(n)",
    ).initial;
    expect(fired).toMatchObject({ kind: "result", items: [{ type: "input_text", text: "10000" }] });
    await stillWorks(session);
    await session.close();
  });

  it("a sandbox process killed from outside ends its cell with the spec's text", async () => {
    const session = box.session();
    const rec = recorder();
    const cell = box.start(session, "store('k', 1); text('before'); notify('waiting'); await new Promise(() => {})", {
      rec,
    });
    await waitFor(() => rec.notifications.length === 1, { what: "the cell to write its text" });
    const pid = cellProcessId(session, "1");
    expect(pid).toBeTypeOf("number");
    process.kill(pid!, "SIGKILL");
    expect(await cell.initial).toEqual({
      kind: "result",
      cellId: "1",
      items: [{ type: "input_text", text: "before" }],
      errorText: "exec runtime ended unexpectedly",
      bufferedForNs: 0,
    });
    const after = await box.start(session, "text(String(load('k')))").initial;
    expect(after).toMatchObject({ kind: "result", items: [{ type: "input_text", text: "undefined" }] });
    await session.close();
  });
});
