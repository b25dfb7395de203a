// The pool's memory policy: no worker before the first session, one warm worker by default,
// and a spare booted when a cell yields (its worker stays busy while the client runs more cells).
import { existsSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { afterEach, expect, it } from "vitest";
import { createSandbox, type Sandbox } from "../../lib/sandbox/index.ts";
import { recorder, sleep } from "./helpers.ts";

const procStatus = "/proc/self/status";
const threads = (): number => Number(/Threads:\s+(\d+)/.exec(readFileSync(procStatus, "utf8"))![1]);
const measurable = existsSync(procStatus) && !("Deno" in globalThis);

let sandbox: Sandbox | null = null;
afterEach(async () => {
  await sandbox?.shutdown();
  sandbox = null;
});

it.skipIf(!measurable)("boots no worker before the first session, then one warm worker", async () => {
  await readFile(procStatus); // the libuv thread pool exists before the baseline
  const before = threads();
  sandbox = createSandbox();
  await sleep(300);
  expect(threads()).toBe(before);
  const session = sandbox.openSession();
  const cell = session.startCell({ source: "text('hi')", tools: [], yieldTimeMs: null, callbacks: recorder().callbacks });
  expect((await cell.initial).kind).toBe("result");
  await sleep(300);
  expect(threads()).toBe(before + 1);
  await session.close();
});

it.skipIf(!measurable)("boots a spare worker when a cell yields, for the next concurrent cell", async () => {
  await readFile(procStatus);
  sandbox = createSandbox();
  const session = sandbox.openSession();
  const callbacks = recorder().callbacks;
  const first = session.startCell({ source: "yield_control(); await new Promise(() => {})", tools: [], yieldTimeMs: null, callbacks });
  const one = threads();
  expect((await first.initial).kind).toBe("yielded");
  await sleep(300);
  expect(threads()).toBeGreaterThan(one);
  const second = session.startCell({ source: "text('second')", tools: [], yieldTimeMs: null, callbacks });
  expect(await second.initial).toMatchObject({ kind: "result", items: [{ type: "input_text", text: "second" }], errorText: null });
  await session.close();
});
