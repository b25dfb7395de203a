// A scripted model provider for tests: a real HTTP/1.1 server on 127.0.0.1, speaking the Responses, Chat Completions
// and Anthropic Messages wires (whatever is scripted: every model request takes the next reply).
//
// It is written on node:net rather than node:http so that tests see exactly what went over
// the wire (the request line, whether the body was chunked, whether head and body arrived
// together) and can script malformed replies: cuts mid-body, hangs, raw SSE bytes.
// Each connection serves one request and the reply always carries `Connection: close`.
import net from "node:net";
import { hangDeadline } from "./wait.ts";

/** One SSE event: a JSON object (written as `event: <type>` + `data: <json>`) or raw text/bytes. */
export type SseItem = Record<string, unknown> | { raw: string | Uint8Array };

export type SseResponse = {
  events: SseItem[];
  status?: number;
  headers?: Record<string, string>;
  /**
   * `content-length` (default, the spec's harness mode): the whole body at once with
   * `Content-Length` + `Connection: close`. `chunked`: one chunk per event, `delayMs` apart.
   */
  mode?: "content-length" | "chunked";
  delayMs?: number;
  /** Milliseconds to wait before writing the status line. */
  headerDelayMs?: number;
  /** `close` (default) ends cleanly; `destroy` cuts the connection after the events; `hang` keeps it open. */
  end?: "close" | "destroy" | "hang";
  /** Omit the `event:` line for JSON events (the seeds' replay fixture does). */
  omitEventLine?: boolean;
};

export type HttpResponse = {
  status: number;
  reason?: string;
  body?: string | Record<string, unknown>;
  headers?: Record<string, string>;
};

export type FakeResponse = SseResponse | HttpResponse;

export type RecordedRequest = {
  method: string;
  path: string;
  requestLine: string;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  rawBody: string;
  /** The parsed JSON body, or undefined when it was not JSON. Untyped: the tests check its shape by assertion. */
  // deno-lint-ignore no-explicit-any
  body: any;
  chunked: boolean;
  /** True when the head and the whole body arrived in the first read from the socket. */
  arrivedInOneRead: boolean;
};

