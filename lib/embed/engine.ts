// A client of the server engine over an in-process pair of streams: messages go in as NDJSON through the shared
// codec, events come back the same way, exactly as `scv server --stdio` would carry them.
import { PassThrough } from "node:stream";
import { MAX_FRAME_BYTES, NdjsonWriter, readNdjson } from "../codec/index.ts";
import {
  type ClientEvent,
  type ClientMessage,
  type ClientRequest,
  type EventOf,
  PROTOCOL_VERSION,
} from "../protocol/index.ts";
import type { Logger } from "../util/log.ts";
import { type ServeResult, type ServerOptions, serveStdio } from "../server/index.ts";
import { VERSION } from "../version.ts";

/** What a client sees: the server's events, and the end of the connection. */

export type SessionRequest = {
  cwd: string;
  /** The folder the user works in, inside `cwd` (AGENTS.md files are read down to it). */
  working_folder?: string;
  model?: string;
  provider?: string;
  no_tools?: boolean;
  /** Resume this stored session instead of starting one (docs/sessions.md). */
  resume?: string;
  /** Resume the most recent stored session of `cwd` (an EngineError `session_not_found` when there is none). */
  continue?: boolean;
};

/** No stored session to continue in the workspace. */
export const NO_SESSION_TO_CONTINUE = "no earlier session in this workspace to continue";

/** Messages about stored sessions, which name their session themselves. */
type StoredRequest = {
  [T in "session.list" | "session.resume" | "session.fork" | "session.delete"]: Omit<
    Extract<ClientMessage, { type: T }>,
    "request_id"
  >;
}["session.list" | "session.resume" | "session.fork" | "session.delete"];

/** The engine answered a request with an `error` event. */
export class EngineError extends Error {
  override name = "EngineError";
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

type Listener = (event: ClientEvent) => void;

export class EngineClient {
  readonly #input = new PassThrough();
  readonly #output = new PassThrough();
  readonly #writer = new NdjsonWriter(this.#input);
  readonly #listeners = new Set<Listener>();
  readonly #serving: Promise<ServeResult>;
  readonly #reading: Promise<void>;
  #nextId = 1;
  #closed = false;
  sessionId = "";
  /** The `session.started` event, once the session is up. */
  session: EventOf<"session.started"> | undefined;

