// Issue 26, item 7a: what a sandbox process sends is read in frames of at most
// MAX_CHANNEL_FRAME_BYTES. The process is started exactly as the host starts it, with attacker code
// in its realm (as in process_realm.test.ts) that writes frames of its own straight to stdout: one
// announcing 160 MiB of JSON that would parse into gigabytes (on main the host read and parsed it:
// every session froze and the host passed 2.5 GiB), and message parts that break their own rules.
import { writeFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { MAX_CHANNEL_FRAME_BYTES } from "../../lib/sandbox/channel.ts";
import { childMain } from "../../lib/sandbox/child_main.ts";
import { prepareLaunch, programFile } from "../../lib/sandbox/launch.ts";
import { type CellListener, SandboxProcess, type WorkerExit } from "../../lib/sandbox/sandbox_process.ts";
import type { FromWorker } from "../../lib/sandbox/worker_main.ts";

const isDeno = "Deno" in globalThis;
const launcher = prepareLaunch({ maxOutputChars: 1_000_000, storeQuotaChars: 1_000_000 });
afterAll(() => launcher.dispose());

/**
 * Attacker code in the sandbox process's realm: each of `frames` (`[declared length, piece, times]`)
 * is written raw to stdout, the piece `times` times over.
 */
const rawWriter = (frames: string) =>
  `(r, channel) => {
  const writes = [];
  for (const [declared, piece, times] of ${frames}) {
    const prefix = Buffer.alloc(4);
    prefix.writeUInt32LE(declared, 0);
    writes.push(prefix);
    const bytes = Buffer.from(piece);
    for (let i = 0; i < times; i++) writes.push(bytes);
  }
  let index = 0;
  const more = () => {
    while (index < writes.length) if (!process.stdout.write(writes[index++])) return void process.stdout.once("drain", more);
  };
  more();
}`;

/** Runs a process of the real launch with `attack` as its cell host; resolves with how it ended and what it said. */
async function run(attack: string) {
  const program = `"use strict";(${String(childMain)})(require, ${JSON.stringify(launcher.child)}, ${attack});`;
  writeFileSync(launcher.program!, programFile("node", program));
  const logs: string[] = [];
  const messages: FromWorker[] = [];
  let ended!: (exit: WorkerExit) => void;
  const exited = new Promise<WorkerExit>((resolve) => (ended = resolve));
  const owner = { release: () => undefined, forget: (_process: SandboxProcess, exit: WorkerExit) => ended(exit) };
  const process = new SandboxProcess(owner, 64, launcher.forHeap(64), 1 << 20, (line) => logs.push(line));
  const listener: CellListener = {
    onMessage: (message) => {
      messages.push(message);
      return false;
    },
    onExit: () => undefined,
  };
  process.run(1, listener, { source: "", firstImport: null, tools: "[]", store: "{}", storeSize: 0 });
  const exit = await exited;
  return { exit, logs, messages, killed: process.killed };
}

describe.skipIf(isDeno)("the sandbox channel's frame cap (issue 26, item 7a)", () => {
  it("a frame announcing 160 MiB is refused on its prefix: the process is killed, nothing is buffered", async () => {
    const mib = 1024 * 1024;
    const before = globalThis.process.memoryUsage().rss;
    // 160 MiB of "[]," (an array of 56 million arrays once parsed), written 1 MiB at a time.
    const piece = JSON.stringify("[],".repeat(mib / 2 / 3) + "[],".repeat(mib / 2 / 3));
    const { exit, logs, killed } = await run(rawWriter(`[[${160 * mib}, ${piece}, 160]]`));
    expect(killed).toBe(true);
    expect(exit.kind).toBe("crash");
    expect(logs.join("\n")).toContain(
      `sandbox message of ${160 * mib} bytes exceeds ${MAX_CHANNEL_FRAME_BYTES}; killed`,
    );
    // Not read, let alone parsed: the host grew by far less than the frame.
    expect(globalThis.process.memoryUsage().rss - before).toBeLessThan(64 * mib);
  });

  it("parts that exceed what they announced, or a message before all its parts, kill the process", async () => {
    const frame = (message: unknown) => {
      const json = JSON.stringify(message);
      return `[${Buffer.byteLength(json)}, ${JSON.stringify(json)}, 1]`;
    };
    const over = await run(
      rawWriter(`[${frame({ t: "part", f: "v", v: "x".repeat(10), n: 10 })}, ${frame({ t: "part", f: "v", v: "y" })}]`),
    );
    expect(over.killed).toBe(true);
    expect(over.logs.join("\n")).toContain("sandbox message parts exceed the 10 characters they announced; killed");
    const early = await run(
      rawWriter(`[${frame({ t: "part", f: "v", v: "x", n: 5 })}, ${frame({ t: "text", cell: 1, v: "" })}]`),
    );
    expect(early.killed).toBe(true);
    expect(early.logs.join("\n")).toContain("sandbox message arrived before all of its parts; killed");
    expect(early.messages.filter((message) => message.t === "text")).toEqual([]);
  });
});