export type FakeProvider = {
  /** `http://127.0.0.1:PORT/v1` */
  url: string;
  port: number;
  /** Model requests (`POST …/responses`, `POST …/chat/completions`, anything not a lookup), in order. */
  requests: RecordedRequest[];
  /**
   * Context-window lookups (any GET, and Ollama's `POST /api/show`): answered from `routes` by path (default
   * 404), never from the script, and recorded here rather than in `requests`.
   */
  lookups: RecordedRequest[];
  /** Sets the reply to lookups of `path` (e.g. `/v1/models`, `/props`, `/api/show`). */
  route(
    path: string,
    response: HttpResponse | ((request: RecordedRequest) => HttpResponse | Promise<HttpResponse>),
  ): void;
  /** Appends responses to the script. */
  push(...responses: FakeResponse[]): void;
  /** Resolves once `count` requests have been fully received; rejects after the hang deadline. */
  waitForRequests(count: number, atLeastMs?: number): Promise<RecordedRequest[]>;
  /** Number of TCP connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
};

const EXHAUSTED: HttpResponse = {
  status: 500,
  body: { error: { message: "fake provider script exhausted", type: "server_error" } },
};

/** `port`: listen there instead of a free port (e.g. Ollama's 11434); rejects when it is taken. */
export async function startFakeProvider(
  script: FakeResponse[] = [],
  options: { port?: number } = {},
): Promise<FakeProvider> {
  const queue = [...script];
  const requests: RecordedRequest[] = [];
  const lookups: RecordedRequest[] = [];
  const routes = new Map<string, HttpResponse | ((request: RecordedRequest) => HttpResponse | Promise<HttpResponse>)>();
  const sockets = new Set<net.Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const waiters: Array<() => void> = [];
  let accepted = 0;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.add(timer);
    });

  const server = net.createServer((socket) => {
    accepted += 1;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    readRequest(socket)
      .then(async (request) => {
        if (!request) return;
        if (isLookup(request)) {
          lookups.push(request);
          const route = routes.get(request.path) ?? NOT_FOUND;
          await respond(socket, typeof route === "function" ? await route(request) : route, sleep);
          return;
        }
        requests.push(request);
        for (const wake of waiters.splice(0)) wake();
        const response = queue.shift() ?? EXHAUSTED;
        await respond(socket, response, sleep);
      })
      .catch(() => socket.destroy());
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as net.AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    lookups,
    route: (path, response) => void routes.set(path, response),
    push: (...responses) => void queue.push(...responses),
    connections: () => accepted,
    waitForRequests(count, atLeastMs) {
      return new Promise((resolve, reject) => {
        const deadline = setTimeout(
          () => reject(new Error(`fake provider saw ${requests.length} of ${count} requests`)),
          hangDeadline(atLeastMs),
        );
        const check = () => {
          if (requests.length >= count) {
            clearTimeout(deadline);
            resolve(requests);
          } else {
            waiters.push(check);
          }
        };
        check();
      });
    },
    close() {
      for (const timer of timers) clearTimeout(timer);
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

const NOT_FOUND: HttpResponse = { status: 404, body: { error: "not found" } };

function isLookup(request: RecordedRequest): boolean {
  return request.method === "GET" || request.path.endsWith("/api/show");
}

function readRequest(socket: net.Socket): Promise<RecordedRequest | undefined> {
  return new Promise((resolve, reject) => {
    let buffer = Buffer.alloc(0);
    let reads = 0;
    const onData = (chunk: Buffer) => {
      reads += 1;
      buffer = Buffer.concat([buffer, chunk]);
      const headEnd = buffer.indexOf("\r\n\r\n");
      if (headEnd < 0) return;
      const head = buffer.subarray(0, headEnd).toString("latin1");
      const [requestLine = "", ...headerLines] = head.split("\r\n");
      const headers: Record<string, string> = {};
      for (const line of headerLines) {
        const colon = line.indexOf(":");
        if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      const rest = buffer.subarray(headEnd + 4);
      const chunked = /chunked/i.test(headers["transfer-encoding"] ?? "");
      let body: Buffer | undefined;
      if (chunked) {
        body = decodeChunked(rest);
      } else {
        const length = Number(headers["content-length"] ?? "0");
        if (rest.length >= length) body = rest.subarray(0, length);
      }
      if (!body) return;
      socket.off("data", onData);
      const [method = "", path = ""] = requestLine.split(" ");
      const rawBody = body.toString("utf8");
      let parsed: unknown;
      try {
        parsed = JSON.parse(rawBody);
      } catch {
        parsed = undefined;
      }
      resolve({
        method,
        path,
        requestLine,
        headers,
        rawBody,
        body: parsed,
        chunked,
        arrivedInOneRead: reads === 1,
      });
    };
    socket.on("data", onData);
    socket.once("end", () => resolve(undefined));
    socket.once("error", reject);
  });
}

/** Returns the decoded body once the terminating zero-size chunk has arrived. */
function decodeChunked(data: Buffer): Buffer | undefined {
  const parts: Buffer[] = [];
  let offset = 0;
  for (;;) {
    const lineEnd = data.indexOf("\r\n", offset);
    if (lineEnd < 0) return undefined;
    const size = Number.parseInt(data.subarray(offset, lineEnd).toString("latin1"), 16);
    if (Number.isNaN(size)) throw new Error("bad chunk size");
    const start = lineEnd + 2;
    if (size === 0) return Buffer.concat(parts);
    if (data.length < start + size + 2) return undefined;
    parts.push(data.subarray(start, start + size));
    offset = start + size + 2;
  }
}

async function respond(
  socket: net.Socket,
  response: FakeResponse,
  sleep: (ms: number) => Promise<void>,
): Promise<void> {
  if (!("events" in response)) {
    const body = response.body === undefined
      ? ""
      : typeof response.body === "string"
      ? response.body
      : JSON.stringify(response.body);
    const headers = { "Content-Type": "application/json", ...response.headers };
    socket.end(head(response.status, response.reason, headers, Buffer.byteLength(body)) + body);
    return;
  }
  if (response.headerDelayMs) await sleep(response.headerDelayMs);
  if (socket.destroyed) return;
  const chunks = response.events.map((item) => encodeSse(item, response.omitEventLine ?? false));
  const headers = { "Content-Type": "text/event-stream", ...response.headers };
  const status = response.status ?? 200;
  const finish = () => {
    if (response.end === "destroy") socket.destroy();
    else if (response.end !== "hang") socket.end();
  };
  if ((response.mode ?? "content-length") === "content-length") {
    const body = Buffer.concat(chunks);
    const declared = body.length;
    // A cut body still declares its full length, so the client sees a short read.
    socket.write(
      Buffer.concat([
        Buffer.from(head(status, undefined, headers, response.end === "destroy" ? declared + 64 : declared)),
        body,
      ]),
    );
    finish();
    return;
  }
  socket.write(head(status, undefined, { ...headers, "Transfer-Encoding": "chunked" }));
  for (const chunk of chunks) {
    if (response.delayMs) await sleep(response.delayMs);
    if (socket.destroyed) return;
    const bytes = chunk;
    socket.write(`${bytes.length.toString(16)}\r\n`);
    socket.write(bytes);
    socket.write("\r\n");
  }
  if (response.end === "destroy") socket.destroy();
  else if (response.end !== "hang") socket.end("0\r\n\r\n");
}

function head(status: number, reason: string | undefined, headers: Record<string, string>, length?: number) {
  const lines = [`HTTP/1.1 ${status} ${reason ?? REASONS[status] ?? "Unknown"}`];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  if (length !== undefined) lines.push(`Content-Length: ${length}`);
  lines.push("Connection: close");
  return lines.join("\r\n") + "\r\n\r\n";
}

const REASONS: Record<number, string> = {
  200: "OK",
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  429: "Too Many Requests",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
  529: "Site Overloaded",
};

export function encodeSse(item: SseItem, omitEventLine = false): Buffer {
  if ("raw" in item && (typeof item.raw === "string" || item.raw instanceof Uint8Array)) return Buffer.from(item.raw);
  const eventType = (item as Record<string, unknown>).type;
  const type = typeof eventType === "string" && !omitEventLine ? `event: ${eventType}\n` : "";
  return Buffer.from(`${type}data: ${JSON.stringify(item)}\n\n`);
}

// ---- Responses API event builders ----

export const sse = {
  textDelta: (delta: string) => ({ type: "response.output_text.delta", delta }),
  argumentsDelta: (delta: string, outputIndex = 0) => ({
    type: "response.function_call_arguments.delta",
    output_index: outputIndex,
    delta,
  }),
  callDone: (callId: string, name: string, outputIndex = 0) => ({
    type: "response.output_item.done",
    output_index: outputIndex,
    item: { type: "function_call", call_id: callId, name },
  }),
  /** Arguments delta + output_item.done for one complete call. */
  toolCall: (callId: string, name: string, args: unknown, outputIndex = 0) => [
    sse.argumentsDelta(JSON.stringify(args), outputIndex),
    sse.callDone(callId, name, outputIndex),
  ],
  completed: (usage?: { input_tokens?: number; output_tokens?: number }) => ({
    type: "response.completed",
    response: usage ? { usage } : {},
  }),
  error: (message: string, type = "invalid_request_error", code?: string) => ({
    type: "error",
    error: { type, message, ...(code ? { code } : {}) },
  }),
  failed: (message: string, code?: string) => ({
    type: "response.failed",
    response: { error: { message, ...(code ? { code } : {}) } },
  }),
  incomplete: (reason?: string) => ({
    type: "response.incomplete",
    response: reason ? { incomplete_details: { reason } } : {},
  }),
  done: () => ({ raw: "data: [DONE]\n\n" }),
};

/** A text-only reply streamed as one delta per piece, then `response.completed`. */
export function textResponse(
  pieces: string[],
  usage?: { input_tokens?: number; output_tokens?: number },
  options: Omit<SseResponse, "events"> = {},
): SseResponse {
  return { ...options, events: [...pieces.map(sse.textDelta), sse.completed(usage)] };
}

/** A reply calling tools in order (output indexes 0, 1, …), then `response.completed`. */
export function toolCallResponse(
  calls: Array<{ call_id: string; name: string; arguments: unknown }>,
  options: Omit<SseResponse, "events"> = {},
): SseResponse {
  return {
    ...options,
    events: [
      ...calls.flatMap((call, index) => sse.toolCall(call.call_id, call.name, call.arguments, index)),
      sse.completed(),
    ],
  };
}

// ---- Chat Completions chunk builders (spec §8.3) ----

export type ChatToolCallFragment = {
  index?: number;
  id?: string;
  type?: string;
  /** Becomes `function.name`. */
  name?: string;
  /** Becomes `function.arguments`: a string fragment, or an object as some servers send. */
  arguments?: string | Record<string, unknown>;
};

function chatChunk(choices: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { id: "chatcmpl-fake", object: "chat.completion.chunk", created: 0, model: "fake-model", choices, ...extra };
}

export const chat = {
  /** One chunk whose choice 0 carries `delta` (and a finish_reason, null by default). */
  delta: (delta: Record<string, unknown>, finishReason: string | null = null, index = 0) =>
    chatChunk([{ index, delta, finish_reason: finishReason }]),
  text: (content: string) => chat.delta({ content }),
  toolCalls: (...fragments: ChatToolCallFragment[]) =>
    chat.delta({
      tool_calls: fragments.map(({ name, arguments: args, ...rest }) => {
        const fn: Record<string, unknown> = {};
        if (name !== undefined) fn.name = name;
        if (args !== undefined) fn.arguments = args;
        return { ...rest, ...(Object.keys(fn).length > 0 ? { function: fn } : {}) };
      }),
    }),
  finish: (reason = "stop") => chat.delta({}, reason),
  /** The final `"choices":[]` usage chunk of `stream_options.include_usage`. */
  usage: (promptTokens: number, completionTokens: number) =>
    chatChunk([], {
      usage: {
        prompt_tokens: promptTokens,
        completion_tokens: completionTokens,
        total_tokens: promptTokens + completionTokens,
      },
    }),
  error: (message: string, type = "invalid_request_error", code?: string) => ({
    error: { message, type, ...(code ? { code } : {}) },
  }),
  done: () => ({ raw: "data: [DONE]\n\n" }),
};

/** A chat text reply: one chunk per piece, finish_reason stop, the usage chunk when given, then `[DONE]`. */
export function chatTextResponse(
  pieces: string[],
  usage?: { prompt_tokens: number; completion_tokens: number },
  options: Omit<SseResponse, "events"> = {},
): SseResponse {
  const tail = usage ? [chat.usage(usage.prompt_tokens, usage.completion_tokens)] : [];
  return { ...options, events: [...pieces.map(chat.text), chat.finish("stop"), ...tail, chat.done()] };
}

/** A chat reply calling tools (indexes 0, 1, …): id and name first, then the arguments, finish_reason tool_calls, `[DONE]`. */
export function chatToolCallResponse(
  calls: Array<{ call_id: string; name: string; arguments: unknown }>,
  options: Omit<SseResponse, "events"> = {},
): SseResponse {
  return {
    ...options,
    events: [
      ...calls.flatMap((call, index) => [
        chat.toolCalls({ index, id: call.call_id, type: "function", name: call.name, arguments: "" }),
        chat.toolCalls({ index, arguments: JSON.stringify(call.arguments) }),
      ]),
      chat.finish("tool_calls"),
      chat.done(),
    ],
  };
}

// ---- Anthropic Messages event builders ----

type MessagesUsage = {
  input_tokens?: number;
  output_tokens?: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
};

export const messages = {
  start: (usage: MessagesUsage = { input_tokens: 10, output_tokens: 1 }, id = "msg_fake") => ({
    type: "message_start",
    message: {
      id,
      type: "message",
      role: "assistant",
      model: "fake-model",
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage,
    },
  }),
  textStart: (index: number) => ({ type: "content_block_start", index, content_block: { type: "text", text: "" } }),
  text: (index: number, text: string) => ({ type: "content_block_delta", index, delta: { type: "text_delta", text } }),
  thinkingStart: (index: number) => ({
    type: "content_block_start",
    index,
    content_block: { type: "thinking", thinking: "", signature: "" },
  }),
  thinking: (index: number, thinking: string) => ({
    type: "content_block_delta",
    index,
    delta: { type: "thinking_delta", thinking },
  }),
  signature: (index: number, signature: string) => ({
    type: "content_block_delta",
    index,
    delta: { type: "signature_delta", signature },
  }),
  redacted: (index: number, data: string) => ({
    type: "content_block_start",
    index,
    content_block: { type: "redacted_thinking", data },
  }),
  toolStart: (index: number, id: string, name: string) => ({
    type: "content_block_start",
    index,
    content_block: { type: "tool_use", id, name, input: {} },
  }),
  inputJson: (index: number, partial_json: string) => ({
    type: "content_block_delta",
    index,
    delta: { type: "input_json_delta", partial_json },
  }),
  blockStop: (index: number) => ({ type: "content_block_stop", index }),
  delta: (stopReason: string, usage: MessagesUsage = { output_tokens: 5 }) => ({
    type: "message_delta",
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage,
  }),
  stop: () => ({ type: "message_stop" }),
  ping: () => ({ type: "ping" }),
  error: (type: string, message: string) => ({ type: "error", error: { type, message } }),
};

/** A Messages text reply: one text block, a delta per piece, `end_turn`, `message_stop`. */
export function messagesTextResponse(
  pieces: string[],
  usage?: MessagesUsage,
  options: Omit<SseResponse, "events"> = {},
): SseResponse {
  return {
    ...options,
    events: [
      messages.start(usage),
      messages.textStart(0),
      ...pieces.map((piece) => messages.text(0, piece)),
      messages.blockStop(0),
      messages.delta("end_turn"),
      messages.stop(),
    ],
  };
}

/** A Messages reply calling tools: one tool-use block each (its input in one delta), `tool_use`, `message_stop`. */
export function messagesToolCallResponse(
  calls: Array<{ call_id: string; name: string; arguments: unknown }>,
  options: Omit<SseResponse, "events"> = {},
): SseResponse {
  return {
    ...options,
    events: [
      messages.start(),
      ...calls.flatMap((call, index) => [
        messages.toolStart(index, call.call_id, call.name),
        messages.inputJson(index, JSON.stringify(call.arguments)),
        messages.blockStop(index),
      ]),
      messages.delta("tool_use"),
      messages.stop(),
    ],
  };
}
