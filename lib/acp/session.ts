// One ACP session: an in-process engine session (through the shared SessionController, like chat) whose events
// become `session/update` notifications, whose approval questions become `session/request_permission` requests,
// and whose turn ends answer `session/prompt` with a stop reason.
import {
  type AgentContext,
  type ContentBlock,
  type PermissionOption,
  type PromptResponse,
  RequestError,
  type SessionUpdate,
  type ToolCallContent,
} from "@agentclientprotocol/sdk";
import { type ClientEvent } from "../protocol/index.ts";
import { outputText } from "../render/index.ts";
import { type PendingApproval, SessionController } from "../client/index.ts";
import { type SessionRequest } from "../embed/index.ts";
import { type ApprovalMode, isApprovalMode } from "../policy/index.ts";
import type { ReplayTurn } from "../protocol/index.ts";
import type { ServerOptions } from "../embed/index.ts";
import type { Logger } from "../util/log.ts";
import { BUILTIN_COMMANDS, builtinCommand, isBuiltinCommand, runBuiltin } from "./builtin_commands.ts";
import { promptContent } from "./prompt_content.ts";
import { type TurnOutcome, turnOutcome } from "./stop_reason.ts";
import { proposedDiff, toolKind, toolLocations, toolTitle } from "./tool_calls.ts";

/**
 * The choices of a permission request: once, always (the engine's rule kept in the user file when it offers one,
 * else this exact call for the session) or reject.
 */
export function permissionOptions(approval: Pick<PendingApproval, "rule">): PermissionOption[] {
  return [
    { optionId: "allow_once", name: "Allow once", kind: "allow_once" },
    approval.rule === undefined
      ? { optionId: "allow_always", name: "Always allow this call in this session", kind: "allow_always" }
      : { optionId: "allow_always", name: `Always allow: ${approval.rule}`, kind: "allow_always" },
    { optionId: "reject_once", name: "Reject", kind: "reject_once" },
  ];
}

type CallState = { name: string; args: unknown; diff: ToolCallContent | undefined };

export class AcpSession {
  #id = "";
  #cwd: string;
  readonly #client: AgentContext;
  readonly #log: Logger;
  readonly #controller: SessionController;
  readonly #calls = new Map<string, CallState>();
  /** Notifications and permission requests go out in event order, each after the one before it. */
  #outbox: Promise<void> = Promise.resolve();
  #finish: ((outcome: TurnOutcome) => void) | undefined;
  #cancelRequested = false;
  #mode: ApprovalMode = "on-risk";
  /** The context window the engine budgets with (`usage_update.size`). */
  #contextTokens = 0;
  #turnStarted = false;
  /** A resumed session's conversation, as the engine's `session.replay` carries it. */
  #resolveStored!: (turns: ReplayTurn[]) => void;
  readonly storedTurns: Promise<ReplayTurn[]> = new Promise((resolve) => (this.#resolveStored = resolve));

  private constructor(cwd: string, client: AgentContext, log: Logger) {
    this.#cwd = cwd;
    this.#client = client;
    this.#log = log;
    this.#controller = new SessionController({
      onEvent: (event) => this.#onEvent(event),
      onAsk: (approval) => this.#ask(approval),
    });
  }

  /** Starts an engine session in `request.cwd`; rejects with the engine's reason when it refuses. */
  static async open(
    options: ServerOptions,
    log: Logger,
    request: SessionRequest,
    client: AgentContext,
  ): Promise<AcpSession> {
    // The session id is the engine's, known only once it has started: events before then are the handshake's.
    const session = new AcpSession(request.cwd, client, log);
    // The engine decides every call by its mode and rules; only its questions reach the user.
    const started = await session.#controller.start(options, log, request);
    session.#id = started.session_id;
    session.#cwd = started.cwd;
    session.#contextTokens = started.context_window?.tokens ?? started.context_max_tokens;
    const mode = started.policy?.mode ?? started.approval_policy;
    if (isApprovalMode(mode)) session.#mode = mode;
    return session;
  }

  /** The engine's session id, which is also the ACP session id. */
  get id(): string {
    return this.#id;
  }

  /** The canonical workspace the engine runs in. */
  get cwd(): string {
    return this.#cwd;
  }

  /** The approval mode in force (the ACP session mode), as the engine last reported it. */
  get mode(): ApprovalMode {
    return this.#mode;
  }

  /** Switches the engine's approval mode (`session.configure`); rejects with the engine's reason when it refuses. */
  async setMode(mode: ApprovalMode): Promise<void> {
    const reply = await this.#controller.configure({ approval_policy: mode });
    if (reply.type !== "session.configured") {
      throw RequestError.internalError(
        undefined,
        `the engine refused the mode: ${"message" in reply ? String(reply.message) : reply.type}`,
      );
    }
    if (isApprovalMode(reply.approval_policy)) this.#mode = reply.approval_policy;
  }

