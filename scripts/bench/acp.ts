// ACP benchmark (issue 19): drives the real CLI (`node main.ts acp`) with raw JSON-RPC lines against the tests' fake
// provider on 127.0.0.1. Prints one JSON object.
//
//   node scripts/bench/acp.ts [--deltas 20000] [--cancels 5]
//
// Figures:
// - initialize_ms: spawn → the initialize answer read (the process start included).
// - session_new_ms: session/new sent → answered (an engine session starts in-process).
// - stream: one turn of `--deltas` one-word deltas through to agent_message_chunk lines, chunks/s.
// - cancel_ms: session/cancel sent → the prompt's `cancelled` answer read, while the provider holds the stream
//   (p50/max over `--cancels` turns; the bound is 2000 ms).
// deno-lint-ignore-file no-explicit-any -- reads untyped wire JSON (request bodies, JSON-RPC messages)
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { sse, startFakeProvider, textResponse } from "../../tests/support/fake_provider.ts";
import { percentile, printJson, round } from "./stats.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

function argument(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? Number(process.argv[index + 1]) : fallback;
}

const DELTAS = argument("deltas", 20_000);
const CANCELS = argument("cancels", 5);
const STEP_TIMEOUT_MS = 120_000;

const provider = await startFakeProvider();
const root = mkdtempSync(path.join(tmpdir(), "scv-bench-acp-"));
const child = spawn(process.execPath, [path.join(ROOT, "main.ts"), "acp"], {
  cwd: root,
  env: {
    ...process.env,
    SCV_HOME: path.join(root, "home"),
    HOME: root,
    OPENAI_API_KEY: "bench",
    SCV_BASE_URL: provider.url,
    SCV_MODEL: "m",
  },
  stdio: ["pipe", "pipe", "inherit"],
});

type Message = { id?: number; method?: string; result?: any; error?: any; params?: any };
let buffered = "";
let chunks = 0;
const waiters = new Map<number, (message: Message) => void>();
child.stdout.setEncoding("utf8").on("data", (text: string) => {
  buffered += text;
  let newline: number;
  while ((newline = buffered.indexOf("\n")) >= 0) {
    const message = JSON.parse(buffered.slice(0, newline)) as Message;
    buffered = buffered.slice(newline + 1);
    if (message.method === "session/update" && message.params.update.sessionUpdate === "agent_message_chunk")
      chunks += 1;
    else if (message.id !== undefined && message.method === undefined) waiters.get(message.id)?.(message);
  }
});

let nextId = 1;
function request(method: string, params: unknown): Promise<Message> {
  const id = nextId++;
  const answered = new Promise<Message>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${method} was not answered in time`)), STEP_TIMEOUT_MS);
    waiters.set(id, (message) => {
      clearTimeout(timer);
      waiters.delete(id);
      if (message.error) reject(new Error(`${method}: ${message.error.message}`));
      else resolve(message);
    });
  });
  child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
  return answered;
}

async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + STEP_TIMEOUT_MS;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

try {
  const spawned = performance.now();
  await request("initialize", { protocolVersion: 1 });
  const initializeMs = performance.now() - spawned;
  const newAt = performance.now();
  const { result } = await request("session/new", { cwd: root, mcpServers: [] });
  const sessionNewMs = performance.now() - newAt;
  const sessionId = result.sessionId as string;
  const prompt = [{ type: "text", text: "go" }];

  provider.push(textResponse(Array.from({ length: DELTAS }, (_, index) => `w${index} `)));
  const streamAt = performance.now();
  await request("session/prompt", { sessionId, prompt });
  const streamSeconds = (performance.now() - streamAt) / 1000;
  if (chunks !== DELTAS) throw new Error(`expected ${DELTAS} chunks, got ${chunks}`);

  const cancels: number[] = [];
  for (let index = 0; index < CANCELS; index += 1) {
    provider.push({ mode: "chunked", events: [sse.textDelta("held")], end: "hang" });
    const before = chunks;
    const answer = request("session/prompt", { sessionId, prompt });
    await until(() => chunks > before);
    const cancelAt = performance.now();
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId } })}\n`);
    const { result: stop } = await answer;
    if (stop.stopReason !== "cancelled") throw new Error(`expected cancelled, got ${stop.stopReason}`);
    cancels.push(performance.now() - cancelAt);
  }
  cancels.sort((a, b) => a - b);
  printJson({
    initialize_ms: round(initializeMs, 1),
    session_new_ms: round(sessionNewMs, 1),
    stream: { deltas: DELTAS, seconds: round(streamSeconds), chunks_per_s: Math.round(DELTAS / streamSeconds) },
    cancel_ms: { p50: round(percentile(cancels, 50), 1), max: round(cancels.at(-1)!, 1), turns: CANCELS },
  });
} finally {
  child.stdin.end();
  await new Promise((resolve) => child.once("exit", resolve));
  await provider.close();
  rmSync(root, { recursive: true, force: true });
}