  constructor(options: ServerOptions, log: Logger) {
    this.#serving = serveStdio(this.#input, this.#output, options, log);
    // The engine never ends its output stream itself (stdout stays open in the server CLI): end it here once the
    // engine stops, on its own (a fatal error) or after close(), so the reader and the listeners see the end.
    const endOutput = () => this.#output.end();
    this.#serving.then(endOutput, endOutput);
    this.#reading = this.#read();
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Calls `listener` for every event; returns the unsubscribe function. */
  subscribe(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Sends a client message, adding its `request_id` (and the session id when there is one); returns the id. */
  async send(message: ClientRequest): Promise<string> {
    if (this.#input.writableEnded) throw new Error(`cannot send ${message.type}: the engine connection is closed`);
    const request_id = `c${this.#nextId++}`;
    const withSession = this.sessionId && message.type !== "initialize" && message.type !== "session.start"
      ? { session_id: this.sessionId, ...message }
      : message;
    const { type, ...fields } = withSession;
    await this.#writer.write({ type, request_id, ...fields });
    return request_id;
  }

  /** Sends a message about a stored session (it carries its own `session_id`); returns the request id. */
  async sendStored(message: StoredRequest): Promise<string> {
    if (this.#input.writableEnded) throw new Error(`cannot send ${message.type}: the engine connection is closed`);
    const request_id = `c${this.#nextId++}`;
    const { type, ...fields } = message;
    await this.#writer.write({ type, request_id, ...fields });
    return request_id;
  }

  /** Sends a stored-session message and resolves with its reply; an `error` reply rejects with EngineError. */
  async requestStored(message: StoredRequest): Promise<ClientEvent> {
    const id = `c${this.#nextId}`;
    const reply = this.waitFor((event) => "request_id" in event && event.request_id === id);
    await this.sendStored(message);
    const event = await reply;
    if (event.type === "error") throw new EngineError(event.code, event.message);
    return event;
  }

  /** `initialize` alone, for a connection that only lists or forks stored sessions. */
  async initialize(): Promise<void> {
    const id = `c${this.#nextId}`;
    const reply = this.waitFor((event) => "request_id" in event && event.request_id === id);
    await this.send({
      type: "initialize",
      protocol_version: PROTOCOL_VERSION,
      client: { name: "scv-chat", version: VERSION },
    });
    const event = await reply;
    if (event.type === "error") throw new EngineError(event.code, event.message);
  }

  /**
   * Sends a message that nobody waits on (turn.cancel, approval.resolve), e.g. from a signal handler: when the
   * connection has closed meanwhile there is nobody left to tell, so the message is dropped instead of rejecting.
   */
  notify(message: ClientRequest): void {
    this.send(message).catch(() => {});
  }

  /** Sends a request and resolves with its reply: the first event echoing its request id. */
  async request(message: ClientRequest): Promise<ClientEvent> {
    const id = `c${this.#nextId}`;
    const reply = this.waitFor((event) => "request_id" in event && event.request_id === id);
    await this.send(message);
    return reply;
  }

  /** Resolves with the first event matching `predicate` from now on. */
  waitFor<E extends ClientEvent>(predicate: (event: ClientEvent) => event is E): Promise<E>;
  waitFor(predicate: (event: ClientEvent) => boolean): Promise<ClientEvent>;
  waitFor(predicate: (event: ClientEvent) => boolean): Promise<ClientEvent> {
    if (this.#closed) return Promise.reject(new Error("the engine connection closed"));
    return new Promise((resolve, reject) => {
      const unsubscribe = this.subscribe((event) => {
        if (event.type === "engine.closed") {
          unsubscribe();
          reject(new Error("the engine connection closed"));
        } else if (predicate(event)) {
          unsubscribe();
          resolve(event);
        }
      });
    });
  }

  /** `initialize` then `session.start`; rejects with EngineError when the engine refuses either. */
  async start(request: SessionRequest): Promise<EventOf<"session.started">> {
    const reply = (id: string) => this.waitFor((event) => "request_id" in event && event.request_id === id);
    const initId = `c${this.#nextId}`;
    const initialized = reply(initId);
    await this.send({
      type: "initialize",
      protocol_version: PROTOCOL_VERSION,
      client: { name: "scv-chat", version: VERSION },
    });
    const init = await initialized;
    if (init.type === "error") throw new EngineError(init.code, init.message);
    if (init.type !== "initialized") throw new Error(`the engine answered initialize with ${init.type}`);
    let resume = request.resume;
    if (request.continue === true && resume === undefined) {
      const listId = `c${this.#nextId}`;
      const listed = reply(listId);
      await this.sendStored({ type: "session.list", cwd: request.cwd, limit: 1 });
      const list = await listed;
      if (list.type === "error") throw new EngineError(list.code, list.message);
      if (list.type !== "sessions.listed") throw new Error(`the engine answered session.list with ${list.type}`);
      resume = list.sessions[0]?.session_id;
      if (resume === undefined) throw new EngineError("session_not_found", NO_SESSION_TO_CONTINUE);
    }
    const startId = `c${this.#nextId}`;
    const started = reply(startId);
    const { resume: _resume, continue: _continue, ...start } = request;
    if (resume === undefined) await this.send({ type: "session.start", ...start });
    else {
      const { cwd: _cwd, ...options } = start;
      await this.sendStored({ type: "session.resume", session_id: resume, ...options });
    }
    const event = await started;
    if (event.type === "error") throw new EngineError(event.code, event.message);
    if (event.type !== "session.started") throw new Error(`the engine answered session.start with ${event.type}`);
    this.sessionId = event.session_id;
    this.session = event;
    return event;
  }

  /** Ends the connection like stdin EOF: the engine cancels any turn and shuts down. */
  async close(): Promise<ServeResult> {
    this.#input.end();
    const result = await this.#serving;
    await this.#reading;
    return result;
  }

  async #read(): Promise<void> {
    try {
      for await (const item of readNdjson(this.#output, { maxLineBytes: MAX_FRAME_BYTES })) {
        if (!item.ok) continue;
        // The engine is our own server: what it writes is a ServerEvent.
        const event = item.value as ClientEvent;
        for (const listener of [...this.#listeners]) listener(event);
      }
    } finally {
      this.#closed = true;
      for (const listener of [...this.#listeners]) listener({ type: "engine.closed" });
    }
  }
}

/** The stored sessions of `cwd` (all when undefined), newest first, through a short-lived engine connection. */
export async function listStoredSessions(
  options: ServerOptions,
  log: Logger,
  cwd: string | undefined,
): Promise<EventOf<"sessions.listed">["sessions"]> {
  const engine = new EngineClient(options, log);
  try {
    await engine.initialize();
    const listed = await engine.requestStored(
      cwd === undefined ? { type: "session.list", all: true } : { type: "session.list", cwd },
    );
    return listed.type === "sessions.listed" ? listed.sessions : [];
  } finally {
    await engine.close();
  }
}

/** A client already started and subscribed; `emit` receives every event including the handshake's. */
export async function openEngine(
  options: ServerOptions,
  log: Logger,
  request: SessionRequest,
  emit: Listener,
): Promise<EngineClient> {
  const engine = new EngineClient(options, log);
  engine.subscribe(emit);
  try {
    await engine.start(request);
  } catch (error) {
    await engine.close();
    throw error;
  }
  return engine;
}
