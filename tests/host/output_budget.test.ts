// Issue 26, item 7b, the attacker's way: a client that stops reading while many cells each emit a
// large text. On main the host kept reading the cells' output and queued frame after frame until
// its outgoing queue passed its cap, then failed the connection: none of the executes was
// answered. Now the connection's output budget stops reading the sandbox processes instead; once the
// client reads again, every execute is answered. The limits are lowered through the environment so
// that the test moves megabytes, not gigabytes (scripts/bench/host_output_budget.ts runs the
// issue's sizes and reports the host's peak memory).
import { afterAll, describe, expect, test } from "vitest";
import { readFrames } from "../../lib/codec/index.ts";
import { parsePreciseJson } from "../../lib/host/precise_json.ts";
import { freshBinary } from "../support/binary.ts";
import { UNDER_DENO } from "../support/cli_command.ts";
import {
  execute,
  type Frame,
  hello,
  type HostProcess,
  killAllHosts,
  open,
  startFramedProcess,
  startHost,
  stderrContains,
} from "../support/frame_client.ts";

afterAll(killAllHosts);

const MIB = 1024 * 1024;
const CELLS = 20;
const CELL_MIB = 4;
const ENV = {
  SCV_LOG: "debug",
  // Four cells' output fits the budget; the outgoing queue's own cap is twice that, and 20 cells
  // emit 80 MiB: without the budget, the queue passes its cap.
  SCV_HOST_MAX_BUFFERED_OUTPUT_BYTES: String(16 * MIB),
  SCV_HOST_MAX_OUTGOING_BYTES: String(32 * MIB),
};

async function stalledClient(host: HostProcess): Promise<void> {
  // Nothing is read until the host stopped reading its cells (or gave up).
  host.send(hello());
  host.send(open(1, "s1"));
  for (let i = 0; i < CELLS; i++) {
    host.send(
      execute(10 + i, "s1", `text(String.fromCharCode(${65 + i}).repeat(${CELL_MIB * MIB}))`, { yieldTimeMs: 600_000 }),
    );
  }
  const full = "output budget full";
  const failed = "outgoing queue is full";
  await Promise.race([stderrContains(host, full, 600_000), stderrContains(host, failed, 600_000)]);
  expect(host.stderr()).not.toContain(failed);
  expect(host.stderr()).toContain(full);

  const answers = new Map<number, Frame>();
  for await (const frame of readFrames(host.child.stdout, { parse: parsePreciseJson }) as AsyncIterable<Frame>) {
    if (frame.type === "execute/initialResponse") answers.set(Number(frame.id), frame);
    if (answers.size === CELLS) break;
  }
  for (let i = 0; i < CELLS; i++) {
    const result = answers.get(10 + i)!.result.value.Result;
    expect(result.error_text).toBeNull();
    const text = result.content_items[0].text as string;
    expect(text.length).toBe(CELL_MIB * MIB);
    expect(text.startsWith(String.fromCharCode(65 + i).repeat(8))).toBe(true);
  }
  expect(host.stderr()).not.toContain(failed);
  host.kill();
}

describe.concurrent("a client that stops reading (issue 26, item 7b)", () => {
  test("from source: the host stops reading its cells, then answers every execute", async () => {
    await stalledClient(startHost([], ENV, false));
  }, 900_000);

  test.skipIf(UNDER_DENO)("the binary: the same", async () => {
    await stalledClient(startFramedProcess(await freshBinary(), ["host"], ENV, false));
  }, 900_000);
});
