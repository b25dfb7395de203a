// A session's sandbox process that sits idle after its memory grew is replaced by a fresh one (V8 keeps what the
// cells grew; a new process does not), and the session goes on unchanged: its store lives in the host.
import { describe, expect, it } from "vitest";
import { cellProcessId } from "../../lib/sandbox/session.ts";
import type { SandboxSession } from "../../lib/sandbox/index.ts";
import { recorder, tool, useSandbox } from "./helpers.ts";
import { waitFor } from "../support/wait.ts";
import { alive } from "../support/process_alive.ts";

// Checked soon after each cell, and any growth counts: a cell that allocates tens of MB certainly grows it.
const box = useSandbox({ idleRecycleMs: 100, idleRecycleGrowthBytes: 1 });

/** Runs `source` (which calls `tools.probe()` once) and returns the pid of the process that ran it. */
async function runOn(session: SandboxSession, source: string): Promise<{ pid: number; texts: string[] }> {
  let pid: number | undefined;
  let cellId = "";
  const rec = recorder(async () => {
    pid = cellProcessId(session, cellId);
    return null;
  });
  const cell = box.start(session, source, { tools: [tool("probe")], rec, yieldTimeMs: null });
  cellId = cell.id;
  const observation = await cell.initial;
  expect(observation).toMatchObject({ kind: "result", errorText: null });
  expect(pid).toBeTypeOf("number");
  const texts = observation.kind === "result"
    ? observation.items.flatMap((item) => (item.type === "input_text" ? [item.text] : []))
    : [];
  return { pid: pid!, texts };
}

async function gone(pid: number): Promise<void> {
  // Polls a condition; the deadline only catches a process that is never replaced.
  await waitFor(() => !alive(pid), { intervalMs: 20, what: `sandbox process ${pid} to be replaced while idle` });
}

describe("idle sandbox processes", () => {
  it("a process whose memory grew is replaced while idle; the session's store carries over", async () => {
    const session = box.session();
    const first = await runOn(
      session,
      "await tools.probe({}); const rows = Array.from({ length: 300000 }, (_, i) => ({ i, s: 'row ' + i }));" +
        "store('rows', rows.length); text(String(rows.length))",
    );
    expect(first.texts).toEqual(["300000"]);
    await gone(first.pid);
    const second = await runOn(session, "await tools.probe({}); text(String(load('rows')))");
    expect(second.pid).not.toBe(first.pid);
    expect(second.texts).toEqual(["300000"]);
    await session.close();
  });
});
