// Server benchmark (issues 5 and 6): drives the real CLI (`node main.ts server --stdio`, and the bundle
// `dist/scv.cjs` when present) against a local fake provider that streams as fast as it can. Prints one JSON object.
//
//   node scripts/bench/server.ts [--deltas 100000] [--turns 50] [--warmup-turns 10] [--idle-seconds 5] [--calls 100]
//     [--target main|bundle|both]
//
// Figures, per target:
// - first_delta_overhead_ms: turn.start sent → first assistant.delta read, minus the provider's own time from
//   receiving the request to writing its first byte (p50/p90 over `--turns` one-delta turns after the warm-up turns).
//   Goal p50 ≤ 2 ms.
// - responses / chat / messages: a turn of `--deltas` deltas through to stdout, deltas/s, on each wire (messages:
//   Anthropic's). Goal ≥ 100,000/s.
// - rss_mb: after initialize (goal ≤ 70 MB), after session.start, after the turns (no growth beyond history limits).
// - idle_cpu_ms: user+system CPU over `--idle-seconds` of idleness (goal ≤ 20 ms over 5 s; 10 ms resolution).
// - exec: one cell making `--calls` nested `read` calls, calls/s (cold: the cell that starts the sandbox; warm).
// - realistic (issue 14): through the three wires, with the servers' real framing (Responses: sequence_number, item_id,
//   logprobs, obfuscation, output_item.added/done, the whole output again in response.completed; Chat: id, model,
//   created, system_fingerprint per chunk and a `choices:[]` usage chunk; Messages: an indexed block event per delta,
//   block start and stop, the stop reason with usage): a `--answer-tokens` answer (default
//   100,000 one-token deltas, deltas/s) and a `--write-bytes` `write` call (default 1 MB; must complete). The wire
//   is 20–60 MB, far over the old 4 MiB wire-byte limit; max_response_bytes now counts payload only.
// - parse: in-process, the SSE decoder + each wire's stream state over the same realistic 100k-token streams,
//   deltas/s (the per-delta cost of the payload counting; goal >= 100,000/s, run on the old code for "before").
import { type ChildProcess, spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ChatStreamState } from "../../lib/provider/chat_stream.ts";
import { MessagesStreamState } from "../../lib/provider/messages_stream.ts";
import { ResponsesStreamState } from "../../lib/provider/responses_stream.ts";
import { SseDecoder } from "../../lib/provider/sse.ts";
import type { SseItem } from "../../tests/support/fake_provider.ts";
import {
  type ChatPart,
  chatStream,
  type ResponsesItem,
  responsesStream,
} from "../../tests/provider/fixtures/real_streams.ts";
import { messagesStream } from "../../tests/provider/fixtures/anthropic_captures.ts";
import { percentile, printJson, round } from "./stats.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const BUNDLE = path.join(ROOT, "dist", "scv.cjs");

function argument(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? Number(process.argv[index + 1]) : fallback;
}
function textArgument(name: string, fallback: string): string {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? process.argv[index + 1]! : fallback;
}

const DELTAS = argument("deltas", 100_000);
const TURNS = argument("turns", 50);
const IDLE_SECONDS = argument("idle-seconds", 5);
const CALLS = argument("calls", 100);
const TARGET = textArgument("target", "both");
const WARMUP_TURNS = argument("warmup-turns", 10);
const ANSWER_TOKENS = argument("answer-tokens", 100_000);
const WRITE_BYTES = argument("write-bytes", 1_000_000);
const STEP_TIMEOUT_MS = 120_000;

// ---- a fake provider: one request per connection, replies scripted per request, timestamps of both ends ----

type Reply = { body: Buffer; firstChunk: number };
type Timing = { receivedAt: number; firstByteAt: number };

class FastProvider {
  readonly replies: Reply[] = [];
  readonly timings: Timing[] = [];
  readonly #server: net.Server;
  readonly #sockets = new Set<net.Socket>();
  port = 0;

  constructor() {
    this.#server = net.createServer((socket) => this.#serve(socket));
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.listen(0, "127.0.0.1", resolve));
    this.port = (this.#server.address() as net.AddressInfo).port;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  push(reply: Reply): void {
    this.replies.push(reply);
  }

