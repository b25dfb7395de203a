// One session of a connection: history, prompt queue, pause flag, approvals, and at most one running turn.
// Every method that answers a client message writes its replies before it resolves (sequential dispatch).
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { appendAllowRule, type ApprovalPolicy } from "../config/index.ts";
import {
  type Access,
  callKey,
  decide,
  isApprovalMode,
  readDenied,
  SessionGrants,
  suggestRule,
  unknownModeMessage,
} from "../policy/index.ts";
import type { HistoryItem, ToolCallRecord, Usage } from "../provider/index.ts";
import { type ApprovalAnswer, boundDiff, type PreparedCall, type ToolOutcome } from "../tools/index.ts";
import {
  compactableItems,
  compactHistory,
  type Compaction,
  runTurn,
  type TurnOutcome,
  type TurnSink,
} from "../agent/index.ts";
import { Approvals, approvalTexts, type Question } from "./approvals.ts";
import type { Logger } from "../util/log.ts";
import {
  type Attachment,
  type CommandRef,
  type ErrorCode,
  events,
  MESSAGES,
  type PolicyInForce,
  type Remember,
  type ServerEvent,
  type SessionScope,
  type TurnScope,
} from "../protocol/index.ts";
import { attachmentError, turnInput } from "./attachments.ts";
import { commandPrompt } from "./custom_commands.ts";
import { SessionHooks } from "./session_hooks.ts";
import { joinedInstructionsText } from "../instructions/index.ts";
import { PromptQueue } from "./queue.ts";
import type { SessionParts } from "./session_start.ts";
import { PLAN_MODE_INSTRUCTIONS } from "./system_prompt.ts";
import { type EventWriter, FrameLimitError } from "./writer.ts";
import type { JournalContents, JournalWriter, TurnCompletedRecord } from "../sessions/index.ts";
import { openJournal } from "./stored_sessions.ts";
import { Checkpoints, type RestoreMode, REWIND_MESSAGES, type Rewound } from "./checkpoints.ts";
import { UsageMeter } from "./usage_meter.ts";

export const MAX_PROMPT_BYTES = 262_144;
const SHUTDOWN_TURN_WAIT_MS = 3000;
const PROVIDER_CLOSE_WAIT_MS = 500;

// Room for a seq that gains digits between a size check and the write.
const SEQ_SLACK = 24;

/** A request whose reply would exceed the server frame limit is refused before any state changes (spec §2). */
const FRAME_LIMIT_REJECTION: Rejection = { code: "invalid_request", message: MESSAGES.serverFrameTooLarge };

/** What occupies the session: a turn (with its scope), or a compaction `session.compact` asked for. */
type ActiveTurn = { scope?: TurnScope; controller: AbortController; done: Promise<void> };
const RESTORE_MODES: readonly RestoreMode[] = ["code", "conversation", "both"];

/** A rejected request: the connection answers it with `error`. */
export type Rejection = { code: ErrorCode; message: string };

/** A prompt may be empty when files come with it (upstream's attachments). */
export function validPrompt(prompt: string, hasAttachments = false): boolean {
  return (hasAttachments || prompt.trim() !== "") && Buffer.byteLength(prompt) <= MAX_PROMPT_BYTES;
}

export class Session {
  readonly id: string;
  #parts: SessionParts;
  #journal: JournalWriter | undefined;
  #writer: EventWriter;
  #log: Logger;
  #history: HistoryItem[] = [];
  #queue = new PromptQueue();
  #paused = false;
  #active: ActiveTurn | undefined;
  #approvals = new Approvals();
  #grants = new SessionGrants();
  #closing = false;
  // Aborted only at shutdown: lets terminal events stop waiting for writer room.
  #lifetime = new AbortController();
  // mcp.server_status events, written in the order the servers changed state.
  #mcpWrites: Promise<void> = Promise.resolve();
  // Undo and rewind (the turns of the conversation and their workspace snapshots); usage, cost and the budget.
  #checkpoints: Checkpoints;
  #meter: UsageMeter;
  /** The session's hooks (issue 30). */
  readonly hooks: SessionHooks;

