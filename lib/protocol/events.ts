// Server events of the agent protocol (server spec §4–§5): one builder per event, each with its literal `type`, and
// the `ServerEvent` union of what they build. Builders put every field in wire order; `seq` is a placeholder the
// EventWriter overwrites in place when it writes the event, so the key order stays the one below.
import type { Attachment, CommandRef } from "./client.ts";

export const PROTOCOL_VERSION = 3;
export const SERVER_NAME = "scv-server";

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

/** Why a turn failed (`turn.failed.code`). */
export type TurnFailureCode =
  | "provider_error"
  | "context_limit"
  | "step_limit"
  | "history_limit"
  | "response_limit"
  | "tool_limit"
  // Additive: the session spent more than its budget (`max_cost_usd`, `--max-cost`).
  | "budget_exceeded"
  // Additive (issue 30): a UserPromptSubmit hook blocked the prompt; the model never saw it.
  | "blocked"
  | "internal_error";

/** A stored session as `sessions.listed` lists it (times are ISO 8601 UTC). */
export type StoredSession = {
  session_id: string;
  cwd: string;
  title: string;
  turns: number;
  model: string;
  created_at: string;
  updated_at: string;
};
/**
 * One turn of `session.replay`: its prompt, the assistant's text, the tools it ran, how it ended, and (additive) its
 * id, which `session.rewind` takes.
 */
export type ReplayTurn = {
  prompt: string;
  answer: string;
  tools: {
    name: string;
    success: boolean;
    /** The call's id, its arguments (left out when large) and its output (cut): enough for a client to redraw it. */
    call_id?: string;
    arguments?: unknown;
    output?: string;
  }[];
  status: "completed" | "failed" | "cancelled" | "interrupted";
  turn_id?: string;
};

/** A queued prompt; `attachments` only when the turn.start carried some (issue 20), `command` when it ran one. */
export type QueueEntry = {
  queue_id: string;
  revision: number;
  prompt: string;
  submitter: string;
  attachments?: Attachment[];
  command?: CommandRef;
};

/** A custom command as `session.started` lists it (issue 30). */
export type CommandInfo = {
  name: string;
  description?: string;
  argument_hint?: string;
  /** `user` (`$SCV_HOME/commands/`) or `project` (`<workspace>/.scv/commands/`). */
  origin: string;
  /** True when this project command hides a user command of the same name. */
  overrides?: boolean;
};
/**
 * Token usage as a provider reports it and `turn.completed` carries it; a count the provider did not give is absent.
 * `input_tokens` counts the whole input on every wire (cache reads and writes included), `output_tokens` the whole
 * output (reasoning included); the other three (additions) say how much of them was what.
 */
export type Usage = {
  input_tokens?: number;
  output_tokens?: number;
  /** Part of `input_tokens` read from the provider's prompt cache. */
  cached_input_tokens?: number;
  /** Part of `input_tokens` written to the prompt cache (the Messages wire; priced above plain input). */
  cache_creation_input_tokens?: number;
  /** Part of `output_tokens` spent on reasoning (hidden or shown). */
  reasoning_output_tokens?: number;
};

