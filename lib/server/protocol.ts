// The agent protocol (server spec §3–§5), written once: client message validation and server event builders.
// Builders put every field in wire order; `seq` is a placeholder the EventWriter overwrites in place when it writes
// the event, so the key order stays the one below.
import type { TurnFailureCode } from "../agent/turn.ts";

export const PROTOCOL_VERSION = 3;
export const SERVER_NAME = "scv-server";

export type PeerInfo = { name: string; version: string };

export type ClientMessage =
  | { type: "initialize"; request_id: string; protocol_version: number; client: PeerInfo }
  | {
      type: "session.start";
      request_id: string;
      cwd: string;
      provider?: string;
      model?: string;
      base_url?: string;
      no_tools?: boolean;
      delegation_depth?: number;
      auto_approve?: boolean;
    }
  | { type: "session.attach"; request_id: string; session_id: string; cwd: string }
  | { type: "turn.start"; request_id: string; session_id: string; prompt: string }
  | { type: "queue.update"; request_id: string; session_id: string; queue_id: string; revision: number; prompt: string }
  | {
      type: "queue.move";
      request_id: string;
      session_id: string;
      queue_id: string;
      revision: number;
      before_queue_id: string | null;
    }
  | { type: "queue.remove"; request_id: string; session_id: string; queue_id: string; revision: number }
  | { type: "session.pause"; request_id: string; session_id: string; paused: boolean }
  | { type: "turn.cancel"; request_id: string; session_id: string; turn_id: string }
  | { type: "approval.resolve"; request_id: string; session_id: string; approval_id: string; approved: boolean }
  | { type: "session.clear"; request_id: string; session_id: string }
  // Additive (issue 15): change a running session's approval policy and/or model; the history stays.
  | { type: "session.configure"; request_id: string; session_id: string; approval_policy?: string; model?: string }
  | { type: "daemon.control"; request_id: string; command: Record<string, unknown> };

export type ClientMessageType = ClientMessage["type"];

type FieldKind = "string" | "u32" | "u64" | "bool" | "object" | "string_or_null" | "peer";
type FieldSpec = { kind: FieldKind; optional?: boolean };

const S = { kind: "string" } as const;
const SESSION = { session_id: S } as const;

const MESSAGE_FIELDS: Record<ClientMessageType, Record<string, FieldSpec>> = {
  initialize: { protocol_version: { kind: "u32" }, client: { kind: "peer" } },
  "session.start": {
    cwd: S,
    provider: { kind: "string", optional: true },
    model: { kind: "string", optional: true },
    base_url: { kind: "string", optional: true },
    no_tools: { kind: "bool", optional: true },
    delegation_depth: { kind: "u32", optional: true },
    auto_approve: { kind: "bool", optional: true },
  },
  "session.attach": { ...SESSION, cwd: S },
  "turn.start": { ...SESSION, prompt: S },
  "queue.update": { ...SESSION, queue_id: S, revision: { kind: "u64" }, prompt: S },
  "queue.move": { ...SESSION, queue_id: S, revision: { kind: "u64" }, before_queue_id: { kind: "string_or_null" } },
  "queue.remove": { ...SESSION, queue_id: S, revision: { kind: "u64" } },
  "session.pause": { ...SESSION, paused: { kind: "bool" } },
  "turn.cancel": { ...SESSION, turn_id: S },
  "approval.resolve": { ...SESSION, approval_id: S, approved: { kind: "bool" } },
  "session.clear": { ...SESSION },
  "session.configure": { ...SESSION, approval_policy: { kind: "string", optional: true }, model: { kind: "string", optional: true } },
  "daemon.control": { command: { kind: "object" } },
};

export type ParseResult = { ok: true; message: ClientMessage } | { ok: false; detail: string };

const EXPECTED: Record<FieldKind, string> = {
  string: "a string",
  u32: "an unsigned 32-bit integer",
  u64: "an unsigned 64-bit integer",
  bool: "a boolean",
  object: "an object",
  string_or_null: "a string or null",
  peer: "an object with string name and version",
};

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function fits(kind: FieldKind, value: unknown): boolean {
  switch (kind) {
    case "string":
      return typeof value === "string";
    case "u32":
      return Number.isInteger(value) && (value as number) >= 0 && (value as number) <= 0xffff_ffff;
    case "u64":
      return Number.isInteger(value) && (value as number) >= 0;
    case "bool":
      return typeof value === "boolean";
    case "object":
      return isPlainObject(value);
    case "string_or_null":
      return value === null || typeof value === "string";
    case "peer":
      return isPlainObject(value) && typeof value.name === "string" && typeof value.version === "string";
  }
}

/**
 * Validates one decoded JSON value as a client message. Unknown extra fields are ignored (and dropped);
 * the `detail` of a failure follows the spec prefix `invalid protocol JSON: `.
 */
