// The pool's memory policy: no sandbox process before the first session, one warm process booted
// when a session opens (taken by its first cell), and a spare booted when a cell yields (its process stays busy while the client runs
// more cells). A session's processes are its own: they end when it closes.
import { existsSync } from "node:fs";
import { afterEach, expect, it } from "vitest";
import { createSandbox, type Sandbox } from "../../lib/sandbox/index.ts";
import { settle } from "../support/wait.ts";
import { childPids, recorder, until } from "./helpers.ts";

const measurable = existsSync("/proc/self/stat");

let sandbox: Sandbox | null = null;
afterEach(async () => {
  await sandbox?.shutdown();
  sandbox = null;
});

it.skipIf(!measurable)(
  "boots no process before the first session, then one per session, none after it closes",
  async () => {
    const before = childPids().length;
    sandbox = createSandbox();
    // The pool decides in this process, at once or in a microtask: a boot would have started by now.
    await settle();
    expect(childPids().length).toBe(before);
    const session = sandbox.openSession();
    const cell = session.startCell({
      source: "text('hi')",
      tools: [],
      yieldTimeMs: null,
      callbacks: recorder().callbacks,
    });
    expect((await cell.initial).kind).toBe("result");
    // The session keeps the process it took; no replacement boots until another session opens.
    await settle();
    expect(childPids().length).toBe(before + 1);
    const other = sandbox.openSession();
    expect(await until(() => childPids().length === before + 2)).toBe(true);
    await session.close();
    await other.close();
    expect(await until(() => childPids().length === before + 1)).toBe(true);
  },
);

it.skipIf(!measurable)("boots a spare process when a cell yields, for the next concurrent cell", async () => {
  sandbox = createSandbox();
  const session = sandbox.openSession();
  const callbacks = recorder().callbacks;
  const first = session.startCell({
    source: "yield_control(); await new Promise(() => {})",
    tools: [],
    yieldTimeMs: null,
    callbacks,
  });
  expect((await first.initial).kind).toBe("yielded");
  const one = childPids().length;
  const second = session.startCell({ source: "text('second')", tools: [], yieldTimeMs: null, callbacks });
  expect(await second.initial).toMatchObject({
    kind: "result",
    items: [{ type: "input_text", text: "second" }],
    errorText: null,
  });
  expect(childPids().length).toBeGreaterThanOrEqual(one);
  await session.close();
});
