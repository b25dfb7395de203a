// The protocol client's state for one session at a time, shared by chat and exec: the engine's lifecycle, the turn
// that is running (or asked for), and the approval questions waiting for an answer. It never prints: the caller
// renders each event and answers the questions it is asked.
import { type Attachment, type ClientEvent, type EventOf, type Remember, slashCommand } from "../protocol/index.ts";
import type { Logger } from "../util/log.ts";
import type { ServerOptions } from "../embed/index.ts";
import { type EngineClient, openEngine, type SessionRequest } from "../embed/index.ts";

export type PendingApproval = {
  approvalId: string;
  callId: string;
  name: string;
  /** The arguments of the call's `tool.proposed` (an empty object when it was not seen). */
  args: unknown;
  risk: string;
  summary: string;
  /** The unified diff of a file change (write, edit, apply_patch), bounded by the server. */
  diff?: string;
  /** Why the engine asks (the rule or the mode that did). */
  reason?: string;
  /** The allow rule that remembering the approval would add (`bash(npm test)`); absent when none can. */
  rule?: string;
};

export type TurnState = "starting" | "idle" | "working" | "approval" | "cancelling";

export type ControllerHooks = {
  /** Every event, after the controller's own state has taken it in. */
  onEvent(event: ClientEvent): void;
  /**
   * An approval question arrived: answer it now (true approves, false denies) or return undefined to ask the user,
   * who answers through `answer()`; questions are asked one at a time, in order.
   */
  onApproval?(approval: PendingApproval): boolean | undefined;
  /** A question left for the user arrived when no other was being asked: it is now the current one. */
  onAsk?(approval: PendingApproval): void;
};

export class SessionController {
  readonly #hooks: ControllerHooks;
  #engine: EngineClient | undefined;
  #proposed = new Map<string, unknown>();
  #asking: PendingApproval | undefined;
  #waiting: PendingApproval[] = [];
  /** A turn runs or a turn.start was sent and has not been answered yet. */
  #busy = false;
  #cancelling = false;
  #turnId: string | undefined;
  #turnEnds: Array<() => void> = [];

  constructor(hooks: ControllerHooks) {
    this.#hooks = hooks;
  }

  /** The `session.started` event of the open session. */
  get session(): EventOf<"session.started"> | undefined {
    return this.#engine?.session;
  }

  get open(): boolean {
    return this.#engine !== undefined;
  }

  /** True once the engine ended the connection on its own (not through `close()`). */
  get engineClosed(): boolean {
    return this.#engine?.closed ?? false;
  }

  get busy(): boolean {
    return this.#busy;
  }

  get turnId(): string | undefined {
    return this.#turnId;
  }

  /** The approval question the user is being asked, if any. */
  get asking(): PendingApproval | undefined {
    return this.#asking;
  }