/** The fields of `Usage`, in the order `turn.completed` writes them. */
export const USAGE_FIELDS = [
  "input_tokens",
  "output_tokens",
  "cached_input_tokens",
  "cache_creation_input_tokens",
  "reasoning_output_tokens",
] as const satisfies ReadonlyArray<keyof Usage>;

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
  // Persistent sessions (additions).
  deleteActiveSession: "cannot delete the session this connection is using",
  // Undo, rewind and compaction (issue 31).
  rewindWhileActive: "wait for the running turn to end (or cancel it) before undo or rewind",
  compactWhileActive: "wait for the running turn to end (or cancel it) before compacting",
  nothingToCompact: "nothing to compact: the conversation holds no more than the turns compaction keeps",
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
    type: "initialized" as const,
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
    /** Additive (issue 14): the budget's window and its source; `warning` when the server runs the model short. */
    context_window: { tokens: number; source: string; warning?: string };
    /** Additive (issue 30): the folder the user works in (the workspace or below it). */
    working_folder: string;
    /** Additive (issue 30): the AGENTS.md files in the system prompt, in order. */
    instructions: readonly InstructionFileInfo[];
    /** Additive (issue 30): the custom commands a turn can run (`turn.start.command`), sorted by name. */
    commands: readonly CommandInfo[];
    /** Additive (issue 30): every configured hook, with whether it runs (`skipped`: a project hook, folder untrusted). */
    hooks: readonly HookInfo[];
    /** Additive (issue 30): what the user file says of the workspace: `trusted`, `untrusted`, or `unknown` (nothing). */
    workspace_trust: string;
    /** Additive (issue 28): the approval mode and the permission rules in force, each with where it came from. */
    policy: PolicyInForce;
  }) => ({
    type: "session.started" as const,
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
    context_window: fields.context_window,
    working_folder: fields.working_folder,
    instructions: fields.instructions.map(instructionFile),
    commands: fields.commands.map(commandInfo),
    hooks: fields.hooks.map(hookInfo),
    workspace_trust: fields.workspace_trust,
    approval_policy: fields.policy.mode,
    policy: policyInForce(fields.policy),
  }),
  queueSnapshot: (session_id: string, entries: QueueEntry[], paused: boolean) => ({
    type: "queue.snapshot" as const,
    request_id: null,
    session_id,
    seq: 0,
    entries: entries.map(entry),
    paused,
  }),
  queueEnqueued: (scope: SessionScope, queued: QueueEntry, position: number) => ({
    type: "queue.enqueued" as const,
    ...s(scope),
    entry: entry(queued),
    position,
  }),
  queueUpdated: (scope: SessionScope, queued: QueueEntry) => ({
    type: "queue.updated" as const,
    ...s(scope),
    entry: entry(queued),
  }),
  queueMoved: (scope: SessionScope, queue_id: string, position: number, revision: number) => ({
    type: "queue.moved" as const,
    ...s(scope),
    queue_id,
    position,
    revision,
  }),
  queueRemoved: (scope: SessionScope, queue_id: string, revision: number) => ({
    type: "queue.removed" as const,
    ...s(scope),
    queue_id,
    revision,
  }),
  queueDequeued: (scope: SessionScope, queue_id: string, turn_id: string) => ({
    type: "queue.dequeued" as const,
    ...s(scope),
    queue_id,
    turn_id,
  }),
  sessionPaused: (scope: SessionScope, paused: boolean) => ({ type: "session.paused" as const, ...s(scope), paused }),
  sessionTrimmed: (scope: SessionScope, removed_messages: number, history_bytes: number) => ({
    type: "session.trimmed" as const,
    ...s(scope),
    removed_messages,
    history_bytes,
  }),
  sessionCleared: (scope: SessionScope) => ({ type: "session.cleared" as const, ...s(scope) }),
  // Additive (issue 15): the reply to `session.configure`, with the settings now in force.
  sessionConfigured: (scope: SessionScope, approval_policy: string, model: string, policy: PolicyInForce) => ({
    type: "session.configured" as const,
    ...s(scope),
    approval_policy,
    model,
    // Additive (issue 28): the mode and rules now in force, with their origins.
    policy: policyInForce(policy),
  }),
  /** Additive (issue 30): the reply to `session.trust`: the workspace's trust now, and the hooks that now run. */
  sessionTrusted: (scope: SessionScope, workspace_trust: string, hooks: readonly HookInfo[]) => ({
    type: "session.trusted" as const,
    ...s(scope),
    workspace_trust,
    hooks: hooks.map(hookInfo),
  }),
  /**
   * Additive (issue 30): a hook ran. Turn-scoped for UserPromptSubmit, PreToolUse, PostToolUse and Stop (with the
   * call's id for the tool events); session-scoped (`request_id` null, no turn) for SessionStart and SessionEnd.
   */
  hookCompleted: (scope: TurnScope | { session_id: string }, run: HookRunInfo) => ({
    type: "hook.completed" as const,
    ...("turn_id" in scope ? t(scope) : { request_id: null, session_id: scope.session_id, seq: 0 }),
    event: run.event,
    command: run.command,
    origin: run.origin,
    ...(run.call_id === undefined ? {} : { call_id: run.call_id }),
    exit_code: run.exit_code,
    duration_ms: run.duration_ms,
    timed_out: run.timed_out,
    ...(run.decision === undefined ? {} : { decision: run.decision }),
    ...(run.reason === undefined ? {} : { reason: run.reason }),
    ...(run.message === undefined ? {} : { message: run.message }),
    ...(run.context_chars === undefined ? {} : { context_chars: run.context_chars }),
  }),
  /** Additive (issue 18): an MCP server of the session changed state; `tools` are its offered tools' own names. */
  mcpServerStatus: (
    session_id: string,
    status: { server: string; state: string; transport: string; tools: string[]; reason?: string },
  ) => ({
    type: "mcp.server_status" as const,
    request_id: null,
    session_id,
    seq: 0,
    server: status.server,
    state: status.state,
    transport: status.transport,
    tools: [...status.tools],
    ...(status.reason === undefined ? {} : { reason: status.reason }),
  }),
  /** Additive (issue 30): a folder's AGENTS.md joined the context because the call `call_id` touched a file under it. */
  instructionsJoined: (scope: TurnScope, call_id: string, file: InstructionFileInfo) => ({
    type: "instructions.joined" as const,
    ...t(scope),
    call_id,
    ...instructionFile(file),
  }),
  // Additive (issue 30): `command` when the turn runs a custom command.
  turnStarted: (scope: TurnScope, command?: CommandRef) => ({
    type: "turn.started" as const,
    ...t(scope),
    ...(command === undefined ? {} : { command: { name: command.name, arguments: command.arguments } }),
  }),
  turnCancelled: (scope: TurnScope) => ({ type: "turn.cancelled" as const, ...t(scope) }),
  assistantDelta: (scope: TurnScope, content: string) => ({ type: "assistant.delta" as const, ...t(scope), content }),
  /** Additive: reasoning the provider shows (a summary or reasoning text), streamed; never part of the answer. */
  reasoningDelta: (scope: TurnScope, content: string) => ({ type: "reasoning.delta" as const, ...t(scope), content }),
  assistantCompleted: (scope: TurnScope, content: string) => ({
    type: "assistant.completed" as const,
    ...t(scope),
    content,
  }),
  toolProposed: (scope: TurnScope, call_id: string, name: string, args: unknown) => ({
    type: "tool.proposed" as const,
    ...t(scope),
    call_id,
    name,
    arguments: args,
  }),
  approvalRequested: (
    scope: TurnScope,
    fields: {
      approval_id: string;
      call_id: string;
      name: string;
      risk: string;
      cwd: string;
      summary: string;
      detail?: string;
      diff?: string;
      reason?: string;
      rule?: string;
    },
  ) => ({
    type: "approval.requested" as const,
    ...t(scope),
    approval_id: fields.approval_id,
    call_id: fields.call_id,
    name: fields.name,
    risk: fields.risk,
    cwd: fields.cwd,
    summary: fields.summary,
    // Addition (issue 12): the whole text the approval covers, invisible characters escaped.
    ...(fields.detail === undefined ? {} : { detail: fields.detail }),
    // Additive (issue 15): the unified diff a write, edit or apply_patch would make, bounded by the server.
    ...(fields.diff === undefined ? {} : { diff: fields.diff }),
    // Additive (issue 28): why the engine asks, and the allow rule `remember: "always"` would add.
    ...(fields.reason === undefined ? {} : { reason: fields.reason }),
    ...(fields.rule === undefined ? {} : { rule: fields.rule }),
  }),
  toolStarted: (scope: TurnScope, call_id: string, name: string) => ({
    type: "tool.started" as const,
    ...t(scope),
    call_id,
    name,
  }),
  toolProgress: (scope: TurnScope, call_id: string, text: string) => ({
    type: "tool.progress" as const,
    ...t(scope),
    call_id,
    text,
  }),
  toolCompleted: (
    scope: TurnScope,
    fields: { call_id: string; name: string; success: boolean; output: string; truncated: boolean; error?: string },
  ) => ({
    type: "tool.completed" as const,
    ...t(scope),
    call_id: fields.call_id,
    name: fields.name,
    success: fields.success,
    output: fields.output,
    truncated: fields.truncated,
    // Only a failed call carries an error code, last.
    ...(fields.success ? {} : { error: fields.error ?? "failed" }),
  }),
  contextCompacted: (scope: TurnScope, before_tokens: number, after_tokens: number, removed_messages: number) => ({
    type: "context.compacted" as const,
    ...t(scope),
    before_tokens,
    after_tokens,
    removed_messages,
  }),
  /** Additive (issue 22): a failed provider request is retried after `delay_ms`; `attempt` is the one that failed. */
  turnRetrying: (
    scope: TurnScope,
    retry: { attempt: number; max_attempts: number; delay_ms: number; reason: string },
  ) => ({
    type: "turn.retrying" as const,
    ...t(scope),
    attempt: retry.attempt,
    max_attempts: retry.max_attempts,
    delay_ms: retry.delay_ms,
    reason: retry.reason,
  }),
  turnCompleted: (
    scope: TurnScope,
    steps: number,
    usage: Usage,
    context_tokens?: number,
    cost_usd?: number | null,
    session_cost_usd?: number | null,
  ) => ({
    type: "turn.completed" as const,
    ...t(scope),
    steps,
    usage: usageObject(usage),
    // Additive: the last model request's input plus output tokens (how full the context is now), when counted.
    ...(context_tokens === undefined ? {} : { context_tokens }),
    // Additive (issue 31): what the turn's requests cost in USD, null when the model's price is unknown.
    ...(cost_usd === undefined ? {} : { cost_usd }),
    // Additive (issue 31): what the whole session has cost so far, this turn included; null when a price was unknown.
    ...(session_cost_usd === undefined ? {} : { session_cost_usd }),
  }),
  turnFailed: (scope: TurnScope, code: TurnFailureCode, message: string) => ({
    type: "turn.failed" as const,
    ...t(scope),
    code,
    message,
  }),
  /**
   * Additive (issue 31): the reply to `session.undo` and `session.rewind`. `turns`: the rewound turns, oldest first;
   * `files` (a code restore): what was put back, what was left alone because someone else changed it since
   * (`conflicts`), what the snapshots did not cover (`skipped`) and what could not be written (`failed`);
   * `coverage`: `workspace` (every writer), `file_tools` (no git: only scv's file tools) or `none`.
   */
  sessionRewound: (
    scope: SessionScope,
    fields: {
      turn_id: string;
      turns: string[];
      restore: string;
      coverage: string;
      files?: {
        restored: string[];
        conflicts: string[];
        skipped: string[];
        failed: Array<{ path: string; reason: string }>;
      };
      notices: string[];
    },
  ) => ({
    type: "session.rewound" as const,
    ...s(scope),
    turn_id: fields.turn_id,
    turns: [...fields.turns],
    restore: fields.restore,
    coverage: fields.coverage,
    ...(fields.files === undefined ? {} : {
      files: {
        restored: [...fields.files.restored],
        conflicts: [...fields.files.conflicts],
        skipped: [...fields.files.skipped],
        failed: fields.files.failed.map((failure) => ({ path: failure.path, reason: failure.reason })),
      },
    }),
    notices: [...fields.notices],
  }),
  /**
   * Additive (issue 31): the history was compacted, by `session.compact` or automatically past
   * `compaction.auto_percent` (then within a turn, with its `turn_id`). `method`: `model` (the model's summary) or
   * `note` (its request failed: the deterministic note, with `error`).
   */
  sessionCompacted: (
    scope: SessionScope & { turn_id?: string },
    fields: {
      before_tokens: number;
      after_tokens: number;
      removed_messages: number;
      method: string;
      summary: string;
      usage: Usage;
      cost_usd?: number | null;
      error?: string;
    },
  ) => ({
    type: "session.compacted" as const,
    ...s(scope),
    ...(scope.turn_id === undefined ? {} : { turn_id: scope.turn_id }),
    before_tokens: fields.before_tokens,
    after_tokens: fields.after_tokens,
    removed_messages: fields.removed_messages,
    method: fields.method,
    summary: fields.summary,
    usage: usageObject(fields.usage),
    ...(fields.cost_usd === undefined ? {} : { cost_usd: fields.cost_usd }),
    ...(fields.error === undefined ? {} : { error: fields.error }),
  }),
  /** Additive (issue 31): the reply to `session.usage`: what the session and its last turn spent. */
  sessionUsage: (
    scope: SessionScope,
    fields: {
      model: string;
      usage: Usage;
      cost_usd: number | null;
      max_cost_usd: number | null;
      price: { input: number; cached_input: number; output: number; cache_write?: number } | null;
      last_turn: { turn_id: string; usage: Usage; cost_usd: number | null } | null;
    },
  ) => ({
    type: "session.usage" as const,
    ...s(scope),
    model: fields.model,
    usage: usageObject(fields.usage),
    cost_usd: fields.cost_usd,
    max_cost_usd: fields.max_cost_usd,
    price: fields.price === null ? null : { ...fields.price },
    last_turn: fields.last_turn === null ? null : {
      turn_id: fields.last_turn.turn_id,
      usage: usageObject(fields.last_turn.usage),
      cost_usd: fields.last_turn.cost_usd,
    },
  }),
  // Persistent sessions (docs/sessions.md), additions beyond upstream; none carries a seq.
  sessionsListed: (request_id: string, sessions: StoredSession[], omitted: number) => ({
    type: "sessions.listed" as const,
    request_id,
    sessions: sessions.map(storedSession),
    omitted,
  }),
  sessionReplay: (
    request_id: string,
    session_id: string,
    replay: { turns: ReplayTurn[]; omitted_turns: number; warnings: string[] },
  ) => ({
    type: "session.replay" as const,
    request_id,
    session_id,
    turns: replay.turns.map(replayTurn),
    omitted_turns: replay.omitted_turns,
    warnings: [...replay.warnings],
  }),
  sessionForked: (request_id: string, session_id: string, forked_from: string) => ({
    type: "session.forked" as const,
    request_id,
    session_id,
    forked_from,
  }),
  sessionDeleted: (request_id: string, session_id: string) => ({
    type: "session.deleted" as const,
    request_id,
    session_id,
  }),
  error: (request_id: string | undefined, code: ErrorCode, message: string) => ({
    type: "error" as const,
    ...(request_id === undefined ? {} : { request_id }),
    code,
    message,
    fatal: code === "version_mismatch",
  }),
};

