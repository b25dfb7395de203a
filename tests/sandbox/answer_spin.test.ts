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

  it("keep their exact text whichever path carries them: large, multi-byte, lone surrogates", async () => {
    // The shared-memory slot holds 64 KiB and only well-formed text; the rest goes by message.
    const big = "ü".repeat(40_000);
    const rec = recorder(async (call) => {
      const n = (call.input as { n: number }).n;
      if (n % 3 === 0) return { big, n };
      if (n % 3 === 1) return `🎉${n}`;
      throw `bad\ud800${n}`;
    });
    const { texts, errorText } = await box.result(
      `const out = [];
       for (let n = 0; n < 60; n++) {
         try {
           const v = await tools.t({ n });
           out.push(typeof v === "string" ? v : v.big === ${JSON.stringify(big)} && v.n === n ? "big" + n : "wrong" + n);
         } catch (e) {
           out.push(e === "bad\ud800" + n ? "err" + n : "wrong" + n);
         }
       }
       text(out.join(","))`,
      { tools: [tool("t")], rec },
    );
    expect(errorText).toBeNull();
    const expected = Array.from({ length: 60 }, (_, n) => (n % 3 === 0 ? `big${n}` : n % 3 === 1 ? `🎉${n}` : `err${n}`));
    expect(texts).toEqual([expected.join(",")]);
  });

  it("keep the worker's order: calls reach the client as made, also when one is too big for the slot", async () => {
    const rec = recorder(async () => 1);
    for (let round = 0; round < 20; round++) {
      rec.calls.length = 0;
      // Right after an answer the main thread polls for this cell's next call. The 100 kB call
      // goes by message, the next one would fit the slot; "done" comes by message last.
      const { errorText } = await box.result(
        `await tools.t({ k: 0 }); void tools.t({ k: 1, big: "x".repeat(100000) }); void tools.t({ k: 2 }); text("end")`,
        { tools: [tool("t")], rec },
      );
      expect(errorText).toBeNull();
      expect(rec.calls.map((call) => (call.input as { k: number }).k)).toEqual([0, 1, 2]);
    }
  });

  it("survive a cell that calls tools at the edge of its stack, right after answers", async () => {
    // A call made where the stack is nearly exhausted may fail anywhere on its way, also while
    // the worker holds the shared slot the main thread is polling: nothing may hang.
    const rec = recorder(async () => 1);
    const { texts, errorText } = await box.result(
      `const deep = (n) => {
         try { return deep(n + 1); } catch { try { tools.t({ deep: n }); } catch {} return n; }
       };
       for (let round = 0; round < 40; round++) { await tools.t({ round }); deep(0); }
       text("survived")`,
      { tools: [tool("t")], rec, yieldTimeMs: 30_000 },
    );
    expect(errorText).toBeNull();
    expect(texts).toEqual(["survived"]);
    expect(rec.calls.filter((call) => "round" in (call.input as object))).toHaveLength(40);
    // The worker and the main thread still serve the next cell.
    const after = await box.result(`text(String(await tools.t({})))`, { tools: [tool("t")], rec });
    expect(after.texts).toEqual(["1"]);
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
