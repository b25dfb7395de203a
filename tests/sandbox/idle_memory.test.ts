// Issue 26, item 7c: a sandbox process's resident memory is watched for as long as it lives, not
// only while a cell runs. The attacker's way: a cell leaves finalizers behind that allocate after it
// ended, each allocation making the next collection (and so the next finalizer) come. On main the
// host stopped watching when the cell ended: the idle process grew past its cap and lived on.
import { expect, it } from "vitest";
import { cellProcessId } from "../../lib/sandbox/session.ts";
import { HANG_MS } from "../support/wait.ts";
import { cpuTicks, recorder, tool, until, useSandbox } from "./helpers.ts";

const box = useSandbox({ warmWorkers: 1 });
const MIB = 1024 * 1024;

it("an idle process that grows past its memory cap after its cell ended is killed; the session serves on", async () => {
  const session = box.session({ maxHeapSizeBytes: 64 * MIB });
  // Cap: the 64 MiB heap plus 160 MiB. The finalizers take 32 MiB a time (outside the heap), up to 1.5 GiB.
  // The cell waits for a tool call, so that its process can be named while it runs.
  let answer!: () => void;
  const held = new Promise<void>((resolve) => (answer = resolve));
  const rec = recorder(async () => {
    await held;
    return null;
  });
  const cell = box.start(
    session,
    `await tools.hold();
    const kept = [];
    const registry = new FinalizationRegistry(() => {
      if (kept.length >= 48) return;
      kept.push(new Uint8Array(32 * 1024 * 1024).fill(1));
      for (let i = 0; i < 1000; i++) registry.register({ garbage: new Array(100).fill(i) }, i);
    });
    for (let i = 0; i < 1000; i++) registry.register({ garbage: new Array(100).fill(i) }, i);
    globalThis.keepAlive = registry;
    text("armed")`,
    { tools: [tool("hold")], rec, yieldTimeMs: 10 * HANG_MS },
  );
  expect(await until(() => rec.calls.length === 1)).toBe(true);
  const pid = cellProcessId(session, "1");
  expect(pid).toBeTypeOf("number");
  answer();
  expect(await cell.initial).toMatchObject({ kind: "result", items: [{ type: "input_text", text: "armed" }] });
  // The cell is over; its finalizers allocate on. The process must end (a deadline only against a hang).
  expect(await until(() => cpuTicks(pid!) === null, undefined, 50)).toBe(true);
  const next = await box.start(session, "text('next')").initial;
  expect(next).toMatchObject({ kind: "result", items: [{ type: "input_text", text: "next" }], errorText: null });
  await session.close();
});