  get busy(): boolean {
    return this.#finish !== undefined;
  }

  /** Runs one prompt turn; resolves with its stop reason once every update of the turn has been sent. */
  async prompt(blocks: ContentBlock[]): Promise<PromptResponse> {
    if (this.#finish) throw RequestError.invalidRequest(undefined, "a prompt is already running in this session");
    if (!this.#controller.open || this.#controller.engineClosed) {
      throw RequestError.internalError(undefined, "the scv engine of this session has stopped");
    }
    this.#cancelRequested = false;
    this.#turnStarted = false;
    let finish!: (outcome: TurnOutcome) => void;
    const ended = new Promise<TurnOutcome>((resolve) => (finish = resolve));
    // Busy from here: a second prompt while the images are stored is refused like one during the turn.
    this.#finish = finish;
    try {
      const builtin = blocks.length === 1 && blocks[0]!.type === "text" ? builtinCommand(blocks[0]!.text) : undefined;
      if (builtin !== undefined) {
        const text = await runBuiltin(this.#controller, builtin.name, builtin.argument);
        this.#update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text } });
        await this.#outbox;
        return { stopReason: "end_turn" };
      }
      const content = await promptContent(blocks, this.cwd);
      await this.#controller.submit(content.text, content.attachments);
      const outcome = await ended;
      await this.#outbox;
      // The engine refused the turn (e.g. an attachment rule): nothing refers to its images.
      if (!this.#turnStarted) await content.discard();
      // A cancelled prompt reports `cancelled` whatever the engine's last word was (ACP requires it).
      if (this.#cancelRequested) return { stopReason: "cancelled" };
      if ("error" in outcome) throw RequestError.internalError(undefined, outcome.error);
      return { stopReason: outcome.stopReason };
    } finally {
      this.#finish = undefined;
    }
  }

  /**
   * `available_commands_update`: scv's own commands (builtin_commands.ts), then the session's custom ones (issue
   * 30). A prompt `/name arguments` runs one (the session controller turns a custom one into `turn.start.command`).
   */
  advertiseCommands(): void {
    const custom = this.#controller.commands.filter((command) => !isBuiltinCommand(command.name));
    this.#update({
      sessionUpdate: "available_commands_update",
      availableCommands: [
        ...BUILTIN_COMMANDS,
        ...custom.map((command) => ({
          name: command.name,
          description: command.description ?? `${command.origin} command`,
          ...(command.argument_hint === undefined ? {} : { input: { hint: command.argument_hint } }),
        })),
      ],
    });
  }

  /** Sends `updates` (a stored conversation) to the client; resolves once all are sent. */
  async replay(updates: readonly SessionUpdate[]): Promise<void> {
    for (const update of updates) this.#update(update);
    await this.#outbox;
  }

  /** `session/cancel`: cancels the running turn (or the one about to start); a no-op when none runs. */
  cancel(): void {
    if (!this.#finish) return;
    this.#cancelRequested = true;
    this.#controller.cancel();
  }

  async close(): Promise<void> {
    await this.#controller.close();
  }

  #update(update: SessionUpdate): void {
    this.#enqueue(() => this.#client.notify("session/update", { sessionId: this.id, update }));
  }

  #enqueue(work: () => Promise<void> | void): void {
    this.#outbox = this.#outbox
      .then(work)
      .catch((error: unknown) => this.#log.warn(`could not send to the ACP client: ${(error as Error).message}`));
  }

  #onEvent(event: ClientEvent): void {
    switch (event.type) {
      case "session.replay":
        this.#resolveStored(event.turns);
        break;
      case "engine.closed":
        this.#resolveStored([]);
        break;
      case "turn.started":
        this.#turnStarted = true;
        // Cancelled between session/prompt and the turn's start: cancel it now that it has an id.
        if (this.#cancelRequested) this.#controller.cancel();
        break;
      case "assistant.delta":
        if (event.content !== "")
          this.#update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: event.content } });
        break;
      case "reasoning.delta":
        if (event.content !== "")
          this.#update({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: event.content } });
        break;
      case "turn.completed":
        this.#usage(event.context_tokens, event.session_cost_usd);
        break;
      case "tool.proposed":
        this.#proposed(event.call_id, event.name, event.arguments);
        break;
      case "tool.started":
        this.#update({ sessionUpdate: "tool_call_update", toolCallId: event.call_id, status: "in_progress" });
        break;
      case "tool.progress":
        this.#progress(event.call_id, event.text);
        break;
      case "tool.completed":
        this.#completed(event);
        break;
      case "error":
        // A refused turn.start (the engine's own limits) ends the prompt with the engine's reason. A turn.cancel that
        // crossed the turn's end is answered turn_not_found, possibly once the next prompt is under way: not its end.
        if (event.code === "turn_not_found" || event.code === "approval_not_found") this.#log.debug(event.message);
        else if (this.#controller.turnId === undefined) this.#finish?.({ error: event.message });
        else this.#log.warn(`engine error during the turn: ${event.message}`);
        break;
    }
    const outcome = turnOutcome(event);
    if (outcome) {
      this.#calls.clear();
      this.#finish?.(outcome);
    }
  }

  /**
   * How full the context is after the turn (`turn.completed.context_tokens`: the last request's input plus output
   * tokens), within the window the engine budgets with, and what the session has cost so far when its price is
   * known. No count from the provider, no update.
   */
  #usage(used: number | undefined, cost: number | null | undefined): void {
    if (used === undefined) return;
    const size = this.#contextTokens;
    this.#update({
      sessionUpdate: "usage_update",
      used: size > 0 ? Math.min(used, size) : used,
      size,
      ...(typeof cost === "number" ? { cost: { amount: cost, currency: "USD" } } : {}),
    });
  }