export function parseClientMessage(value: unknown): ParseResult {
  if (!isPlainObject(value)) return { ok: false, detail: "expected a JSON object" };
  const type = value.type;
  if (type === undefined) return { ok: false, detail: "missing field `type`" };
  if (typeof type !== "string") return { ok: false, detail: "invalid type for field `type`: expected a string" };
  if (!Object.hasOwn(MESSAGE_FIELDS, type)) return { ok: false, detail: `unknown message type \`${type}\`` };
  const fields: Record<string, FieldSpec> = { request_id: S, ...MESSAGE_FIELDS[type as ClientMessageType] };
  const message: Record<string, unknown> = { type };
  for (const [name, spec] of Object.entries(fields)) {
    const field = value[name];
    if (field === undefined || (field === null && spec.optional)) {
      if (spec.optional) continue;
      return { ok: false, detail: `missing field \`${name}\`` };
    }
    if (!fits(spec.kind, field)) {
      return { ok: false, detail: `invalid type for field \`${name}\`: expected ${EXPECTED[spec.kind]}` };
    }
    message[name] = spec.kind === "peer" ? { name: (field as PeerInfo).name, version: (field as PeerInfo).version } : field;
  }
  return { ok: true, message: message as ClientMessage };
}

// ---- Server events (§4) ----

export type ErrorCode =
  | "invalid_json"
  | "not_initialized"
  | "version_mismatch"
  | "invalid_request"
  | "session_not_found"
  | "turn_active"
  | "turn_not_found"
  | "approval_not_found"
  | "queue_not_found"
  | "queue_conflict"
  | "queue_limit"
  | "unsupported"
  | "internal_error";

export type { TurnFailureCode } from "../agent/turn.ts";

export type QueueEntry = { queue_id: string; revision: number; prompt: string; submitter: string };
export type Usage = { input_tokens?: number; output_tokens?: number };
export type ServerEvent = { type: string; [field: string]: unknown };

/** Identity of a session-scoped event (S-fields). */
export type SessionScope = { request_id: string; session_id: string };
/** Identity of a turn-scoped event (T-fields). */
export type TurnScope = SessionScope & { turn_id: string };

/** Exact wire messages of §5.1. */
export const MESSAGES = {
  emptyFrame: "protocol frame is empty",
  invalidJsonPrefix: "invalid protocol JSON: ",
  notInitialized: "initialize must be the first message",
  versionMismatch: `server supports protocol ${PROTOCOL_VERSION}`,
  alreadyInitialized: "connection is already initialized",
  alreadyHasSession: "this connection already has a session",
  badPrompt: "prompt must be non-empty and no larger than 256 KiB",
  frameTooLarge: "client frame exceeds configured limit",
  startSessionFirst: "start a session first",
  sessionMismatch: "session id does not match",
  turnActive: "cancel the active turn before clearing",
  turnNotFound: "active turn was not found",
  approvalNotFound: "approval was not found or already resolved",
  queueStale: "queue entry was not found or revision is stale",
  queueLimit: "session queue limit reached",
  attachUnsupported: "session attach requires the shared socket server",
  daemonUnsupported: "Component management requires the daemon socket",
  denied: "tool call denied by policy or user",
  // §5.2's response_limit text; also the reply to a request whose own reply would exceed the frame limit.
  serverFrameTooLarge: "server event exceeds configured frame limit",
} as const;

const s = (scope: SessionScope) => ({ request_id: scope.request_id, session_id: scope.session_id, seq: 0 });
const t = (scope: TurnScope) => ({
  request_id: scope.request_id,
  session_id: scope.session_id,
  turn_id: scope.turn_id,
  seq: 0,
});