type Builders = typeof events;
/** Every event the server writes, discriminated by `type`. */
export type ServerEvent = ReturnType<Builders[keyof Builders]>;
export type ServerEventType = ServerEvent["type"];
/** What a client receives: the server's events, and the end of the connection. */
export type ClientEvent = ServerEvent | { type: "engine.closed" };
/** The event of one `type`, e.g. `EventOf<"turn.completed">`. */
export type EventOf<T extends ServerEventType> = Extract<ServerEvent, { type: T }>;

/**
 * An instruction file in the context: `global` (the instance home's), `project` (the repository root down to the
 * working folder) or `nested` (joined on first touch); `bytes` of its `size` are in the context.
 */
export type InstructionFileInfo = { path: string; scope: string; bytes: number; size: number; truncated: boolean };

/** A configured hook as `session.started` lists it (issue 30). */
export type HookInfo = {
  event: string;
  matcher?: string;
  command: string;
  /** `user`, `project` or `explicit`: the configuration file that defined it. */
  origin: string;
  timeout_sec: number;
  /** `active`, or `skipped`: a project hook in a folder the user has not trusted. */
  status: string;
};

/** One hook run as `hook.completed` reports it. */
export type HookRunInfo = {
  event: string;
  command: string;
  origin: string;
  call_id?: string;
  /** Null when the hook did not exit by itself (stopped at its timeout or by a cancellation) or did not start. */
  exit_code: number | null;
  duration_ms: number;
  timed_out: boolean;
  /** What the hook decided: `allow`, `deny` or `ask` (PreToolUse), `block` (UserPromptSubmit, PostToolUse, Stop). */
  decision?: string;
  reason?: string;
  /** For the user: a failed hook's stderr, a timeout, the hook's `systemMessage`. */
  message?: string;
  /** Characters of context the hook added for the model. */
  context_chars?: number;
};

