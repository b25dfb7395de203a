// The floor of any host that runs cells in another process: a do-nothing "host" with scv's topology
// (client ↔ host process ↔ cell process, length-prefixed JSON over pipes at both hops) that checks,
// validates and runs nothing. scripts/bench/host.ts drives it like a real host, so its nested-call
// rate is the most a process boundary allows on this machine under the same load; the gap between
// it and scv is scv's own cost, the gap between it and the reference is the boundary's.
//
// With `worker`, the same do-nothing host runs its cells in a worker thread of its own process
// instead (messages by postMessage): the floor of the other design, cells in the host's process
// (the reference's), measured beside it.
//
//   node scripts/bench/relay_floor.ts          the host side (spawns its cell process)
//   node scripts/bench/relay_floor.ts worker   the host side, cells in a worker thread
//   node scripts/bench/relay_floor.ts cell     the cell side
//
// It understands only what the benchmark sends: `hello`/`session/open` get a bare response, an
// execute whose source says `i < N` makes N sequential tool calls, any other execute finishes at once.
import { spawn } from "node:child_process";
import { writeSync } from "node:fs";
import { isMainThread, parentPort, Worker } from "node:worker_threads";
import { encodeFrame, FrameDecoder } from "../../lib/codec/index.ts";

// deno-lint-ignore no-explicit-any
type Message = any;

function onFrames(stream: NodeJS.ReadableStream, handle: (message: Message) => void): void {
  const decoder = new FrameDecoder();
  stream.on("data", (chunk: Buffer) => {
    for (const message of decoder.push(chunk)) handle(message);
  });
}

/** The cell: sums tool results, asks for the next one until it has made `count` calls. */
function cell(send: (message: unknown) => void): (message: Message) => void {
  let count = 0;
  let made = 0;
  let sum = 0;
  return (message) => {
    if (message.t === "start") {
      count = message.count;
      made = 0;
      sum = 0;
    } else {
      sum += message.v;
    }
    if (made < count) send({ t: "call", call: made++ });
    else send({ t: "done", text: String(sum) });
  };
}

/** The host: answers the client, relays tool calls and results between the client and the cell. */
function host(toCell: (message: unknown) => void, stopCell: () => void): (message: Message) => void {
  let execute: { id: unknown; session: string } | null = null;
  let nextId = 1;
  const reply = (message: unknown): void => void process.stdout.write(encodeFrame(message));
  onFrames(process.stdin, (message) => {
    if (message.type === "delegate/response") {
      toCell({ t: "tool", v: message.result.value.result });
    } else if (message.request?.method === "session/execute") {
      execute = { id: message.id, session: message.request.sessionId };
      const count = /i < (\d+)/.exec(message.request.request.source);
      toCell({ t: "start", count: count === null ? 0 : Number(count[1]) });
    } else {
      reply({ type: "operation/response", id: message.id ?? null, result: { status: "ok", value: {} } });
    }
  });
  process.stdin.on("end", () => {
    stopCell();
    process.exit(0);
  });
  return (message) => {
    if (execute === null) return;
    if (message.t === "call") {
      reply({
        type: "delegate/request",
        id: nextId++,
        request: { type: "tool/invoke", name: "t", input: message.call },
      });
      return;
    }
    const result = { Result: { cell_id: "1", content_items: [{ type: "input_text", text: message.text }] } };
    reply({ type: "execute/initialResponse", id: execute.id, result: { status: "ok", value: result } });
    reply({ type: "cell/closed", session_id: execute.session, cell_id: "1" });
    execute = null;
  };
}

if (!isMainThread) {
  parentPort!.on("message", cell((message) => parentPort!.postMessage(message)));
} else if (process.argv[2] === "cell") {
  onFrames(process.stdin, cell((message) => void writeSync(1, encodeFrame(message))));
} else if (process.argv[2] === "worker") {
  const worker = new Worker(new URL(import.meta.url));
  worker.on("message", host((message) => worker.postMessage(message), () => void worker.terminate()));
} else {
  const child = spawn(process.execPath, [import.meta.filename, "cell"], { stdio: ["pipe", "pipe", "inherit"] });
  onFrames(child.stdout, host((message) => child.stdin.write(encodeFrame(message)), () => child.kill()));
}
