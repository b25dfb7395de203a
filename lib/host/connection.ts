// One code-mode host connection (host spec §4–§8): the handshake, the request-id registry,
// sessions, cells over the sandbox, delegates and limits. Transport-free: a transport feeds it
// decoded frames (or read errors) and writes the frames it emits.
import { encodeFrame, FrameError } from "../codec/index.ts";
import { OutputBudget, type Sandbox, type SandboxSession, type ToolDefinition } from "../sandbox/index.ts";
import { type CachedCatalog, resolveCatalog } from "./catalog.ts";
import { Delegates } from "./delegates.ts";
import type { HostLimits } from "./limits.ts";
import { type FrameSink, Outbox } from "./outbox.ts";
import { missingCellResponse, type OutputPolicy, runtimeResponse } from "./output.ts";
import {
  type ClientHello,
  type ClientMessage,
  clientMessage,
  err,
  type HostRequest,
  initialResponse,
  LARGE_DELEGATE_CAPACITY,
  ok,
  operationResponse,
  PROTOCOL_VERSION,
  type WireResult,
} from "./protocol.ts";
import { RecentSet } from "./recent_set.ts";
import { type ActiveRequest, duplicateRequestMessage, RequestRegistry } from "./request_registry.ts";
import { DecodeError } from "./schema.ts";
import { raceAbort } from "../util/abort.ts";

export const MAX_RECENT_SESSION_IDS = 4096;
const SHUTDOWN_STEP_MS = 5_000;

const SHUTTING_DOWN = "code-mode host is shutting down";
const REQUEST_CANCELLED = "code-mode request cancelled";

export interface ConnectionOutcome {
  /** `null` for a clean close (EOF, a handshake rejection); else the fatal message chain. */
  error: string | null;
}

export interface ConnectionOptions {
  sink: FrameSink;
  sandbox: Sandbox;
  limits: HostLimits;
  /** Diagnostics (stderr); never frames. */
  log: (line: string) => void;
}

interface HostSession {
  id: string;
  sandbox: SandboxSession;
  output: OutputPolicy;
  catalog: CachedCatalog | null;
  /** Live cells until their `cell/closed` was queued. */
  cells: Map<string, LiveCell>;
  /** Set by `session/shutdown`: `cell/closed` frames then wait for every observer's answer. */
  shuttingDown: boolean;
}

interface LiveCell {
  /** Settles when the sandbox closed the cell and pending observer answers were queued. */
  over: Promise<void>;
  /** Queues `cell/closed` and releases the active-cell permit (once). */
  close(): void;
}

type Phase = "hello" | "ready" | "closing" | "closed";

export class HostConnection {
  readonly #sandbox: Sandbox;
  readonly #limits: HostLimits;
  readonly #outbox: Outbox;
  /** Cell output waiting in this host for this client: undelivered items and queued frames. */
  readonly #budget: OutputBudget;
  readonly #requests = new RequestRegistry();
  readonly #sessions = new Map<string, HostSession>();
  readonly #seenSessions = new RecentSet<string>(MAX_RECENT_SESSION_IDS);
  readonly #delegates: Delegates;
  #phase: Phase = "hello";
  #resolveDone!: (outcome: ConnectionOutcome) => void;
  readonly done: Promise<ConnectionOutcome>;