function hookInfo(hook: HookInfo): HookInfo {
  return {
    event: hook.event,
    ...(hook.matcher === undefined ? {} : { matcher: hook.matcher }),
    command: hook.command,
    origin: hook.origin,
    timeout_sec: hook.timeout_sec,
    status: hook.status,
  };
}

function commandInfo(command: CommandInfo): CommandInfo {
  return {
    name: command.name,
    ...(command.description === undefined ? {} : { description: command.description }),
    ...(command.argument_hint === undefined ? {} : { argument_hint: command.argument_hint }),
    origin: command.origin,
    ...(command.overrides ? { overrides: true } : {}),
  };
}

function instructionFile(file: InstructionFileInfo): InstructionFileInfo {
  return { path: file.path, scope: file.scope, bytes: file.bytes, size: file.size, truncated: file.truncated };
}

/** One permission rule in force: its list, its text and where it came from (`user file <path>`, …). */
export type PolicyRule = { list: "allow" | "ask" | "deny"; rule: string; origin: string };

/** The approval policy of a session as `session.started` and `session.configured` report it. */
export type PolicyInForce = {
  /** The approval mode (`on-risk`, `accept-edits`, `plan`, `always`, `never`). */
  mode: string;
  /** Where the mode came from: `default`, `user file <path>`, `flag --approval-policy`, `session.configure`, … */
  mode_origin: string;
  rules: PolicyRule[];
};