  /** `resumed`: a stored session to continue (its id and history); else a new session. */
  constructor(parts: SessionParts, writer: EventWriter, log: Logger, resumed?: JournalContents) {
    this.#parts = parts;
    this.#writer = writer;
    this.#log = log;
    this.id = resumed?.meta.id ?? randomUUID();
    if (resumed) this.#history = [...resumed.history];
    this.#journal = this.#journalled(() => openJournal(parts, this.id, log, resumed));
    this.#checkpoints = new Checkpoints(parts, this.id, log, resumed?.stored);
    this.#meter = new UsageMeter(resumed?.totals);
    this.hooks = new SessionHooks({
      parts,
      writer,
      log,
      sessionId: this.id,
      mode: () => this.#parts.config.tools.approval_policy,
    });
  }

  // A journal that cannot be written costs the session its persistence, never its turn.
  #journalled<T>(write: () => T): T | undefined {
    try {
      return write();
    } catch (error) {
      this.#log.warn(`session journal: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    }
  }

  /** The session's parts; `session.configure` replaces the configuration (model, approval policy). */
  get parts(): SessionParts {
    return this.#parts;
  }

  get history(): readonly HistoryItem[] {
    return this.#history;
  }

  #scope(requestId: string): SessionScope {
    return { request_id: requestId, session_id: this.id };
  }

  /** Starts the MCP servers in the background (after `session.started`); each state change becomes an event. */
  startMcpServers(): void {
    const mcp = this.parts.mcp;
    if (mcp === undefined) return;
    mcp.onStatus((status) => {
      this.#mcpWrites = this.#mcpWrites
        .then(() => this.#writer.control(events.mcpServerStatus(this.id, status)))
        .catch((error: unknown) => this.#log.warn(`write mcp.server_status: ${String(error)}`));
    });
    // After the writer's pending flush (also a setImmediate), so loading the SDK never delays session.started.
    setImmediate(() => {
      if (!this.#closing) mcp.start();
    });
  }

  async writeSnapshot(): Promise<void> {
    await this.#writer.control(events.queueSnapshot(this.id, [...this.#queue.entries], this.#paused));
  }

  async turnStart(
    requestId: string,
    typed: string,
    attachments: readonly Attachment[] = [],
    command?: CommandRef,
  ): Promise<Rejection | undefined> {
    // A custom command's prompt replaces what was typed (issue 30).
    const expanded = command === undefined ? { prompt: typed } : commandPrompt(this.parts.commands, command);
    if ("rejected" in expanded) return { code: "invalid_request", message: expanded.rejected };
    const prompt = expanded.prompt;
    if (!validPrompt(prompt, attachments.length > 0)) return { code: "invalid_request", message: MESSAGES.badPrompt };
    const refused = await attachmentError(attachments, this.parts.workspace, this.parts.userAttachments === true);
    if (refused !== undefined) return { code: "invalid_request", message: refused };
    if (this.#active) {
      const queued = this.#queue.enqueue(prompt, requestId, attachments, command);
      if (!queued.ok) return { code: queued.code, message: MESSAGES.queueLimit };
      const { entry, position } = queued.value;
      const reply = events.queueEnqueued(this.#scope(requestId), entry, position);
      if (!this.#writer.fits(reply, SEQ_SLACK)) {
        this.#queue.remove(entry.queue_id, entry.revision);
        return FRAME_LIMIT_REJECTION;
      }
      await this.#writer.control(reply);
      return undefined;
    }
    await this.#begin(requestId, prompt, undefined, attachments, command);
    return undefined;
  }

  async queueUpdate(
    requestId: string,
    queueId: string,
    revision: number,
    prompt: string,
  ): Promise<Rejection | undefined> {
    const current = this.#queue.entries.find((entry) => entry.queue_id === queueId && entry.revision === revision);
    if (!validPrompt(prompt, (current?.attachments?.length ?? 0) > 0))
      return { code: "invalid_request", message: MESSAGES.badPrompt };
    if (
      current &&
      !this.#writer.fits(
        events.queueUpdated(this.#scope(requestId), { ...current, revision: revision + 1, prompt }),
        SEQ_SLACK,
      )
    ) {
      return FRAME_LIMIT_REJECTION;
    }
    const result = this.#queue.update(queueId, revision, prompt);
    if (!result.ok) return queueRejection(result.code);
    await this.#writer.control(events.queueUpdated(this.#scope(requestId), result.value));
    return undefined;
  }

  async queueMove(
    requestId: string,
    queueId: string,
    revision: number,
    before: string | null,
  ): Promise<Rejection | undefined> {
    const result = this.#queue.move(queueId, revision, before);
    if (!result.ok) return queueRejection(result.code);
    await this.#writer.control(
      events.queueMoved(this.#scope(requestId), queueId, result.value.position, result.value.revision),
    );
    return undefined;
  }

  async queueRemove(requestId: string, queueId: string, revision: number): Promise<Rejection | undefined> {
    const result = this.#queue.remove(queueId, revision);
    if (!result.ok) return queueRejection(result.code);
    await this.#writer.control(events.queueRemoved(this.#scope(requestId), queueId, result.value.revision));
    return undefined;
  }

  async pause(requestId: string, paused: boolean): Promise<void> {
    this.#paused = paused;
    await this.#writer.control(events.sessionPaused(this.#scope(requestId), paused));
    if (!paused && !this.#active) await this.#startNext();
  }

  cancel(turnId: string): Rejection | undefined {
    if (!this.#active?.scope || this.#active.scope.turn_id !== turnId) {
      return { code: "turn_not_found", message: MESSAGES.turnNotFound };
    }
    this.#active.controller.abort();
    return undefined;
  }

  /**
   * `approval.resolve`. `remember` keeps an approval: "session" as a session grant, "always" as an allow rule added
   * to the user file, in force at once (a denial ignores it). The answer always counts: when the rule cannot be kept
   * for good, it is kept for the session and the reply is an error saying why.
   */
  async resolveApproval(approvalId: string, approved: boolean, remember?: Remember): Promise<Rejection | undefined> {
    const question = this.#approvals.question(approvalId);
    if (question === undefined) return { code: "approval_not_found", message: MESSAGES.approvalNotFound };
    const problem = approved && remember !== undefined ? await this.#remember(question, remember) : undefined;
    if (!this.#approvals.resolve(approvalId, approved)) {
      return { code: "approval_not_found", message: MESSAGES.approvalNotFound };
    }
    return problem;
  }

  async #remember(question: Question, remember: Remember): Promise<Rejection | undefined> {
    const { rule, access } = question;
    const forSession = () => {
      if (rule !== undefined) this.#grants.rememberRule(rule);
      else this.#grants.rememberCall(access.key ?? "");
    };
    if (remember === "session") {
      forSession();
      return undefined;
    }
    if (rule === undefined) {
      forSession();
      return {
        code: "invalid_request",
        message: "no permission rule can describe this call (it is approved, and this exact call is allowed for the " +
          'session); only calls whose approval.requested carries a rule can be remembered "always"',
      };
    }
    const { userFile } = this.#parts.policy;
    try {
      await appendAllowRule(userFile, rule);
    } catch (error) {
      forSession();
      const why = error instanceof Error ? error.message : String(error);
      return { code: "internal_error", message: `${why} (the call is approved and ${rule} is kept for this session)` };
    }
    const rules = this.#parts.policy.rules.with({ list: "allow", rule, origin: `user file ${userFile}` });
    this.#parts = { ...this.#parts, policy: { ...this.#parts.policy, rules } };
    this.#log.info(`permissions: added ${rule} to permissions.allow of ${userFile}`);
    return undefined;
  }

  /** The approval mode and rules in force, as `session.started` and `session.configured` report them. */
  policyInForce(): PolicyInForce {
    const { policy, config } = this.#parts;
    return { mode: config.tools.approval_policy, mode_origin: policy.modeOrigin, rules: [...policy.rules.entries] };
  }

  /**
   * `session.configure`: a new approval policy applies to every approval decided from now on, a new model from the
   * next turn; the history, queue and pending approvals stay.
   */
  async configure(
    requestId: string,
    policy: string | undefined,
    model: string | undefined,
  ): Promise<Rejection | undefined> {
    if (policy !== undefined && !isApprovalMode(policy)) {
      return { code: "invalid_request", message: unknownModeMessage(policy, "approval_policy") };
    }
    if (model !== undefined && model.trim() === "")
      return { code: "invalid_request", message: "model must be non-empty" };
    const { config } = this.#parts;
    const next = {
      ...config,
      provider: model === undefined ? config.provider : { ...config.provider, model },
      tools: policy === undefined ? config.tools : { ...config.tools, approval_policy: policy as ApprovalPolicy },
    };
    const modeOrigin = policy === undefined ? this.#parts.policy.modeOrigin : "session.configure";
    this.#parts = { ...this.#parts, config: next, policy: { ...this.#parts.policy, modeOrigin } };
    this.#journalled(() => this.#journal?.configured(next.provider.model, next.tools.approval_policy));
    await this.#writer.control(
      events.sessionConfigured(
        this.#scope(requestId),
        next.tools.approval_policy,
        next.provider.model,
        this.policyInForce(),
      ),
    );
    return undefined;
  }

  /** `session.trust` (issue 30): records the workspace's trust in the user file; project hooks follow it at once. */
  async trust(requestId: string, level: "trusted" | "untrusted"): Promise<Rejection | undefined> {
    try {
      await this.hooks.trust(level, this.#parts.policy.userFile, this.#parts.workspace);
    } catch (error) {
      return { code: "internal_error", message: error instanceof Error ? error.message : String(error) };
    }
    await this.#writer.control(
      events.sessionTrusted(this.#scope(requestId), this.hooks.workspaceTrust, this.hooks.listed),
    );
    return undefined;
  }

  async clear(requestId: string): Promise<Rejection | undefined> {
    if (this.#active) return { code: "turn_active", message: MESSAGES.turnActive };
    this.#history = [];
    this.#queue.clear();
    this.#checkpoints.clear();
    this.#journalled(() => this.#journal?.append({ type: "cleared", at: new Date().toISOString() }));
    await this.#writer.control(events.sessionCleared(this.#scope(requestId)));
    await this.writeSnapshot();
    this.hooks.cleared();
    return undefined;
  }

  /** `session.undo`: rewinds the conversation's last turn, its conversation and its file changes. */
  async undo(requestId: string, force: boolean): Promise<Rejection | undefined> {
    if (this.#active) return { code: "turn_active", message: MESSAGES.rewindWhileActive };
    const last = this.#checkpoints.lastTurn();
    if (last === undefined) return { code: "turn_not_found", message: REWIND_MESSAGES.nothingToUndo };
    return await this.rewind(requestId, last, "both", force);
  }

  /**
   * `session.rewind`: back to before `turnId`: the conversation, the files the turns from it on changed, or both.
   * Files someone else changed since are left alone (and listed) unless `force`. Journalled, so a resume agrees.
   */
  async rewind(requestId: string, turnId: string, restore: string, force: boolean): Promise<Rejection | undefined> {
    if (this.#active) return { code: "turn_active", message: MESSAGES.rewindWhileActive };
    if (!RESTORE_MODES.includes(restore as RestoreMode)) {
      return { code: "invalid_request", message: REWIND_MESSAGES.badRestore };
    }
    const rewound = await this.#checkpoints.rewind(turnId, restore as RestoreMode, force);
    if (rewound === undefined) return { code: "turn_not_found", message: REWIND_MESSAGES.turnNotInConversation };
    if (rewound.history !== undefined) this.#history = [...rewound.history];
    this.#journalled(() =>
      this.#journal?.append({
        type: "rewound",
        at: new Date().toISOString(),
        turn_id: rewound.turn_id,
        restore: rewound.restore,
        turns: rewound.turns,
        ...(rewound.complete === undefined ? {} : { complete: rewound.complete }),
      })
    );
    await this.#writer.control(events.sessionRewound(this.#scope(requestId), rewoundFields(rewound)));
    return undefined;
  }

  /**
   * `session.compact`: the model summarises the history but its newest turns (in the background, like a turn: a
   * `turn.start` meanwhile is queued); `session.compacted` reports it.
   */
  compact(requestId: string, focus: string | undefined): Rejection | undefined {
    if (this.#active) return { code: "turn_active", message: MESSAGES.compactWhileActive };
    if (compactableItems(this.#history, this.parts.config) === 0) {
      return { code: "invalid_request", message: MESSAGES.nothingToCompact };
    }
    const controller = new AbortController();
    const active: ActiveTurn = { controller, done: Promise.resolve() };
    this.#active = active;
    active.done = (async () => {
      try {
        await this.#compactNow(requestId, focus, controller.signal);
      } catch (error) {
        this.#log.warn(`compact the session: ${error instanceof Error ? error.message : String(error)}`);
      }
      if (this.#active === active) this.#active = undefined;
      if (!this.#closing) await this.#startNext();
    })();
    return undefined;
  }

  async #compactNow(requestId: string, focus: string | undefined, signal: AbortSignal): Promise<void> {
    const scope = this.#scope(requestId);
    const compaction = await compactHistory({
      history: this.#history,
      provider: this.parts.provider,
      config: this.parts.config,
      signal: AbortSignal.any([signal, this.#lifetime.signal]),
      ...(focus === undefined ? {} : { focus }),
    });
    if (compaction === undefined) return;
    const cost = this.#meter.cost(compaction.usage, this.parts.config);
    this.#meter.record(compaction.usage, cost);
    this.#applyCompaction(compaction, { usage: compaction.usage, cost_usd: cost });
    await this.#writer.control(events.sessionCompacted(scope, compactedFields(compaction, cost)));
  }

  // The history from now on starts with the summary (journalled, so a resume restores the compacted state).
  #applyCompaction(compaction: Compaction, spending?: { usage: Usage; cost_usd: number | null }, turnId?: string) {
    this.#history = [compaction.summary, ...this.#history.slice(compaction.drop)];
    this.#journalled(() =>
      this.#journal?.append({
        type: "compacted",
        at: new Date().toISOString(),
        drop: compaction.drop,
        summary: compaction.summary,
        method: compaction.method,
        ...(turnId === undefined ? {} : { turn_id: turnId }),
        ...(spending ?? {}),
      })
    );
  }

  /** `session.usage`: what the session and its last turn spent, at the current model's price. */
  async usage(requestId: string): Promise<void> {
    const { config } = this.#parts;
    const totals = this.#meter.totals;
    const price = this.#meter.price(config);
    await this.#writer.control(
      events.sessionUsage(this.#scope(requestId), {
        model: config.provider.model,
        usage: totals.usage,
        cost_usd: totals.cost_usd,
        max_cost_usd: config.session.max_cost_usd ?? null,
        price: price ?? null,
        last_turn: this.#meter.lastTurn ?? null,
      }),
    );
  }

  /** stdin EOF or a broken writer: drop the queue, cancel the turn and wait for it (≤3 s), close the provider. */
  async shutdown(): Promise<void> {
    this.#closing = true;
    this.#queue.clear();
    const active = this.#active;
    if (active) {
      active.controller.abort();
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, SHUTDOWN_TURN_WAIT_MS);
      });
      const finished = await Promise.race([active.done.then(() => true), timeout.then(() => false)]);
      clearTimeout(timer);
      if (!finished) this.parts.processGroups.killAll();
    }
    // What is left is the sandbox a standby set up for a next command (lib/tools/standby_shell.ts).
    this.parts.processGroups.killAll();
    await this.hooks.end("prompt_input_exit");
    this.#lifetime.abort();
    this.#journalled(() => this.#journal?.close());
    await this.parts.mcp?.shutdown().catch((error: unknown) => this.#log.warn(`stop MCP servers: ${String(error)}`));
    // The session's own sandbox processes (if a cell ever ran); other sessions' keep running.
    await this.parts.execSandbox.shutdown().catch((error: unknown) =>
      this.#log.warn(`shut down exec sandbox: ${String(error)}`)
    );
    // Closing HTTP agents should be instant; never let it hold the exit deadline.
    let closeTimer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.parts.provider.close().catch((error: unknown) => this.#log.warn(`close provider: ${String(error)}`)),
      new Promise<void>((resolve) => {
        closeTimer = setTimeout(resolve, PROVIDER_CLOSE_WAIT_MS);
      }),
    ]);
    clearTimeout(closeTimer);
  }

  // Claims the session for the turn synchronously (so no other turn can start), writes [queue.dequeued]
  // turn.started, and runs the loop in the background. Resolves once turn.started is written.
  #begin(
    requestId: string,
    prompt: string,
    dequeued?: string,
    attachments: readonly Attachment[] = [],
    command?: CommandRef,
  ): Promise<void> {
    const scope: TurnScope = { request_id: requestId, session_id: this.id, turn_id: randomUUID() };
    const controller = new AbortController();
    const active: ActiveTurn = { scope, controller, done: Promise.resolve() };
    this.#active = active;
    let started!: () => void;
    const written = new Promise<void>((resolve) => {
      started = resolve;
    });
    active.done = (async () => {
      try {
        if (dequeued !== undefined) {
          await this.#writer.control(events.queueDequeued(this.#scope(requestId), dequeued, scope.turn_id));
        }
        await this.#writer.turn(events.turnStarted(scope, command), this.#lifetime.signal);
      } catch (error) {
        this.#log.warn(`write turn.started: ${String(error)}`);
      } finally {
        started();
      }
      await this.#run(active, prompt, attachments);
    })();
    return written;
  }

  async #run(active: ActiveTurn, prompt: string, attachments: readonly Attachment[]): Promise<void> {
    const { controller } = active;
    const scope = active.scope!;
    const checkpoint = this.#history;
    const before = await this.#checkpoints.beginTurn(scope.turn_id, checkpoint);
    this.#journalled(() => this.#journal?.turnStarted(scope.turn_id, prompt, before));
    let trimmedAway: number | undefined;
    const sink = this.#sink(scope, controller.signal);
    const reportTrim = sink.sessionTrimmed;
    sink.sessionTrimmed = (removed, bytes) => {
      trimmedAway = removed;
      return reportTrim(removed, bytes);
    };
    let outcome: TurnOutcome;
    try {
      // The first turn's tool list is complete: it waits for servers still starting (each ≤ startup_timeout_sec).
      await this.parts.mcp?.ready(controller.signal);
      const input = await turnInput(prompt, attachments, this.parts.tools.schemas().length > 0, this.parts.workspace);
      // Hooks (issue 30): SessionStart's context joins the system prompt; UserPromptSubmit may block the prompt.
      const sessionContext = await this.hooks.context();
      const submitted = await this.hooks.promptSubmitted(scope, prompt, controller.signal);
      if ("blocked" in submitted) throw new PromptBlocked(submitted.blocked);
      outcome = await runTurn({
        prompt: submitted.context === undefined
          ? input.text
          : `${input.text}\n\n# Context from UserPromptSubmit hooks\n${submitted.context}`,
        images: input.images,
        history: checkpoint,
        provider: this.parts.provider,
        tools: this.parts.tools,
        config: this.parts.config,
        workspace: this.parts.workspace,
        // Plan mode is read at each turn: the model is told it is planning while the mode is on.
        instructions: this.parts.config.tools.approval_policy === "plan"
          ? `${this.parts.instructions}${sessionContext}\n${PLAN_MODE_INSTRUCTIONS}`
          : `${this.parts.instructions}${sessionContext}`,
        signal: controller.signal,
        sink,
        hides: (tool, path) => readDenied(this.#parts.policy.rules, tool, path),
        classify: (error) =>
          error instanceof FrameLimitError ? { code: "response_limit", message: error.message } : undefined,
        budget: (spent) => this.#meter.refusal(this.#parts.config, spent),
        fileWillChange: (path) => this.#checkpoints.fileWillChange(path),
      });
    } catch (error) {
      outcome = controller.signal.aborted ? { kind: "cancelled", usage: {} } : {
        kind: "failed",
        code: error instanceof PromptBlocked ? "blocked" : "internal_error",
        message: error instanceof Error ? error.message : String(error),
        usage: {},
      };
    }
    const after = await this.#checkpoints.endTurn(scope.turn_id);
    const cost = this.#meter.cost(outcome.usage, this.#parts.config);
    this.#meter.record(outcome.usage, cost, scope.turn_id);
    // A compaction during the turn already replaced the front of the history it started from.
    const base = this.#history;
    // A failed or cancelled turn leaves the checkpoint in place (not even the prompt remains).
    if (outcome.kind === "completed") this.#history = outcome.history;
    this.#journalled(() =>
      this.#journalTurn(scope.turn_id, outcome, base.length, trimmedAway, { usage: outcome.usage, cost, after })
    );
    if (outcome.kind === "failed") this.#log.info(`turn ${scope.turn_id} failed: ${outcome.code}`);
    const terminal = outcome.kind === "completed"
      ? events.turnCompleted(
        scope,
        outcome.steps,
        outcome.usage,
        contextTokens(outcome.last),
        cost,
        this.#meter.totals.cost_usd,
      )
      : outcome.kind === "failed"
      ? events.turnFailed(scope, outcome.code, outcome.message)
      : events.turnCancelled(scope);
    try {
      await this.#writer.turn(terminal, this.#lifetime.signal);
    } catch (error) {
      this.#log.warn(`write terminal event: ${String(error)}`);
    }
    if (this.#active === active) this.#active = undefined;
    if (!this.#closing) await this.#startNext();
  }

  // The turn's end, as the journal keeps it: a completed turn's own items (and how the session was trimmed), or
  // that it failed or was cancelled (its items are not part of the history).
  #journalTurn(
    turnId: string,
    outcome: TurnOutcome,
    checkpointLength: number,
    trimmedAway: number | undefined,
    end: { usage: Usage; cost: number | null; after: string | undefined },
  ): void {
    const journal = this.#journal;
    if (!journal) return;
    const at = new Date().toISOString();
    const extra = {
      usage: end.usage,
      cost_usd: end.cost,
      ...(end.after === undefined ? {} : { snapshot: end.after }),
    };
    if (outcome.kind !== "completed") {
      journal.append({
        type: "turn.ended",
        at,
        turn_id: turnId,
        status: outcome.kind,
        ...(outcome.kind === "failed" ? { code: outcome.code, message: outcome.message } : {}),
        ...extra,
      });
      return;
    }
    const prefix = outcome.history.length - outcome.added;
    const record: TurnCompletedRecord = {
      type: "turn.completed",
      at,
      turn_id: turnId,
      items: outcome.history.slice(prefix),
      ...extra,
    };
    if (trimmedAway !== undefined) {
      record.drop = trimmedAway;
      // Trimming puts one note where the dropped items were, unless even the note did not fit.
      if (prefix === checkpointLength - trimmedAway + 1) record.note = outcome.history[0]!;
    }
    journal.append(record);
  }

  async #startNext(): Promise<void> {
    if (this.#closing || this.#paused || this.#active || this.#queue.length === 0) return;
    const entry = this.#queue.shift()!;
    await this.#begin(entry.submitter, entry.prompt, entry.queue_id, entry.attachments, entry.command);
  }

  #sink(scope: TurnScope, signal: AbortSignal): TurnSink {
    const writer = this.#writer;
    const write = (event: ServerEvent) => writer.turn(event, signal);
    return {
      delta: (text) => write(events.assistantDelta(scope, text)),
      reasoningDelta: (text) => write(events.reasoningDelta(scope, text)),
      assistantCompleted: (text) => write(events.assistantCompleted(scope, text)),
      toolProposed: (call) => write(events.toolProposed(scope, call.call_id, call.name, call.arguments)),
      // The policy is read at each decision, so `session.configure` and new rules apply to the running turn too.
      approve: (call, prepared, callSignal) => this.#approve(scope, callSignal ?? signal, call, prepared),
      toolStarted: (call) => write(events.toolStarted(scope, call.call_id, call.name)),
      toolProgress: (call, text) => write(events.toolProgress(scope, call.call_id, text)),
      toolCompleted: (call: ToolCallRecord, outcome: ToolOutcome) =>
        write(
          events.toolCompleted(scope, {
            call_id: call.call_id,
            name: call.name,
            success: outcome.success,
            output: outcome.output,
            truncated: outcome.truncated,
            error: outcome.error,
          }),
        ),
      contextCompacted: (before, after, removed) => write(events.contextCompacted(scope, before, after, removed)),
      sessionTrimmed: (removed, bytes) => write(events.sessionTrimmed(scope, removed, bytes)),
      retrying: (notice) => write(events.turnRetrying(scope, notice)),
      // Its tokens are the turn's: they are in the turn's usage and cost, not in the compaction's record.
      historyCompacted: (compaction) => {
        this.#applyCompaction(compaction, undefined, scope.turn_id);
        return write(events.sessionCompacted(scope, compactedFields(compaction)));
      },
      afterTool: (call, prepared, outcome) => this.#afterTool(scope, signal, call, prepared, outcome),
      stop: (_text, continued) => this.hooks.stop(scope, continued, signal),
    };
  }

  /**
   * After a call ran (issue 30): the AGENTS.md files of folders it first touched join the context (each announced),
   * then what PostToolUse hooks said; both go to the model with the call's output.
   */
  async #afterTool(
    scope: TurnScope,
    signal: AbortSignal,
    call: ToolCallRecord,
    prepared: PreparedCall,
    outcome: ToolOutcome,
  ): Promise<string | undefined> {
    const { projectInstructions, workspace } = this.#parts;
    const touched = [...(prepared.access.reads ?? []), ...(prepared.access.writes ?? [])];
    const joined = outcome.success && touched.length > 0
      ? await projectInstructions.touched(touched.map((path) => join(workspace, path)))
      : [];
    for (const file of joined) await this.#writer.turn(events.instructionsJoined(scope, call.call_id, file), signal);
    const text = joinedInstructionsText(joined, projectInstructions.maxBytes) +
      (await this.hooks.postToolUse(scope, call, outcome, signal) ?? "");
    return text === "" ? undefined : text;
  }

  async #approve(
    scope: TurnScope,
    signal: AbortSignal,
    call: ToolCallRecord,
    prepared: PreparedCall,
  ): Promise<ApprovalAnswer> {
    const access: Access = {
      ...prepared.access,
      tool: call.name,
      risk: prepared.risk,
      key: callKey(call.name, call.arguments),
    };
    const state = {
      mode: this.#parts.config.tools.approval_policy,
      rules: this.#parts.policy.rules,
      grants: this.#grants,
      sandbox: this.#parts.config.sandbox_mode,
    };
    // PreToolUse hooks give their opinions; the gate weighs them with the rules (a hook cannot allow a denied call).
    const decision = decide(access, state, await this.hooks.preToolUse(scope, call, signal));
    this.#log.debug(`policy: ${call.name} ${call.call_id}: ${decision.verdict} (${decision.reason})`);
    if (decision.verdict === "deny") return { denied: decision.reason };
    if (decision.verdict === "allow") return true;
    const rule = suggestRule(access, state);
    const diff = await approvalDiff(prepared, this.#parts);
    const { approvalId, decision: answer } = this.#approvals.open(signal, { access, ...(rule ? { rule } : {}) });
    answer.catch(() => {});
    try {
      await this.#writer.turn(
        events.approvalRequested(scope, {
          approval_id: approvalId,
          call_id: call.call_id,
          name: call.name,
          risk: prepared.risk,
          cwd: this.parts.workspace,
          ...approvalTexts(prepared),
          ...(diff === undefined ? {} : { diff }),
          reason: decision.reason,
          ...(rule === undefined ? {} : { rule }),
        }),
        signal,
      );
    } catch (error) {
      this.#approvals.resolve(approvalId, false);
      throw error;
    }
    return answer;
  }
}

