// A worker polls briefly for the answer to a tool call it just made (worker_main.ts): answers
// must still arrive exactly once and in order, whichever path takes them, and a worker waiting
// for a slow or unanswered tool must not keep burning CPU.
import { describe, expect, it } from "vitest";
import { recorder, sleep, tool, useSandbox } from "./helpers.ts";

const box = useSandbox({ warmWorkers: 1 });

describe("tool answers while the worker polls for them", () => {
  it("deliver every answer once: sequential, parallel, immediate and late ones mixed", async () => {
    let n = 0;
    // Every fourth call is answered after a timer (past the poll window), the others at once.
    const rec = recorder(async (call) => {
      if (n++ % 4 === 3) await sleep(3);
      return (call.input as { v: number }).v * 2;
    });
    const { texts, errorText } = await box.result(
      `let s = 0;
       for (let i = 0; i < 200; i++) s += await tools.t({ v: i });
       const all = await Promise.all(Array.from({ length: 50 }, (_, i) => tools.t({ v: i })));
       text(s + " " + all.join(","))`,
      { tools: [tool("t")], rec },
    );
    expect(errorText).toBeNull();
    const parallel = Array.from({ length: 50 }, (_, i) => i * 2).join(",");
    expect(texts).toEqual([`${199 * 200} ${parallel}`]);
    expect(rec.calls).toHaveLength(250);
  });

  it("burn no CPU while a tool call stays unanswered", async () => {
    const session = box.session();
    let called!: () => void;
    const calledPromise = new Promise<void>((resolve) => (called = resolve));
    const rec = recorder(() => {
      called();
      return new Promise(() => undefined);
    });
    const cell = box.start(session, "await tools.t({}); text('never')", { tools: [tool("t")], rec, yieldTimeMs: 60_000 });
    await calledPromise;
    await sleep(50);
    const before = process.cpuUsage();
    await sleep(400);
    const used = process.cpuUsage(before);
    // Spinning for the whole wait would cost ~400 ms of CPU; idle costs a few.
    expect((used.user + used.system) / 1000).toBeLessThan(100);
    await session.terminate(cell.id);
    await session.close();
  });
});