  #serve(socket: net.Socket): void {
    this.#sockets.add(socket);
    socket.on("close", () => this.#sockets.delete(socket));
    socket.on("error", () => {});
    let buffer: Buffer = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
      const headEnd = buffer.indexOf("\r\n\r\n");
      if (headEnd < 0) return;
      const length = Number(/content-length:\s*(\d+)/i.exec(buffer.subarray(0, headEnd).toString("latin1"))?.[1] ?? 0);
      if (buffer.length < headEnd + 4 + length) return;
      socket.off("data", onData);
      const receivedAt = performance.now();
      const reply = this.replies.shift();
      if (!reply) {
        socket.end("HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        return;
      }
      const head = Buffer.from(
        `HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: ${reply.body.length}\r\nConnection: close\r\n\r\n`,
      );
      // Head and first event in one write (the provider's first byte), the rest as fast as the socket takes it.
      socket.write(Buffer.concat([head, reply.body.subarray(0, reply.firstChunk)]));
      this.timings.push({ receivedAt, firstByteAt: performance.now() });
      socket.end(reply.body.subarray(reply.firstChunk));
    };
    socket.on("data", onData);
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

function sseReply(events: string[]): Reply {
  const first = Buffer.from(events[0]!);
  return { body: Buffer.from(events.join("")), firstChunk: first.length };
}

const responsesDelta = (text: string) =>
  `event: response.output_text.delta\ndata: {"type":"response.output_text.delta","delta":${JSON.stringify(text)}}\n\n`;
const responsesCompleted = 'event: response.completed\ndata: {"type":"response.completed","response":{}}\n\n';
const chatDelta = (text: string) =>
  `data: {"choices":[{"index":0,"delta":{"content":${JSON.stringify(text)}},"finish_reason":null}]}\n\n`;
const chatFinish = 'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n';

function responsesText(count: number): Reply {
  const events: string[] = [];
  for (let i = 0; i < count; i++) events.push(responsesDelta(`d${i % 10}`));
  events.push(responsesCompleted);
  return sseReply(events);
}

function chatText(count: number): Reply {
  const events: string[] = [];
  for (let i = 0; i < count; i++) events.push(chatDelta(`d${i % 10}`));
  events.push(chatFinish);
  return sseReply(events);
}

const messagesDelta = (text: string) =>
  `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":${
    JSON.stringify(text)
  }}}\n\n`;
const messagesStart =
  'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_bench","type":"message","role":"assistant","content":[],"model":"bench-model","usage":{"input_tokens":10,"output_tokens":1}}}\n\n' +
  'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n';
const messagesFinish = 'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n' +
  'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":1}}\n\n' +
  'event: message_stop\ndata: {"type":"message_stop"}\n\n';

function messagesText(count: number): Reply {
  const events: string[] = [messagesStart];
  for (let i = 0; i < count; i++) events.push(messagesDelta(`d${i % 10}`));
  events.push(messagesFinish);
  // The first delta rides with the message start, as one write.
  return sseReply([events[0]! + (events[1] ?? ""), ...events.slice(2)]);
}

function responsesToolCall(callId: string, name: string, args: unknown): Reply {
  return sseReply([
    `event: response.function_call_arguments.delta\ndata: ${
      JSON.stringify({ type: "response.function_call_arguments.delta", output_index: 0, delta: JSON.stringify(args) })
    }\n\n`,
    `event: response.output_item.done\ndata: ${
      JSON.stringify({
        type: "response.output_item.done",
        output_index: 0,
        item: { type: "function_call", call_id: callId, name },
      })
    }\n\n`,
    responsesCompleted,
  ]);
}

// ---- realistic framing (issue 14): what api.openai.com, vLLM, llama-server and Ollama actually send ----

const REAL_MODEL = "gpt-4.1-2025-04-14";

type RealItem = { kind: "text"; pieces: string[] } | { kind: "call"; name: string; pieces: string[] };

/** Raw SSE events of one answer or one call as api.openai.com frames it (tests/provider/fixtures builds them). */
function realResponsesEvents(item: RealItem): string[] {
  const whole = item.pieces.join("");
  const streamItem: ResponsesItem = item.kind === "text"
    ? { type: "message", id: "msg_68e2f0c2b3d481a0a1b2c3d4e5f60718", text: whole, deltas: item.pieces }
    : {
      type: "function_call",
      id: "fc_68e2f0c2b3d481a0a1b2c3d4e5f60719",
      call_id: "call_write_1mb",
      name: item.name,
      arguments: whole,
      deltas: item.pieces,
    };
  const usage = { input_tokens: 1200, output_tokens: item.pieces.length };
  return rawEvents(responsesStream([streamItem], { model: REAL_MODEL, usage }));
}

/** The same as vLLM frames it on the Chat Completions wire. */
function realChatEvents(item: RealItem): string[] {
  const parts: ChatPart[] = item.kind === "text" ? item.pieces.map((content) => ({ content })) : [{
    tool_call: {
      index: 0,
      id: "call_write_1mb",
      name: item.name,
      arguments: item.pieces.join(""),
      deltas: item.pieces,
    },
  }];
  return rawEvents(
    chatStream("vllm", parts, { usage: { prompt_tokens: 1200, completion_tokens: item.pieces.length } }),
  );
}

/** The same as api.anthropic.com frames it on the Messages wire. */
function realMessagesEvents(item: RealItem): string[] {
  const part = item.kind === "text"
    ? { type: "text" as const, deltas: item.pieces }
    : { type: "tool_use" as const, id: "toolu_01WriteOneMegabyte", name: item.name, deltas: item.pieces };
  return messagesStream([part], { input_tokens: 1200, output_tokens: item.pieces.length });
}

const rawEvents = (events: SseItem[]): string[] => events.map((event) => String((event as { raw: string }).raw));

/** `count` one-token pieces (about four bytes each), as a tokenizer would cut an English answer. */
function tokenPieces(count: number): string[] {
  return Array.from({ length: count }, (_, index) => ` w${index % 10}x`);
}

/** The JSON arguments of a `write` of `bytes` bytes, cut into pieces of about four bytes. */
function writePieces(bytes: number): { content: string; pieces: string[] } {
  const content = "0123456789abcdef\n".repeat(Math.ceil(bytes / 17)).slice(0, bytes);
  const args = JSON.stringify({ path: "big.txt", content, mode: "replace" });
  const pieces: string[] = [];
  for (let start = 0; start < args.length; start += 4) pieces.push(args.slice(start, start + 4));
  return { content, pieces };
}

// ---- a lean protocol client: counts deltas without parsing them ----

// Events are read as untyped wire JSON; the benchmark checks only the fields it counts.
// deno-lint-ignore no-explicit-any
type Event = { type: string; [key: string]: any };
const DELTA_PREFIX = '{"type":"assistant.delta"';

class Client {
  readonly child: ChildProcess;
  deltas = 0;
  firstDeltaAt = 0;
  lastDeltaAt = 0;
  #partial = "";
  #events: Event[] = [];
  #waiters: Array<() => void> = [];
  sessionId = "";

  constructor(command: string[], env: Record<string, string>) {
    this.child = spawn(process.execPath, [...command, "server", "--stdio"], {
      cwd: ROOT,
      env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.child.stdout!.setEncoding("utf8");
    this.child.stdout!.on("data", (chunk: string) => this.#onData(chunk));
    this.child.stderr!.resume();
  }

  #onData(chunk: string): void {
    const lines = (this.#partial + chunk).split("\n");
    this.#partial = lines.pop()!;
    const now = performance.now();
    for (const line of lines) {
      if (line.startsWith(DELTA_PREFIX)) {
        if (this.deltas === 0) this.firstDeltaAt = now;
        this.deltas += 1;
        this.lastDeltaAt = now;
        continue;
      }
      this.#events.push(JSON.parse(line) as Event);
    }
    for (const wake of this.#waiters.splice(0)) wake();
  }

  send(message: Record<string, unknown>): void {
    this.child.stdin!.write(`${JSON.stringify(message)}\n`);
  }

  async next(types: string[], timeoutMs = STEP_TIMEOUT_MS): Promise<Event> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const index = this.#events.findIndex((event) => types.includes(event.type));
      if (index >= 0) return this.#events.splice(0, index + 1).at(-1)!;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${types.join("|")}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 1000);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Resolves when the delta counter reaches `count`. */
  async deltasReach(count: number): Promise<void> {
    while (this.deltas < count) {
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  async start(fields: Record<string, unknown>): Promise<void> {
    this.send({ type: "initialize", request_id: "i", protocol_version: 3, client: { name: "bench", version: "0" } });
    await this.next(["initialized"]);
    this.sessionFields = fields;
  }

  sessionFields: Record<string, unknown> = {};

  async session(): Promise<void> {
    this.send({ type: "session.start", request_id: "s", ...this.sessionFields });
    const started = await this.next(["session.started", "error"]);
    if (started.type !== "session.started") throw new Error(`session.start failed: ${JSON.stringify(started)}`);
    this.sessionId = started.session_id;
    await this.next(["queue.snapshot"]);
  }

  turn(prompt: string): void {
    this.send({ type: "turn.start", request_id: "t", session_id: this.sessionId, prompt });
  }

  approve(approvalId: string): void {
    this.send({
      type: "approval.resolve",
      request_id: "a",
      session_id: this.sessionId,
      approval_id: approvalId,
      approved: true,
    });
  }

  async terminal(): Promise<Event> {
    const end = await this.next(["turn.completed", "turn.failed", "turn.cancelled"]);
    if (end.type !== "turn.completed") throw new Error(`turn ended with ${JSON.stringify(end)}`);
    return end;
  }

  /** VmRSS, or another kB field of /proc/<pid>/status (RssAnon: heaps and malloc; RssFile: mapped code), in MB. */
  rssMb(field = "VmRSS"): number {
    const status = readFileSync(`/proc/${this.child.pid}/status`, "utf8");
    return round(Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)![1]) / 1024, 1);
  }

  cpuMs(): number {
    const fields = readFileSync(`/proc/${this.child.pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10; // clock ticks at 100 Hz
  }

  async close(): Promise<void> {
    const exited = new Promise((resolve) => this.child.once("exit", resolve));
    this.child.stdin!.end();
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 5000);
    await exited;
    clearTimeout(timer);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ---- the runs ----

function makeWorkspace(providerUrl: string): { root: string; env: Record<string, string>; workspace: string } {
  const root = mkdtempSync(path.join(tmpdir(), "scv-bench-server-"));
  const home = path.join(root, "home");
  const workspace = path.join(root, "workspace");
  mkdirSync(home, { mode: 0o700 });
  mkdirSync(workspace);
  writeFileSync(path.join(workspace, "a.txt"), "alpha\n".repeat(100));
  // The realistic 1 MB write replaces this file (once per wire).
  writeFileSync(path.join(workspace, "big.txt"), "");
  const config = [
    'provider_active = "responses"',
    "[providers.responses]",
    'kind = "openai-compatible"',
    'model = "bench-model"',
    `base_url = ${JSON.stringify(providerUrl)}`,
    'api_key = "bench"',
    "[providers.chat]",
    'kind = "openai-compatible"',
    'wire_api = "chat"',
    'model = "bench-model"',
    `base_url = ${JSON.stringify(providerUrl)}`,
    'api_key = "bench"',
    "[providers.messages]",
    'kind = "anthropic"',
    'model = "bench-model"',
    `base_url = ${JSON.stringify(providerUrl)}`,
    'api_key = "bench"',
    "[provider_limits]",
    "max_response_bytes = 67108864",
    // A 1 MB write: its arguments, the Responses events that repeat them whole, and the frames that carry them.
    "max_tool_arguments_bytes = 2097152",
    "max_sse_event_bytes = 4194304",
    "[protocol]",
    "max_server_frame_bytes = 16777216",
    // A turn holding a 1 MB write is ~350k tokens at 3 bytes per token.
    "[context]",
    "max_tokens = 1100000",
    "",
  ].join("\n");
  const configPath = path.join(home, "config.toml");
  writeFileSync(configPath, config);
  chmodSync(configPath, 0o600);
  const env: Record<string, string> = { PATH: process.env.PATH ?? "", HOME: root, SCV_HOME: home, SCV_LOG: "error" };
  // Lets runtime experiments reach the server only (not this client): MALLOC_ARENA_MAX=2, or
  // SCV_BENCH_NODE_OPTIONS=--max-semi-space-size=2 (the server's NODE_OPTIONS).
  if (process.env.MALLOC_ARENA_MAX !== undefined) env.MALLOC_ARENA_MAX = process.env.MALLOC_ARENA_MAX;
  if (process.env.SCV_BENCH_NODE_OPTIONS !== undefined) env.NODE_OPTIONS = process.env.SCV_BENCH_NODE_OPTIONS;
  return { root, env, workspace };
}

async function measureTarget(command: string[]): Promise<Record<string, unknown>> {
  const provider = new FastProvider();
  await provider.listen();
  const { root, env, workspace } = makeWorkspace(provider.url);
  try {
    // Responses: initialize, RSS, latency turns, the big turn, idle CPU, exec.
    const client = new Client(command, env);
    await client.start({ cwd: workspace });
    await sleep(300);
    const rssAfterInitialize = client.rssMb();
    const rssAfterInitializeAnon = client.rssMb("RssAnon");
    await client.session();
    const rssAfterSession = client.rssMb();
    const rssAfterSessionAnon = client.rssMb("RssAnon");

    const overheads: number[] = [];
    const totals: number[] = [];
    const toRequest: number[] = [];
    const fromFirstByte: number[] = [];
    // Warm-up turns (JIT, lazily loaded modules, first connections) are not counted.
    for (let i = 0; i < WARMUP_TURNS; i++) {
      provider.push(responsesText(1));
      client.turn(`warm-up ${i}`);
      await client.terminal();
    }
    for (let i = 0; i < TURNS; i++) {
      provider.push(responsesText(1));
      const before = client.deltas;
      const sentAt = performance.now();
      client.turn(`turn ${i}`);
      await client.deltasReach(before + 1);
      const total = client.firstDeltaAt === 0 ? 0 : client.lastDeltaAt - sentAt;
      await client.terminal();
      const timing = provider.timings.at(-1)!;
      totals.push(total);
      overheads.push(total - (timing.firstByteAt - timing.receivedAt));
      toRequest.push(timing.receivedAt - sentAt);
      fromFirstByte.push(client.lastDeltaAt - timing.firstByteAt);
    }
    for (const samples of [overheads, totals, toRequest, fromFirstByte]) samples.sort((a, b) => a - b);
    await sleep(300);
    const rssAfterTurns = client.rssMb();
    const rssAfterTurnsAnon = client.rssMb("RssAnon");

    const responses = await bigTurn(client, provider, responsesText(DELTAS));
    await sleep(300);
    const rssAfterBigTurn = client.rssMb();
    const rssAfterBigTurnAnon = client.rssMb("RssAnon");

    await sleep(500);
    const cpuBefore = client.cpuMs();
    await sleep(IDLE_SECONDS * 1000);
    const idleCpuMs = client.cpuMs() - cpuBefore;

    const exec = await execCells(client, provider);
    const rssAfterExec = client.rssMb();
    const rssAfterExecAnon = client.rssMb("RssAnon");
    await client.close();

    // Chat Completions: a second process (one session per connection) on the chat profile.
    const chatClient = new Client(command, env);
    await chatClient.start({ cwd: workspace, provider: "chat" });
    await chatClient.session();
    const chat = await bigTurn(chatClient, provider, chatText(DELTAS));
    await chatClient.close();

    // Anthropic Messages: a third process on the messages profile.
    const messagesClient = new Client(command, env);
    await messagesClient.start({ cwd: workspace, provider: "messages" });
    await messagesClient.session();
    const messages = await bigTurn(messagesClient, provider, messagesText(DELTAS));
    await messagesClient.close();

    const realistic: Record<string, unknown> = {};
    for (const wire of ["responses", "chat", "messages"] as const) {
      const realClient = new Client(command, env);
      await realClient.start({ cwd: workspace, provider: wire });
      await realClient.session();
      realistic[wire] = await realisticTurns(realClient, provider, wire, workspace);
      await realClient.close();
    }

    return {
      first_delta_overhead_ms: {
        p50: round(percentile(overheads, 50)),
        p90: round(percentile(overheads, 90)),
        turns: TURNS,
      },
      first_delta_end_to_end_ms: { p50: round(percentile(totals, 50)), p90: round(percentile(totals, 90)) },
      // The overhead's two parts: turn.start sent → request fully received; first byte written → delta read.
      first_delta_parts_p50_ms: {
        to_provider_request: round(percentile(toRequest, 50)),
        first_byte_to_delta: round(percentile(fromFirstByte, 50)),
      },
      responses,
      chat,
      messages,
      realistic,
      rss_mb: {
        after_initialize: rssAfterInitialize,
        after_session_start: rssAfterSession,
        [`after_${TURNS + WARMUP_TURNS}_turns`]: rssAfterTurns,
        after_big_turn: rssAfterBigTurn,
        after_exec: rssAfterExec,
      },
      // The anonymous part of the same figures (the rest is the runtime's mapped binary and libraries).
      rss_anon_mb: {
        after_initialize: rssAfterInitializeAnon,
        after_session_start: rssAfterSessionAnon,
        [`after_${TURNS + WARMUP_TURNS}_turns`]: rssAfterTurnsAnon,
        after_big_turn: rssAfterBigTurnAnon,
        after_exec: rssAfterExecAnon,
      },
      idle_cpu_ms: { value: idleCpuMs, seconds: IDLE_SECONDS },
      exec,
    };
  } finally {
    await provider.close();
    rmSync(root, { recursive: true, force: true });
  }
}

async function bigTurn(
  client: Client,
  provider: FastProvider,
  reply: Reply,
  expected = DELTAS,
): Promise<Record<string, number>> {
  provider.push(reply);
  const before = client.deltas;
  const sentAt = performance.now();
  client.turn("stream");
  await client.terminal();
  const endAt = performance.now();
  const received = client.deltas - before;
  if (received !== expected) throw new Error(`expected ${expected} deltas, received ${received}`);
  return {
    deltas: received,
    turn_ms: round(endAt - sentAt, 1),
    deltas_per_second: Math.round(received / ((endAt - sentAt) / 1000)),
  };
}

/** A `--answer-tokens` answer, then a `--write-bytes` write (approved, checked on disk), both with real framing. */
type Wire = "responses" | "chat" | "messages";

const REAL_EVENTS: Record<Wire, (item: RealItem) => string[]> = {
  responses: realResponsesEvents,
  chat: realChatEvents,
  messages: realMessagesEvents,
};
const ONE_DELTA: Record<Wire, () => Reply> = {
  responses: () => responsesText(1),
  chat: () => chatText(1),
  messages: () => messagesText(1),
};

async function realisticTurns(client: Client, provider: FastProvider, wire: Wire, workspace: string) {
  const build = REAL_EVENTS[wire];
  const answerEvents = build({ kind: "text", pieces: tokenPieces(ANSWER_TOKENS) });
  const answerWire = answerEvents.reduce((sum, event) => sum + Buffer.byteLength(event), 0);
  const answer = await bigTurn(client, provider, sseReply(answerEvents), ANSWER_TOKENS);

  const { content, pieces } = writePieces(WRITE_BYTES);
  const writeEvents = build({ kind: "call", name: "write", pieces });
  const writeWire = writeEvents.reduce((sum, event) => sum + Buffer.byteLength(event), 0);
  provider.push(sseReply(writeEvents));
  provider.push(ONE_DELTA[wire]());
  const sentAt = performance.now();
  client.turn("write the big file");
  const approval = await client.next(["approval.requested"]);
  client.approve(approval.approval_id);
  const completed = await client.next(["tool.completed"]);
  if (!completed.success) throw new Error(`write failed: ${completed.output}`);
  await client.terminal();
  const writeMs = performance.now() - sentAt;
  if (readFileSync(path.join(workspace, "big.txt"), "utf8") !== content) throw new Error("the written file differs");
  return {
    answer: { ...answer, wire_mb: round(answerWire / 1048576, 1) },
    write: {
      bytes: WRITE_BYTES,
      argument_deltas: pieces.length,
      wire_mb: round(writeWire / 1048576, 1),
      turn_ms: round(writeMs, 1),
    },
  };
}

async function execCells(client: Client, provider: FastProvider): Promise<Record<string, unknown>> {
  const code =
    `let bytes = 0;\nfor (let i = 0; i < ${CALLS}; i++) bytes += (await tools.read({ path: "a.txt" })).total_bytes;\ntext(bytes);`;
  const rounds: number[] = [];
  for (const label of ["cold", "warm"]) {
    provider.push(responsesToolCall(`exec_${label}`, "exec", { code }));
    provider.push(responsesText(1));
    client.turn(`exec ${label}`);
    await client.next(["tool.started"]);
    const startedAt = performance.now();
    let completed = await client.next(["tool.completed"]);
    // Skip the nested calls' completions (`exec_<label>:tool-<k>`).
    while (completed.call_id !== `exec_${label}`) completed = await client.next(["tool.completed"]);
    const ms = performance.now() - startedAt;
    if (!completed.success) throw new Error(`exec cell failed: ${completed.output}`);
    await client.terminal();
    rounds.push(ms);
  }
  return {
    nested_calls: CALLS,
    cold_ms: round(rounds[0]!, 1),
    warm_ms: round(rounds[1]!, 1),
    cold_calls_per_second: Math.round(CALLS / (rounds[0]! / 1000)),
    warm_calls_per_second: Math.round(CALLS / (rounds[1]! / 1000)),
  };
}

/**
 * The provider's own per-delta cost, in-process: the SSE decoder and a wire's stream state over a realistic
 * stream cut into 64 KiB reads (as sockets deliver them). Best of three runs, deltas/s.
 */
async function parseRate(wire: Wire): Promise<Record<string, number>> {
  const limits = {
    max_sse_event_bytes: 4194304,
    max_response_bytes: 67108864,
    max_assistant_bytes: 1048576,
    max_tool_calls: 32,
    max_tool_arguments_bytes: 262144,
    max_retries: 0,
  };
  const body = Buffer.from(REAL_EVENTS[wire]({ kind: "text", pieces: tokenPieces(ANSWER_TOKENS) }).join(""));
  let best = Infinity;
  for (let run = 0; run < 3; run++) {
    let deltas = 0;
    const onDelta = () => void (deltas += 1);
    const state = wire === "responses"
      ? new ResponsesStreamState(limits, "k", onDelta)
      : wire === "chat"
      ? new ChatStreamState(limits, "k", onDelta, 1)
      : new MessagesStreamState(limits, "k", onDelta);
    const decoder = new SseDecoder(limits.max_sse_event_bytes);
    const startedAt = performance.now();
    for (let offset = 0; offset < body.length && !state.finished; offset += 65536) {
      for (const message of decoder.push(body.subarray(offset, offset + 65536))) {
        await state.handle(message);
        if (state.finished) break;
      }
    }
    const response = await state.finish(decoder.leftover());
    const ms = performance.now() - startedAt;
    if (deltas !== ANSWER_TOKENS || response.text.length === 0) throw new Error(`parse ${wire}: ${deltas} deltas`);
    best = Math.min(best, ms);
  }
  return {
    deltas: ANSWER_TOKENS,
    wire_mb: round(body.length / 1048576, 1),
    best_ms: round(best, 1),
    deltas_per_second: Math.round(ANSWER_TOKENS / (best / 1000)),
  };
}

const targets: Array<{ name: string; command: string[] }> = [];
if (TARGET === "main" || TARGET === "both")
  targets.push({ name: "node main.ts", command: [path.join(ROOT, "main.ts")] });
if ((TARGET === "bundle" || TARGET === "both") && existsSync(BUNDLE))
  targets.push({ name: "node dist/scv.cjs", command: [BUNDLE] });

const results: Record<string, unknown> = {};
results.parse = {
  responses: await parseRate("responses"),
  chat: await parseRate("chat"),
  messages: await parseRate("messages"),
};
for (const target of targets) results[target.name] = await measureTarget(target.command);
printJson({
  benchmark: "server",
  node: process.version,
  goals: {
    first_delta_overhead_p50_ms: "<= 2",
    deltas_per_second: ">= 100000",
    parse_deltas_per_second: ">= 100000",
    realistic: "the 100k-token answer and the 1 MB write complete on the three wires",
    rss_after_initialize_mb: "<= 70",
    idle_cpu_ms_over_5_s: "<= 20",
  },
  results,
});