  #proposed(callId: string, name: string, args: unknown): void {
    const call: CallState = { name, args, diff: undefined };
    this.#calls.set(callId, call);
    this.#enqueue(async () => {
      // Read the file's text before the call can run (it waits for this update's turn or for an approval).
      call.diff = await proposedDiff(name, args, this.cwd);
      await this.#client.notify("session/update", {
        sessionId: this.id,
        update: {
          sessionUpdate: "tool_call",
          toolCallId: callId,
          title: toolTitle(name, args),
          kind: toolKind(name),
          status: "pending",
          rawInput: args,
          locations: toolLocations(args, this.cwd),
          ...(call.diff ? { content: [call.diff] } : {}),
        },
      });
    });
  }

  /** The engine's progress is the call's latest output line (throttled by the engine): it is the live content. */
  #progress(callId: string, text: string): void {
    const call = this.#calls.get(callId);
    if (!call) return;
    this.#update({
      sessionUpdate: "tool_call_update",
      toolCallId: callId,
      content: [...(call.diff ? [call.diff] : []), textContent(text)],
    });
  }

  #completed(event: Extract<ClientEvent, { type: "tool.completed" }>): void {
    const call = this.#calls.get(event.call_id);
    this.#calls.delete(event.call_id);
    const text = outputText(event.output);
    // The diff stays only on a call that made its change.
    this.#enqueue(() =>
      this.#client.notify("session/update", {
        sessionId: this.id,
        update: {
          sessionUpdate: "tool_call_update",
          toolCallId: event.call_id,
          status: event.success ? "completed" : "failed",
          content: [...(event.success && call?.diff ? [call.diff] : []), ...(text === "" ? [] : [textContent(text)])],
          rawOutput: {
            output: event.output,
            truncated: event.truncated,
            ...(event.success ? {} : { error: event.error }),
          },
        },
      })
    );
  }

  #ask(approval: PendingApproval): void {
    this.#enqueue(() => {
      // Not awaited: updates of other calls keep flowing while the user decides.
      this.#client
        .request("session/request_permission", {
          sessionId: this.id,
          toolCall: {
            toolCallId: approval.callId,
            title: `${toolTitle(approval.name, approval.args)} (${approval.risk} risk: ${approval.summary})`,
            kind: toolKind(approval.name),
            status: "pending",
          },
          options: permissionOptions(approval),
        })
        .then(
          (response) =>
            this.#answer(approval, response.outcome.outcome === "selected" ? response.outcome.optionId : undefined),
          (error: unknown) => {
            this.#log.warn(`permission request failed: ${(error as Error).message}; denying the call`);
            this.#answer(approval, undefined);
          },
        );
    });
  }

  /** The user's choice (undefined: the request was cancelled or failed, which denies). */
  #answer(approval: PendingApproval, optionId: string | undefined): void {
    // A cancelled turn withdrew its questions: a late answer has nothing left to decide.
    if (this.#controller.asking?.approvalId !== approval.approvalId) return;
    const approved = optionId === "allow_once" || optionId === "allow_always";
    const remember = optionId !== "allow_always" ? undefined : approval.rule === undefined ? "session" : "always";
    this.#controller.answer(approved, remember);
    // The next waiting question (if any) is now the current one.
    const current = this.#controller.asking;
    if (current) this.#ask(current);
  }
}

function textContent(text: string): ToolCallContent {
  return { type: "content", content: { type: "text", text } };
}