  constructor(options: ConnectionOptions) {
    this.#sandbox = options.sandbox;
    this.#limits = options.limits;
    this.#budget = new OutputBudget(options.limits.maxBufferedOutputBytes);
    this.#outbox = new Outbox(
      options.sink,
      { maxFrames: options.limits.maxOutgoingFrames, maxBytes: options.limits.maxOutgoingBytes },
      (message) => this.fail(message),
      this.#budget,
    );
    this.done = new Promise((resolve) => (this.#resolveDone = resolve));
    this.#delegates = new Delegates(options.limits.maxPendingDelegates, {
      isOpen: () => this.#phase === "ready",
      push: (frame) => this.#outbox.push(frame),
      send: (message) => this.#send(message),
      log: options.log,
    });
  }

  /** True once the connection wants no more input. */
  get finished(): boolean {
    return this.#phase === "closing" || this.#phase === "closed";
  }

  // ---- input -------------------------------------------------------------------------------

  /** One decoded frame payload from the transport. */
  receive(payload: unknown): void {
    if (this.finished) return;
    let message: ClientMessage;
    try {
      message = clientMessage.parse(payload);
      if (message.type === "connection/hello") validateHello(message);
    } catch (error) {
      if (!(error instanceof DecodeError)) throw error;
      this.readFailed(new FrameError(`failed to decode code-mode IPC frame: ${error.message}`));
      return;
    }
    try {
      this.#dispatch(message);
    } catch (error) {
      // A failure while handling a well-formed frame is an internal task failure (host spec §11),
      // not a read error.
      const task = message.type === "delegate/response"
        ? "code-mode cell forwarding task failed"
        : "code-mode request task failed";
      this.fail(`${task}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  #dispatch(message: ClientMessage): void {
    if (this.#phase === "hello") {
      this.#handshake(message);
      return;
    }
    switch (message.type) {
      case "connection/hello":
        this.fail("received a second code-mode client hello");
        return;
      case "operation/request":
        this.#startRequest(message.id, message.request);
        return;
      case "operation/cancel": {
        const active = this.#requests.active.get(message.id);
        if (active && (active.kind === "wait" || (active.kind === "execute" && !active.observe))) active.cancel.abort();
        return;
      }
      case "operation/yield": {
        const active = this.#requests.active.get(message.id);
        if (active && (active.kind === "wait" || active.kind === "execute")) active.observe?.yieldNow();
        return;
      }
      case "delegate/response":
        this.#delegates.answer(message.id, message.result);
        return;
    }
  }

  /** The transport could not read or decode a frame: fatal, with the spec's wrapping. */
  readFailed(error: unknown): void {
    const cause = error instanceof Error ? error.message : String(error);
    const stage = this.#phase === "hello"
      ? "failed to read code-mode client hello"
      : "failed to read code-mode client message";
    this.fail(`${stage}: ${cause}`);
  }

  /** EOF at a frame boundary: close gracefully (host spec §11). */
  endOfInput(): void {
    if (this.finished) return;
    void this.#closeGracefully();
  }

  /** A fatal error: no further frames, everything torn down, `done` resolves at once. */
  fail(message: string): void {
    if (this.#phase === "closed") return;
    this.#phase = "closed";
    this.#outbox.stop();
    this.#resolveDone({ error: message });
    this.#teardown();
  }

  // ---- handshake ---------------------------------------------------------------------------

  #handshake(message: ClientMessage): void {
    if (message.type !== "connection/hello") {
      this.#reject({ type: "invalidHello", message: "first message must be connection/hello" });
      return;
    }
    if (!message.supportedVersions.includes(PROTOCOL_VERSION)) {
      this.#reject({ type: "noCompatibleVersion", supportedVersions: [PROTOCOL_VERSION] });
      return;
    }
    for (const capability of [...message.requiredCapabilities].sort(compareStrings)) {
      if (!this.#limits.capabilities.has(capability)) {
        this.#reject({ type: "missingRequiredCapability", capability });
        return;
      }
    }
    const granted = [...new Set([...message.requiredCapabilities, ...message.optionalCapabilities])]
      .filter((capability) => this.#limits.capabilities.has(capability))
      .sort(compareStrings);
    if (granted.includes(LARGE_DELEGATE_CAPACITY)) this.#delegates.max = this.#limits.maxLargePendingDelegates;
    this.#phase = "ready";
    this.#send({ type: "connection/ready", selectedVersion: PROTOCOL_VERSION, capabilities: granted });
  }

  #reject(reason: Record<string, unknown>): void {
    this.#send({ type: "connection/rejected", reason });
    this.#phase = "closing";
    void this.#outbox.flushed().then(() => this.#finish());
  }

  // ---- requests ----------------------------------------------------------------------------

  #startRequest(id: bigint, request: HostRequest): void {
    if (this.#requests.isKnown(id)) {
      this.fail(duplicateRequestMessage(id));
      return;
    }
    const start = process.hrtime.bigint();
    const active: ActiveRequest = { kind: requestKind(request), cancel: new AbortController() };
    this.#requests.start(id, active);
    const release = this.#limits.inFlight.tryAcquire();
    if (release === null) {
      this.#respond(id, err("code-mode host has too many in-flight requests"));
      this.#requests.finish(id);
      return;
    }
    const finish = (): void => {
      release();
      this.#requests.finish(id);
    };
    const failed = (error: unknown): void => {
      finish();
      this.fail(`code-mode request task failed: ${error instanceof Error ? error.message : String(error)}`);
    };
    let pending: Promise<void> | void;
    try {
      pending = this.#run(id, request, active, start);
    } catch (error) {
      failed(error);
      return;
    }
    // Requests that complete synchronously release their permit at once, so that a batch of
    // many small requests read in one chunk cannot exhaust the in-flight limit by itself.
    if (pending) pending.then(finish, failed);
    else finish();
  }

  #run(id: bigint, request: HostRequest, active: ActiveRequest, start: bigint): Promise<void> | void {
    if (this.#phase !== "ready" && request.method !== "session/open") {
      this.#respond(id, err(SHUTTING_DOWN));
      return;
    }
    // Synchronous admission errors keep a burst of bad requests from holding in-flight permits.
    // The reference checks the execute budget before the session (scripts/conformance).
    if (request.method === "session/execute") {
      const budget = request.request.max_output_tokens;
      if (budget !== null && budget < 0) {
        this.#respond(id, err("invalid code-mode execute request: number too small to fit in target type"));
        return;
      }
    }
    if (request.method === "session/open") {
      this.#open(id, request);
      return;
    }
    const session = this.#sessions.get(request.sessionId);
    if (!session) {
      this.#respond(id, err(`unknown code-mode session ${request.sessionId}`));
      return;
    }
    switch (request.method) {
      case "session/execute":
        return this.#execute(id, session, request.request, active, start);
      case "session/wait":
        return this.#wait(id, session, request, active, start);
      case "session/terminate":
        return this.#terminate(id, session, request, start);
      case "session/shutdown":
        return this.#shutdownSession(id, session);
    }
  }

  #open(id: bigint, request: Extract<HostRequest, { method: "session/open" }>): void {
    const sessionId = request.sessionId;
    if (this.#sessions.has(sessionId)) {
      this.#respond(id, err(`code-mode session ID \`${sessionId}\` is already open`));
      return;
    }
    if (this.#phase !== "ready") {
      this.#respond(id, err(SHUTTING_DOWN));
      return;
    }
    if (this.#seenSessions.has(sessionId)) {
      this.#respond(id, err(`code-mode session ID \`${sessionId}\` was reused`));
      return;
    }
    this.#seenSessions.add(sessionId);
    const limits = request.cellExecutionLimits;
    const sandbox = this.#sandbox.openSession({
      maxYieldTimeMs: limits?.maxYieldTimeMs ?? null,
      maxHeapSizeBytes: limits?.maxHeapSizeBytes ?? null,
    }, this.#budget);
    this.#sessions.set(sessionId, {
      id: sessionId,
      sandbox,
      output: { mode: request.outputTruncation ?? "client" },
      catalog: null,
      cells: new Map(),
      shuttingDown: false,
    });
    this.#respond(id, ok({ type: "session/ready", sessionId }));
  }

  async #execute(
    id: bigint,
    session: HostSession,
    body: Extract<HostRequest, { method: "session/execute" }>["request"],
    active: ActiveRequest,
    start: bigint,
  ): Promise<void> {
    const catalog = resolveCatalog(session, body.catalog_revision, body.enabled_tools);
    if (!catalog.ok) {
      this.#respond(id, err(catalog.message));
      return;
    }
    if (active.cancel.signal.aborted) {
      this.#respond(id, err(REQUEST_CANCELLED));
      return;
    }
    const releaseCell = this.#limits.activeCells.tryAcquire();
    if (releaseCell === null) {
      this.#respond(id, err("code-mode host has too many active cells"));
      return;
    }

    // Delegates wait until `execution/started` was queued; after that (the hot path) they go out at once.
    let isStarted = false;
    let announced!: () => void;
    const started = new Promise<void>((resolve) => (announced = resolve));
    const sessionId = session.id;
    const callId = body.tool_call_id;
    const cell = session.sandbox.startCell({
      source: body.source,
      tools: catalog.tools as ToolDefinition[],
      yieldTimeMs: body.yield_time_ms,
      callbacks: {
        callTool: (call, signal) =>
          isStarted
            ? this.#delegates.callTool(sessionId, call, signal)
            : started.then(() => this.#delegates.callTool(sessionId, call, signal)),
        notify: async (text, cellId) => {
          await started;
          return this.#delegates.notify(sessionId, callId, cellId, text);
        },
      },
    });
    const cellId = cell.id;
    active.observe = { yieldNow: () => session.sandbox.yieldNow(cellId) };
    this.#respond(id, ok({ type: "execution/started", cellId }));
    isStarted = true;
    announced();

    let isClosed = false;
    const live: LiveCell = {
      over: cell.closed.then(
        () => afterPendingCallbacks(),
        () => afterPendingCallbacks(),
      ),
      close: () => {
        if (isClosed) return;
        isClosed = true;
        session.cells.delete(cellId);
        releaseCell();
        this.#send({ type: "cell/closed", sessionId, cellId });
      },
    };
    session.cells.set(cellId, live);
    void live.over.then(() => {
      if (!session.shuttingDown) live.close();
    });

    let result: WireResult;
    let completed = false;
    try {
      const observation = await cell.initial;
      completed = observation.kind === "result";
      result = ok(runtimeResponse(observation, session.output, body.max_output_tokens, start));
    } catch (error) {
      result = err(
        typeof error === "string" ? error : error instanceof Error ? error.message : "exec runtime ended unexpectedly",
      );
    }
    this.#sendOrReplace(
      initialResponse(id, result),
      (tooLarge) => initialResponse(id, err(`code-mode initial response exceeds the IPC frame limit: ${tooLarge}`)),
    );
    // A Result delivered to the execute is the cell's last event: close it in the same write.
    if (completed && !session.shuttingDown) live.close();
  }

  async #wait(
    id: bigint,
    session: HostSession,
    request: Extract<HostRequest, { method: "session/wait" }>,
    active: ActiveRequest,
    start: bigint,
  ): Promise<void> {
    const cellId = request.request.cell_id;
    const signal = active.cancel.signal;
    active.observe = { yieldNow: () => session.sandbox.yieldNow(cellId) };
    const outcome = await raceAbort(
      session.sandbox.wait(cellId, request.request.yield_time_ms, signal),
      signal,
      (): typeof ABORTED => ABORTED,
    );
    if (outcome === ABORTED) {
      this.#respond(id, err(REQUEST_CANCELLED));
      return;
    }
    this.#respondOutcome(id, session, cellId, outcome, request.maxOutputTokens, start);
  }

  async #terminate(
    id: bigint,
    session: HostSession,
    request: Extract<HostRequest, { method: "session/terminate" }>,
    start: bigint,
  ): Promise<void> {
    const outcome = await session.sandbox.terminate(request.cellId);
    this.#respondOutcome(id, session, request.cellId, outcome, request.maxOutputTokens, start);
  }

  #respondOutcome(
    id: bigint,
    session: HostSession,
    cellId: string,
    outcome: Awaited<ReturnType<SandboxSession["wait"]>>,
    budget: number | null,
    start: bigint,
  ): void {
    let result: WireResult;
    let completed = false;
    if (outcome.kind === "observation") {
      completed = outcome.observation.kind === "result";
      result = ok({
        type: "wait/completed",
        outcome: { LiveCell: runtimeResponse(outcome.observation, session.output, budget, start) },
      });
    } else if (outcome.kind === "missing") {
      result = ok({
        type: "wait/completed",
        outcome: { MissingCell: missingCellResponse(cellId, outcome.errorText, session.output, budget, start) },
      });
    } else {
      result = err(outcome.message);
    }
    this.#respond(id, result);
    // A delivered Result is the cell's last event: no other observer can be waiting for it.
    if (completed && !session.shuttingDown) session.cells.get(cellId)?.close();
  }

  async #shutdownSession(id: bigint, session: HostSession): Promise<void> {
    const sessionId = session.id;
    this.#sessions.delete(sessionId);
    session.shuttingDown = true;
    await session.sandbox.close();
    const cells = [...session.cells.entries()].sort(([a], [b]) => compareCellIds(a, b));
    await Promise.all(cells.map(([, cell]) => cell.over));
    for (const [, cell] of cells) cell.close();
    this.#respond(id, ok({ type: "session/closed", sessionId }));
  }

  // ---- output ------------------------------------------------------------------------------

  #send(message: unknown): void {
    this.#sendOrReplace(message, null);
  }

  #respond(id: bigint, result: WireResult): void {
    this.#sendOrReplace(
      operationResponse(id, result),
      (tooLarge) => operationResponse(id, err(`code-mode host response exceeds the IPC frame limit: ${tooLarge}`)),
    );
  }

  /** Encodes and queues a frame; an oversize frame is replaced by `fallback(<frame error>)` if given. */
  #sendOrReplace(message: unknown, fallback: ((tooLarge: string) => unknown) | null): void {
    if (this.#outbox.stopped || this.#phase === "closed") return;
    let frame: Buffer;
    try {
      frame = encodeFrame(message);
    } catch (error) {
      if (!(error instanceof FrameError) || fallback === null) throw error;
      frame = encodeFrame(fallback(error.message));
    }
    this.#outbox.push(frame);
  }

  // ---- shutdown ----------------------------------------------------------------------------

  async #closeGracefully(): Promise<void> {
    this.#phase = "closing";
    // Like the reference host, nothing more is sent once the client closed its side.
    this.#outbox.seal();
    for (const active of this.#requests.active.values()) active.cancel.abort();
    const sessions = [...this.#sessions.values()];
    this.#sessions.clear();
    this.#delegates.closeAll();
    await withTimeout(Promise.all(sessions.map((session) => session.sandbox.close())), SHUTDOWN_STEP_MS);
    await withTimeout(this.#outbox.flushed(), SHUTDOWN_STEP_MS);
    this.#finish();
  }

  #finish(): void {
    if (this.#phase === "closed") return;
    this.#phase = "closed";
    this.#outbox.stop();
    this.#resolveDone({ error: null });
    this.#teardown();
  }

  #teardown(): void {
    for (const active of this.#requests.active.values()) active.cancel.abort();
    this.#delegates.closeAll();
    const sessions = [...this.#sessions.values()];
    this.#sessions.clear();
    for (const session of sessions) void session.sandbox.close().catch(() => undefined);
  }
}

function requestKind(request: HostRequest): ActiveRequest["kind"] {
  switch (request.method) {
    case "session/open":
      return "open";
    case "session/execute":
      return "execute";
    case "session/wait":
      return "wait";
    case "session/terminate":
      return "terminate";
    case "session/shutdown":
      return "shutdown";
  }
}

/** The hello's own validation rules (host spec §3.2); failures are decode errors. */
function validateHello(hello: ClientHello): void {
  if (hello.supportedVersions.length === 0) throw new DecodeError("at least one protocol version is required");
  const versions = new Set<number>();
  for (const version of hello.supportedVersions) {
    if (version === 0) throw new DecodeError("invalid value: integer `0`, expected a nonzero u32");
    if (versions.has(version)) throw new DecodeError(`duplicate protocol version ${version}`);
    versions.add(version);
  }
  const required = new Set<string>();
  for (const capability of hello.requiredCapabilities) {
    if (required.has(capability)) throw new DecodeError(`duplicate capability \`${capability}\``);
    required.add(capability);
  }
  const optional = new Set<string>();
  for (const capability of hello.optionalCapabilities) {
    if (optional.has(capability)) throw new DecodeError(`duplicate capability \`${capability}\``);
    if (required.has(capability)) {
      throw new DecodeError(`capability \`${capability}\` cannot be both required and optional`);
    }
    optional.add(capability);
  }
}

function compareCellIds(a: string, b: string): number {
  return a.length - b.length || compareStrings(a, b);
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Lets continuations of observations resolved in the same turn run first. */
function afterPendingCallbacks(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

const ABORTED: unique symbol = Symbol("aborted");

function withTimeout(promise: Promise<unknown>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    timer.unref();
    promise.then(
      () => {
        clearTimeout(timer);
        resolve();
      },
      () => {
        clearTimeout(timer);
        resolve();
      },
    );
  });
}
