// The offline provider: a tiny HTTP server on 127.0.0.1 that replays a recorded script of Responses SSE events,
// one scripted response per model request, in order. The session's real provider code talks to it over HTTP.
// Script formats (see examples/README.md):
//   JSON   {"prompts"?: [...], "model"?: s, "delay_ms"?: n, "responses": [[event, …] | {"events": [event, …], "delay_ms"?: n}, …]}
//          or just the array of responses;
//   NDJSON one SSE event object per line; a response ends after each `response.completed`, `response.failed`,
//          `response.incomplete` or `error` event.
import { readFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";

export type ReplayEvent = Record<string, unknown> & { type: string };
export type ReplayResponse = {
  events: ReplayEvent[];
  delayMs?: number;
  /** Served only when the request offers this tool (else skipped); lets one script cover builds with and without it. */
  requiresTool?: string;
  /** Served only when the request does NOT offer this tool (else skipped). */
  unlessTool?: string;
};
export type ReplayScript = {
  prompts: string[];
  responses: ReplayResponse[];
  delayMs?: number;
  /** The recorded model: the script's `model`, else the first `response.model` of its events. */
  model?: string;
};

const TERMINAL_EVENTS = new Set(["response.completed", "response.failed", "response.incomplete", "error"]);

export class ReplayScriptError extends Error {
  override name = "ReplayScriptError";
}

function isEvent(value: unknown): value is ReplayEvent {
  return value !== null && typeof value === "object" && !Array.isArray(value) &&
    typeof (value as { type?: unknown }).type === "string";
}

function parseResponse(value: unknown, index: number): ReplayResponse {
  const events = Array.isArray(value) ? value : (value as { events?: unknown } | null)?.events;
  if (!Array.isArray(events) || !events.every(isEvent)) {
    throw new ReplayScriptError(`response ${index + 1} must be a list of SSE event objects, each with a string "type"`);
  }
  if (Array.isArray(value)) return { events };
  const record = value as { delay_ms?: unknown; requires_tool?: unknown; unless_tool?: unknown };
  const response: ReplayResponse = { events };
  if (typeof record.delay_ms === "number") response.delayMs = record.delay_ms;
  if (typeof record.requires_tool === "string") response.requiresTool = record.requires_tool;
  if (typeof record.unless_tool === "string") response.unlessTool = record.unless_tool;
  return response;
}

/** The first `response.model` a recorded event carries (`response.created`, `response.completed`, …). */
function recordedModel(responses: ReplayResponse[]): string | undefined {
  for (const response of responses) {
    for (const event of response.events) {
      const model = (event.response as { model?: unknown } | null | undefined)?.model;
      if (typeof model === "string" && model.trim() !== "") return model.trim();
    }
  }
  return undefined;
}

function withModel(script: ReplayScript, declared?: unknown): ReplayScript {
  const model = typeof declared === "string" && declared.trim() !== ""
    ? declared.trim()
    : recordedModel(script.responses);
  return model === undefined ? script : { ...script, model };
}

export function parseReplayScript(text: string): ReplayScript {
  let whole: unknown;
  let isJson = true;
  try {
    whole = JSON.parse(text);
  } catch {
    isJson = false;
  }
  if (isJson) {
    if (Array.isArray(whole)) return withModel({ prompts: [], responses: whole.map(parseResponse) });
    const record = whole as { prompts?: unknown; responses?: unknown; delay_ms?: unknown; model?: unknown } | null;
    if (!record || typeof record !== "object" || !Array.isArray(record.responses)) {
      throw new ReplayScriptError('a JSON replay script must be an array of responses or an object with "responses"');
    }
    const prompts = record.prompts ?? [];
    if (!Array.isArray(prompts) || !prompts.every((prompt) => typeof prompt === "string")) {
      throw new ReplayScriptError('"prompts" must be a list of strings');
    }
    if (record.model !== undefined && typeof record.model !== "string") {
      throw new ReplayScriptError('"model" must be a string');
    }
    return withModel({
      prompts,
      responses: record.responses.map(parseResponse),
      delayMs: typeof record.delay_ms === "number" ? record.delay_ms : undefined,
    }, record.model);
  }
  const responses: ReplayResponse[] = [];
  let current: ReplayEvent[] = [];
  text.split("\n").forEach((line, index) => {
    if (line.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new ReplayScriptError(`line ${index + 1} is not JSON: ${(error as Error).message}`);
    }
    if (!isEvent(value))
      throw new ReplayScriptError(`line ${index + 1} must be an SSE event object with a string "type"`);
    current.push(value);
    if (TERMINAL_EVENTS.has(value.type)) {
      responses.push({ events: current });
      current = [];
    }
  });
  if (current.length > 0) responses.push({ events: current });
  return withModel({ prompts: [], responses });
}

export async function loadReplayScript(path: string): Promise<ReplayScript> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new ReplayScriptError(`read replay script ${path}: ${(error as Error).message}`);
  }
  try {
    return parseReplayScript(text);
  } catch (error) {
    throw new ReplayScriptError(`replay script ${path}: ${(error as Error).message}`);
  }
}

export type ReplayServer = {
  /** `http://127.0.0.1:<port>/v1` */
  url: string;
  /** The headers of every request received, in order (tests check that no real credential arrives). */
  requestHeaders(): http.IncomingHttpHeaders[];
  close(): Promise<void>;
};

export function encodeSseEvent(event: ReplayEvent): string {
  return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

function sendJson(response: http.ServerResponse, status: number, message: string): void {
  const body = JSON.stringify({ error: { message, type: "invalid_request_error" } });
  response.writeHead(status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) });
  response.end(body);
}

/** Serves `script.responses` in order; once they run out, each request fails with HTTP 400 (never retried). */
export async function startReplayServer(
  script: ReplayScript,
  options: { delayMs?: number } = {},
): Promise<ReplayServer> {
  let next = 0;
  const received: http.IncomingHttpHeaders[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.add(timer);
    });

  const toolNames = (body: string): Set<string> => {
    try {
      const tools = (JSON.parse(body) as { tools?: Array<{ name?: unknown }> }).tools;
      return new Set((tools ?? []).map((tool) => String(tool.name)));
    } catch {
      return new Set();
    }
  };
  const server = http.createServer((request, response) => {
    received.push(request.headers);
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      void (async () => {
        if (request.method !== "POST" || !request.url?.endsWith("/responses")) {
          sendJson(
            response,
            404,
            'the replay provider serves only POST <base_url>/responses (set wire_api = "responses")',
          );
          return;
        }
        const offered = toolNames(Buffer.concat(chunks).toString("utf8"));
        const applies = (candidate: ReplayResponse) =>
          (candidate.requiresTool === undefined || offered.has(candidate.requiresTool)) &&
          (candidate.unlessTool === undefined || !offered.has(candidate.unlessTool));
        while (script.responses[next] && !applies(script.responses[next]!)) next += 1;
        const scripted = script.responses[next];
        if (!scripted) {
          sendJson(response, 400, `replay script has no response left (it holds ${script.responses.length})`);
          return;
        }
        next += 1;
        response.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" });
        const delay = scripted.delayMs ?? script.delayMs ?? options.delayMs ?? 0;
        for (const event of scripted.events) {
          if (delay > 0) await sleep(delay);
          if (response.destroyed) return;
          response.write(encodeSseEvent(event));
        }
        response.end();
      })();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requestHeaders: () => [...received],
    close() {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
