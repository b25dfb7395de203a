// Terminating runaway cells through `scv host` (a real process over real pipes). A microtask chain never returns to
// its process's event loop, so no message to the sandbox process could stop it: terminate kills the process, and the
// client gets `Terminated` and `cell/closed` for each cell while the session goes on in a fresh process. How fast
// that happens is measured by scripts/bench/terminate.ts, not here.
import { afterAll, describe, expect, it } from "vitest";
import { execute, type Frame, killAllHosts, open, readyHost, terminate } from "../support/frame_client.ts";

afterAll(() => killAllHosts());

const DEADLINE_MS = 60_000;

function kindOf(frame: Frame): string {
  const value = frame.result.value;
  if (frame.type === "execute/initialResponse") return Object.keys(value)[0]!;
  const outer = Object.keys(value.outcome)[0]!;
  return Object.keys(value.outcome[outer])[0]!;
}

describe("terminating runaway cells through scv host", () => {
  it("microtask chains (one growing its heap) end as Terminated; the session runs on", async () => {
    const host = await readyHost();
    host.send(open(1, "s1"));
    expect((await host.frames.next(DEADLINE_MS)).result.value.type).toBe("session/ready");
    const runaways = [
      "await (async function spin() { for (;;) await null })()",
      "const kept = []; await (async function grow() { for (;;) { kept.push({ at: kept.length }); await null } })()",
    ];
    // Both run at once (the second in another sandbox process) and yield.
    runaways.forEach((source, index) => host.send(execute(10 + index, "s1", source, { yieldTimeMs: 300 })));
    const yielded = await host.frames.until(
      () => host.frames.received.filter((frame) => frame.type === "execute/initialResponse").length === 2,
      DEADLINE_MS,
    );
    const initials = yielded.filter((frame) => frame.type === "execute/initialResponse");
    expect(initials.map(kindOf)).toEqual(["Yielded", "Yielded"]);
    const cellIds = initials.map((frame) => frame.result.value.Yielded.cell_id as string).sort();
    expect(cellIds).toEqual(["1", "2"]);

    host.sendBatch(cellIds.map((cellId, index) => terminate(20 + index, "s1", cellId)));
    const frames = await host.frames.until(
      () => host.frames.received.filter((frame) => frame.type === "cell/closed").length === 2,
      DEADLINE_MS,
    );
    for (const [index, cellId] of cellIds.entries()) {
      const response = frames.find((frame) => frame.id === 20 + index);
      expect(response && kindOf(response)).toBe("Terminated");
      expect(response.result.value.outcome.LiveCell.Terminated.cell_id).toBe(cellId);
    }
    expect(frames.filter((frame) => frame.type === "cell/closed").map((frame) => frame.cellId).sort()).toEqual(
      cellIds,
    );

    host.send(execute(30, "s1", "text(await Promise.resolve('alive'))"));
    const after = await host.frames.until((frame) => frame.type === "execute/initialResponse", DEADLINE_MS);
    expect(after.at(-1).result.value).toMatchObject({
      Result: { content_items: [{ type: "input_text", text: "alive" }] },
    });
    host.kill();
  }, 2 * DEADLINE_MS);
});