/** A UserPromptSubmit hook blocked the prompt: the turn fails `blocked`, and the model never sees it. */
class PromptBlocked extends Error {
  override name = "PromptBlocked";
}

/** The bounded diff of a file-changing call for its approval, or undefined (no preview, nothing to show). */
async function approvalDiff(prepared: PreparedCall, parts: SessionParts): Promise<string | undefined> {
  if (prepared.preview === undefined) return undefined;
  const diff = await prepared.preview({ workspace: parts.workspace, config: parts.config }).catch(() => undefined);
  return diff === undefined || diff === "" ? undefined : boundDiff(diff);
}

function rewoundFields(rewound: Rewound) {
  return {
    turn_id: rewound.turn_id,
    turns: rewound.turns,
    restore: rewound.restore,
    coverage: rewound.coverage,
    ...(rewound.files === undefined ? {} : { files: rewound.files }),
    notices: rewound.notices,
  };
}

function compactedFields(compaction: Compaction, cost?: number | null) {
  return {
    before_tokens: compaction.before_tokens,
    after_tokens: compaction.after_tokens,
    removed_messages: compaction.drop,
    method: compaction.method,
    summary: compaction.summary.kind === "user" ? compaction.summary.content : "",
    usage: compaction.usage,
    ...(cost === undefined ? {} : { cost_usd: cost }),
    ...(compaction.error === undefined ? {} : { error: compaction.error }),
  };
}

function queueRejection(code: "queue_not_found" | "queue_conflict" | "queue_limit"): Rejection {
  return { code, message: code === "queue_limit" ? MESSAGES.queueLimit : MESSAGES.queueStale };
}

/** `turn.completed.context_tokens`: the last request's input plus output, or undefined when it counted neither. */
function contextTokens(last: Usage): number | undefined {
  if (last.input_tokens === undefined && last.output_tokens === undefined) return undefined;
  return (last.input_tokens ?? 0) + (last.output_tokens ?? 0);
}