  get state(): TurnState {
    if (this.#asking) return "approval";
    if (this.#cancelling) return "cancelling";
    if (this.#busy) return "working";
    return this.#engine ? "idle" : "starting";
  }

  /** Starts the engine and a session in `request.cwd`; rejects (EngineError when the engine refused) otherwise. */
  async start(options: ServerOptions, log: Logger, request: SessionRequest): Promise<EventOf<"session.started">> {
    const engine = await openEngine(options, log, request, (event) => this.#onEvent(event));
    this.#engine = engine;
    return engine.session!;
  }

  /** Ends the session like stdin EOF (the engine cancels a running turn) and waits for the engine to stop. */
  async close(): Promise<void> {
    const engine = this.#engine;
    this.#engine = undefined;
    this.#settle();
    if (engine) await engine.close();
  }

  /** The open session's `session.started` (updated by /model, /approvals and /trust), or undefined. */
  get started(): EventOf<"session.started"> | undefined {
    return this.#engine?.session;
  }

  /**
   * Records whether the user trusts the workspace (`session.trust`, written to the user file); resolves with the
   * reply (`session.trusted`, or the `error` that refused it). Project hooks run from the next event on.
   */
  async trust(level: "trusted" | "untrusted"): Promise<ClientEvent> {
    if (!this.#engine) throw new Error("the session is not open");
    const reply = await this.#engine.request({ type: "session.trust", trust_level: level });
    if (reply.type === "session.trusted" && this.#engine.session) {
      this.#engine.session = { ...this.#engine.session, hooks: reply.hooks, workspace_trust: reply.workspace_trust };
    }
    return reply;
  }

  /** The session's custom commands (`session.started.commands`). */
  get commands(): EventOf<"session.started">["commands"] {
    return this.#engine?.session?.commands ?? [];
  }

  /**
   * Sends a prompt (queued by the engine behind a running turn); resolves with the turn.start's request id. A prompt
   * `/name arguments` naming one of the session's custom commands runs it; any other is sent as typed.
   */
  async submit(prompt: string, attachments: Attachment[] = []): Promise<string> {
    if (!this.#engine) throw new Error("the session is not open");
    this.#busy = true;
    const command = prompt.startsWith("/") ? slashCommand(prompt, this.commands.map((entry) => entry.name)) : undefined;
    return this.#engine.send({
      type: "turn.start",
      prompt,
      ...(attachments.length > 0 ? { attachments } : {}),
      ...(command === undefined ? {} : { command }),
    });
  }

  /** Forks the open session into a new stored one (session.fork); resolves with the new id. */
  async fork(): Promise<string> {
    const engine = this.#engine;
    if (!engine?.session) throw new Error("the session is not open");
    const reply = await engine.requestStored({ type: "session.fork", session_id: engine.session.session_id });
    if (reply.type !== "session.forked") throw new Error(`the engine answered session.fork with ${reply.type}`);
    return reply.session_id;
  }

  /**
   * Changes the running session's approval policy and/or model (`session.configure`); resolves with the reply
   * (`session.configured`, or the `error` that refused it). The conversation stays.
   */
  async configure(fields: { approval_policy?: string; model?: string }): Promise<ClientEvent> {
    if (!this.#engine) throw new Error("the session is not open");
    const reply = await this.#engine.request({ type: "session.configure", ...fields });
    if (reply.type === "session.configured" && this.#engine.session) {
      this.#engine.session = {
        ...this.#engine.session,
        model: reply.model,
        approval_policy: reply.approval_policy,
        policy: reply.policy,
      };
    }
    return reply;
  }

  /** Clears the conversation (session.clear). */
  async clear(): Promise<void> {
    await this.#engine?.send({ type: "session.clear" });
  }

  /**
   * Undo, rewind, compaction and usage (docs/sessions.md): each resolves with its reply (`session.rewound`,
   * `session.compacted`, `session.usage`) or the `error` that refused it. A compaction's reply comes when the model's
   * summary is done.
   */
  async longSessionRequest(
    message:
      | { type: "session.undo"; force?: boolean }
      | { type: "session.rewind"; turn_id: string; restore: string; force?: boolean }
      | { type: "session.compact"; focus?: string }
      | { type: "session.usage" },
  ): Promise<ClientEvent> {
    if (!this.#engine) throw new Error("the session is not open");
    return await this.#engine.request(message);
  }

  /** Cancels the running turn, withdrawing its questions; false when no turn runs. */
  cancel(): boolean {
    if (!this.#turnId || !this.#engine) return false;
    this.#asking = undefined;
    this.#waiting = [];
    this.#cancelling = true;
    this.#engine.notify({ type: "turn.cancel", turn_id: this.#turnId });
    return true;
  }

  /**
   * Answers the current question and returns it; the next waiting one (if any) becomes `asking` (the caller, who
   * answered, shows it: `onAsk` is only for arrivals).
   */
  answer(approved: boolean, remember?: Remember): PendingApproval | undefined {
    const answered = this.#asking;
    if (!answered) return undefined;
    this.#asking = this.#waiting.shift();
    this.#resolve(answered, approved, remember);
    return answered;
  }

  /** Resolves when the current turn ends (or its turn.start is refused); at once when nothing runs. */
  turnEnded(): Promise<void> {
    if (!this.#busy) return Promise.resolve();
    return new Promise((resolve) => this.#turnEnds.push(resolve));
  }

  #onEvent(event: ClientEvent): void {
    let approval: PendingApproval | undefined;
    switch (event.type) {
      case "turn.started":
        this.#busy = true;
        this.#turnId = event.turn_id;
        this.#proposed.clear();
        break;
      case "tool.proposed":
        this.#proposed.set(event.call_id, event.arguments);
        break;
      case "approval.requested":
        approval = {
          approvalId: event.approval_id,
          callId: event.call_id,
          name: event.name,
          // A sub-agent's call (issue 20) was never proposed to this client: what the approval shows stands for its
          // arguments, so "always allow" covers only that exact call, not every call of the tool.
          args: this.#proposed.get(event.call_id) ??
            { approval: { summary: event.summary, detail: event.detail ?? null } },
          risk: event.risk,
          summary: event.summary,
          ...(event.diff === undefined ? {} : { diff: event.diff }),
          ...(event.reason === undefined ? {} : { reason: event.reason }),
          ...(event.rule === undefined ? {} : { rule: event.rule }),
        };
        break;
      case "turn.completed":
      case "turn.failed":
      case "turn.cancelled":
        this.#settle();
        break;
      case "error":
        // A refused turn.start (an oversized prompt, a full queue) never starts a turn.
        if (!this.#turnId) this.#settle();
        break;
      case "engine.closed":
        this.#settle();
        break;
    }
    this.#hooks.onEvent(event);
    if (approval) this.#ask(approval);
  }

  #ask(approval: PendingApproval): void {
    const decided = this.#hooks.onApproval?.(approval);
    if (decided !== undefined) return this.#resolve(approval, decided);
    if (this.#asking) {
      this.#waiting.push(approval);
      return;
    }
    this.#asking = approval;
    this.#hooks.onAsk?.(approval);
  }

  #resolve(approval: PendingApproval, approved: boolean, remember?: Remember): void {
    this.#engine?.notify({
      type: "approval.resolve",
      approval_id: approval.approvalId,
      approved,
      ...(remember === undefined ? {} : { remember }),
    });
  }

  // The turn is over: no turn, no questions, and whoever waited for its end goes on.
  #settle(): void {
    this.#busy = false;
    this.#cancelling = false;
    this.#turnId = undefined;
    this.#asking = undefined;
    this.#waiting = [];
    for (const resume of this.#turnEnds.splice(0)) resume();
  }
}