function policyInForce(policy: PolicyInForce): PolicyInForce {
  return {
    mode: policy.mode,
    mode_origin: policy.mode_origin,
    rules: policy.rules.map((rule) => ({ list: rule.list, rule: rule.rule, origin: rule.origin })),
  };
}

function entry(queued: QueueEntry): QueueEntry {
  const wire: QueueEntry = {
    queue_id: queued.queue_id,
    revision: queued.revision,
    prompt: queued.prompt,
    submitter: queued.submitter,
  };
  if (queued.attachments?.length) wire.attachments = queued.attachments;
  if (queued.command) wire.command = { name: queued.command.name, arguments: queued.command.arguments };
  return wire;
}

function storedSession(session: StoredSession): StoredSession {
  return {
    session_id: session.session_id,
    cwd: session.cwd,
    title: session.title,
    turns: session.turns,
    model: session.model,
    created_at: session.created_at,
    updated_at: session.updated_at,
  };
}

function replayTurn(turn: ReplayTurn): ReplayTurn {
  return {
    prompt: turn.prompt,
    answer: turn.answer,
    // Additive (issue 28): `call_id`, `arguments` and `output` let a client redraw the calls (`scv acp`'s load).
    tools: turn.tools.map((tool) => ({
      name: tool.name,
      success: tool.success,
      ...(tool.call_id === undefined ? {} : { call_id: tool.call_id }),
      ...(tool.arguments === undefined ? {} : { arguments: tool.arguments }),
      ...(tool.output === undefined ? {} : { output: tool.output }),
    })),
    status: turn.status,
    ...(turn.turn_id === undefined ? {} : { turn_id: turn.turn_id }),
  };
}

function usageObject(usage: Usage): Usage {
  const result: Usage = {};
  for (const field of USAGE_FIELDS) if (usage[field] !== undefined) result[field] = usage[field];
  return result;
}