export const events = {
  initialized: (request_id: string, version: string) => ({
    type: "initialized",
    request_id,
    protocol_version: PROTOCOL_VERSION,
    server: { name: SERVER_NAME, version },
  }),
  sessionStarted: (fields: {
    request_id: string;
    session_id: string;
    cwd: string;
    model: string;
    context_max_tokens: number;
    max_server_frame_bytes: number;
    max_transcript_bytes: number;
    max_transcript_items: number;
    max_prompt_history_bytes: number;
    max_prompt_history_items: number;
  }) => ({
    type: "session.started",
    request_id: fields.request_id,
    session_id: fields.session_id,
    cwd: fields.cwd,
    model: fields.model,
    context_max_tokens: fields.context_max_tokens,
    max_server_frame_bytes: fields.max_server_frame_bytes,
    max_transcript_bytes: fields.max_transcript_bytes,
    max_transcript_items: fields.max_transcript_items,
    max_prompt_history_bytes: fields.max_prompt_history_bytes,
    max_prompt_history_items: fields.max_prompt_history_items,
  }),
  queueSnapshot: (session_id: string, entries: QueueEntry[], paused: boolean) => ({
    type: "queue.snapshot",
    request_id: null,
    session_id,
    seq: 0,
    entries: entries.map(entry),
    paused,
  }),
  queueEnqueued: (scope: SessionScope, queued: QueueEntry, position: number) => ({
    type: "queue.enqueued",
    ...s(scope),
    entry: entry(queued),
    position,
  }),
  queueUpdated: (scope: SessionScope, queued: QueueEntry) => ({ type: "queue.updated", ...s(scope), entry: entry(queued) }),
  queueMoved: (scope: SessionScope, queue_id: string, position: number, revision: number) => ({
    type: "queue.moved",
    ...s(scope),
    queue_id,
    position,
    revision,
  }),
  queueRemoved: (scope: SessionScope, queue_id: string, revision: number) => ({
    type: "queue.removed",
    ...s(scope),
    queue_id,
    revision,
  }),
  queueDequeued: (scope: SessionScope, queue_id: string, turn_id: string) => ({
    type: "queue.dequeued",
    ...s(scope),
    queue_id,
    turn_id,
  }),
  sessionPaused: (scope: SessionScope, paused: boolean) => ({ type: "session.paused", ...s(scope), paused }),
  sessionTrimmed: (scope: SessionScope, removed_messages: number, history_bytes: number) => ({
    type: "session.trimmed",
    ...s(scope),
    removed_messages,
    history_bytes,
  }),
  sessionCleared: (scope: SessionScope) => ({ type: "session.cleared", ...s(scope) }),
  turnStarted: (scope: TurnScope) => ({ type: "turn.started", ...t(scope) }),
  turnCancelled: (scope: TurnScope) => ({ type: "turn.cancelled", ...t(scope) }),
  assistantDelta: (scope: TurnScope, content: string) => ({ type: "assistant.delta", ...t(scope), content }),
  assistantCompleted: (scope: TurnScope, content: string) => ({ type: "assistant.completed", ...t(scope), content }),
  toolProposed: (scope: TurnScope, call_id: string, name: string, args: unknown) => ({
    type: "tool.proposed",
    ...t(scope),
    call_id,
    name,
    arguments: args,
  }),
  approvalRequested: (
    scope: TurnScope,
    fields: { approval_id: string; call_id: string; name: string; risk: string; cwd: string; summary: string; diff?: string },
  ) => {
    const event: ServerEvent = {
      type: "approval.requested",
      ...t(scope),
      approval_id: fields.approval_id,
      call_id: fields.call_id,
      name: fields.name,
      risk: fields.risk,
      cwd: fields.cwd,
      summary: fields.summary,
    };
    // Additive (issue 15): the unified diff a write, edit or apply_patch would make, bounded by the server.
    if (fields.diff !== undefined) event.diff = fields.diff;
    return event;
  },
  sessionConfigured: (scope: SessionScope, approval_policy: string, model: string) => ({
    type: "session.configured",
    ...s(scope),
    approval_policy,
    model,
  }),
  toolStarted: (scope: TurnScope, call_id: string, name: string) => ({ type: "tool.started", ...t(scope), call_id, name }),
  toolProgress: (scope: TurnScope, call_id: string, text: string) => ({ type: "tool.progress", ...t(scope), call_id, text }),
  toolCompleted: (
    scope: TurnScope,
    fields: { call_id: string; name: string; success: boolean; output: string; truncated: boolean; error?: string },
  ) => {
    const event: ServerEvent = {
      type: "tool.completed",
      ...t(scope),
      call_id: fields.call_id,
      name: fields.name,
      success: fields.success,
      output: fields.output,
      truncated: fields.truncated,
    };
    if (!fields.success) event.error = fields.error ?? "failed";
    return event;
  },
  contextCompacted: (scope: TurnScope, before_tokens: number, after_tokens: number, removed_messages: number) => ({
    type: "context.compacted",
    ...t(scope),
    before_tokens,
    after_tokens,
    removed_messages,
  }),
  turnCompleted: (scope: TurnScope, steps: number, usage: Usage) => ({
    type: "turn.completed",
    ...t(scope),
    steps,
    usage: usageObject(usage),
  }),
  turnFailed: (scope: TurnScope, code: TurnFailureCode, message: string) => ({
    type: "turn.failed",
    ...t(scope),
    code,
    message,
  }),
  error: (request_id: string | undefined, code: ErrorCode, message: string) => {
    const event: ServerEvent = { type: "error" };
    if (request_id !== undefined) event.request_id = request_id;
    event.code = code;
    event.message = message;
    event.fatal = code === "version_mismatch";
    return event;
  },
};

function entry(queued: QueueEntry): QueueEntry {
  return { queue_id: queued.queue_id, revision: queued.revision, prompt: queued.prompt, submitter: queued.submitter };
}

function usageObject(usage: Usage): Usage {
  const result: Usage = {};
  if (usage.input_tokens !== undefined) result.input_tokens = usage.input_tokens;
  if (usage.output_tokens !== undefined) result.output_tokens = usage.output_tokens;
  return result;
}
