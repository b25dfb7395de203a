// The terminal chat: one engine session through the shared session controller, rendered by the chat view, fed by
// one prompt source (keys, lines or the demo) chosen here once; approvals are answered with y / n / a (or
// remembered for the session), and slash commands change the session.
import type { Attachment } from "../protocol/index.ts";
import { type ClientEvent } from "../protocol/index.ts";
import {
  type ClientFlags,
  EngineError,
  listStoredSessions,
  NO_SESSION_TO_CONTINUE,
  type PreparedOptions,
} from "../embed/index.ts";
import { createStyle, type Paint, rememberedText, retryText, type Style } from "../render/index.ts";
import { imageAttachment, type PendingApproval, SessionController } from "../client/index.ts";
import { createLogger, type Logger, silentLogger } from "../util/log.ts";
import { type DemoPacing, DemoPrompts } from "./demo_prompts.ts";
import { DEFAULT_HISTORY_LIMITS, type HistoryLimits, loadHistory, saveHistory } from "./history_file.ts";
import { KeyPrompts } from "./key_prompts.ts";
import { LinePrompts } from "./line_prompts.ts";
import { type ApprovalAnswer, type ChatControls, CONTINUATION, PROMPT, type PromptSource } from "./prompt_source.ts";
import { pickerRows, pickSession, replayRows, type StoredSessionRow } from "./session_picker.ts";
import { type CommandChat, COMMANDS, findCommand } from "./commands/index.ts";
import { parseSlash, pastedPath } from "./slash.ts";
import type { McpStatusEvent } from "./mcp_view.ts";
import { SPINNER_FRAME_MS } from "./status.ts";
import { ChatView, type ViewTerminal } from "./view.ts";
import { ConversationTurns } from "./conversation_turns.ts";

export type ChatTerminal = ViewTerminal & {
  input: NodeJS.ReadableStream & { setRawMode?: (raw: boolean) => unknown; isTTY?: boolean };
};

export type ChatSetup = {
  terminal: ChatTerminal;
  flags: ClientFlags;
  cwd: string;
  /** The folder the user works in (the workspace or below it); relative image paths start there. */
  workingFolder?: string;
  /** Builds the engine options for the current flags (called again by /model and /approvals). */
  prepare: (flags: ClientFlags) => Promise<PreparedOptions>;
  historyPath: string | undefined;
  /** Demo mode: these prompts are typed for the user and approvals are granted automatically. */
  demoPrompts?: string[];
  /** Demo pacing in a terminal: a pause before each prompt and the delay per typed character. */
  demoPacing?: DemoPacing;
  log?: Logger;
  /** Start by resuming a stored session: this id, this workspace's latest, or one the user picks from a list. */
  resume?: { id: string } | { latest: true } | { pick: true };
};

type StartRequest = { resume?: string; continue?: boolean };

function chooseSource(setup: ChatSetup, style: Style): PromptSource {
  const { terminal } = setup;
  const keys = terminal.interactive ? terminal : undefined;
  if (setup.demoPrompts !== undefined) return new DemoPrompts(setup.demoPrompts, style, keys, setup.demoPacing);
  return keys ? new KeyPrompts(keys, style) : new LinePrompts(terminal.input);
}

export class ChatApp implements ChatControls {
  readonly controller: SessionController;
  readonly #setup: ChatSetup;
  readonly #view: ChatView;
  readonly #source: PromptSource;
  #prepared: PreparedOptions | undefined;
  #flags: ClientFlags;
  #historyLimits: HistoryLimits = DEFAULT_HISTORY_LIMITS;
  #exit!: (code: number) => void;
  readonly #exited: Promise<number>;
  #closing = false;
  /** Echo rows of prompts queued behind a running turn, by the request id of their turn.start. */
  #queuedEchoes = new Map<string, string[]>();
  /** Stored sessions shown by the picker: the next submitted line answers it. */
  #picking: StoredSessionRow[] | undefined;
  /** The engine's error code when the last session start was refused. */
  #startFailure: string | undefined;
  /** Images staged by `/image` (or a pasted path) for the next prompt. */
  #attachments: Attachment[] = [];
  // The last mcp.server_status of each server of the current session (`/mcp`).
  #mcp = new Map<string, McpStatusEvent>();
  /** The last prompt-history save, awaited before the chat ends. */
  #historySaved: Promise<void> = Promise.resolve();
  /** Redraws the status line while a turn runs in a terminal (elapsed time, spinner, retry countdown). */
  #ticker: ReturnType<typeof setInterval> | undefined;
  #tickKey = "";
  #terminating = false;
  /** Set once `/approvals POLICY` changed the policy in this chat (it then outlives a /resume). */
  #policySetHere = false;
  /** The conversation's turns (`/rewind`), and a command's question the next line answers (its picker). */
  #turns = new ConversationTurns();
  #question: ((text: string) => Promise<boolean> | boolean) | undefined;

  constructor(setup: ChatSetup) {
    this.#setup = setup;
    this.#flags = { ...setup.flags };
    this.controller = new SessionController({
      onEvent: (event) => this.#onEvent(event),
      onApproval: (approval) => this.#decide(approval),
      onAsk: (approval) => this.#ask(approval),
    });
    const style = createStyle(setup.terminal.color);
    const source = chooseSource(setup, style);
    this.#source = source;
    this.#view = new ChatView(setup.terminal, style, this.controller, (room) => source.view(room));
    this.#view.model = this.#flags.model;
    this.#exited = new Promise((resolve) => {
      this.#exit = resolve;
    });
  }

  get style(): Style {
    return this.#view.style;
  }

  get closing(): boolean {
    return this.#closing;
  }

  get picking(): boolean {
    return this.#picking !== undefined || this.#question !== undefined;
  }

  /** Runs the chat until the user leaves (or the demo ends); resolves with the exit code. */
  async run(): Promise<number> {
    const history = this.#setup.historyPath ? await loadHistory(this.#setup.historyPath) : [];
    const banner = this.#source.banner(this.style);
    this.render([banner.title, ...banner.rows, this.style.dim(`workspace ${this.#setup.cwd}`)]);
    // The source takes the input first, so keys typed while the session starts are kept.
    this.#source.attach(this, history);
    const resume = this.#setup.resume;
    if (resume !== undefined && "pick" in resume) {
      // The engine starts once the user has answered the picker.
      if (!(await this.#showPicker())) {
        await this.#shutdown();
        return 1;
      }
    } else if (
      !(await this.#startEngine(
        resume === undefined ? {} : "id" in resume ? { resume: resume.id } : { continue: true },
      ))
    ) {
      await this.#shutdown();
      // An unknown session id (or nothing to continue) is a usage error, as in scv exec.
      return this.#startFailure === "session_not_found" ? 2 : 1;
    }
    if (this.#source.usageHint) this.render([...this.#view.wrapped([this.#source.usageHint]), ""]);
    this.#source.run();
    const code = await this.#exited;
    await this.#shutdown();
    return code;
  }

  /** Ctrl-C delivered as a signal (plain mode, the demo). */
  interrupt(): void {
    this.#source.interrupt();
  }

  /** Redraws the live region (after a terminal resize). */
  redraw(): void {
    this.#view.redraw();
  }

  /** Ends the chat from outside (a signal). */
  stop(code: number): void {
    this.#exit(code);
  }

  /**
   * SIGTERM: a running turn is cancelled first, so what it printed stays and `turn cancelled` follows it; then the
   * chat ends with `code` (at the latest after `graceMs`).
   */
  terminate(code: number, graceMs = 2000): void {
    if (this.#terminating) return;
    this.#terminating = true;
    if (!this.controller.busy || !this.controller.cancel()) return this.#exit(code);
    this.render([]);
    const grace = setTimeout(() => this.#exit(code), graceMs);
    void this.controller.turnEnded().then(() => {
      clearTimeout(grace);
      this.#exit(code);
    });
  }

  // ---- ChatControls ----

  render(commit: string[]): void {
    if (this.#closing && commit.length === 0) return;
    this.#view.render(commit);
  }

  note(rows: string[], paint?: Paint): void {
    this.render(this.#view.wrapped(rows, paint));
  }

  indentOf(callId: string): string {
    return this.#view.transcript.indentOf(callId);
  }

  clearLive(): void {
    this.#view.clearLive();
  }

  exit(code: number): void {
    this.#exit(code);
  }

  cancelTurn(): boolean {
    if (!this.controller.cancel()) return false;
    this.render([]);
    return true;
  }

  answer(answer: ApprovalAnswer): void {
    const s = this.style;
    const approved = answer !== "n";
    // "keep" without a rule to keep (the engine offered none) is "always for this session".
    const keep = answer === "k" && this.controller.asking?.rule !== undefined;
    const remember = keep ? "always" : answer === "a" || answer === "k" ? "session" : undefined;
    const pending = this.controller.answer(approved, remember);
    if (!pending) return;
    const label = remember !== undefined
      ? s.green(`approved (${rememberedText(pending, remember)})`)
      : approved
      ? s.green("approved")
      : s.red("denied");
    this.render([`${this.indentOf(pending.callId)}  ${label}`]);
    const next = this.controller.asking;
    if (next) this.#source.ask(next);
  }

  /** `v` during an approval: the next page of its diff goes into the transcript (the terminal scrolls it). */
  pageApproval(): void {
    const pending = this.controller.asking;
    if (!pending) return;
    const { rows, remaining } = this.#view.transcript.moreOfApproval(pending.approvalId);
    if (rows.length === 0) return this.render([]);
    const indent = this.indentOf(pending.callId);
    const more = remaining > 0
      ? [`${indent}  ${this.style.dim(`… ${remaining} more diff lines: press v to show more`)}`]
      : [];
    this.render([...rows, ...more]);
  }

  // Saves run one after another (two overlapping writes of one file can interleave) and never reject.
  saveHistory(entries: readonly string[]): Promise<void> {
    const path = this.#setup.historyPath;
    if (!path) return Promise.resolve();
    const copy = [...entries];
    const limits = this.#historyLimits;
    this.#historySaved = this.#historySaved.then(() => saveHistory(path, copy, limits)).catch(() => {});
    return this.#historySaved;
  }

  async submit(text: string): Promise<boolean> {
    const s = this.style;
    if (this.#picking) return this.#answerPicker(text);
    if (this.#question) return this.#answerQuestion(text);
    const echoOf = (typed: string) =>
      typed.split("\n").map((line, index) => `${s.bold(index === 0 ? PROMPT : CONTINUATION)}${s.bold(line)}`);
    const slash = parseSlash(text);
    // A custom command (issue 30) is a prompt the engine expands: it goes to the engine as typed.
    if (slash && (findCommand(slash.name) !== undefined || !this.#isCustomCommand(text))) {
      // Echoed like a prompt, so the transcript shows what the answer below it answers.
      this.render(echoOf(text.trim()));
      return this.#command(slash.name, slash.argument);
    }
    // A pasted path of an image file (terminals may quote it) stages the image instead of sending the path.
    const pasted = pastedPath(text);
    if (pasted !== undefined && (await this.#stageImage(pasted, true))) return false;
    const echo = echoOf(text);
    if (!this.controller.open) {
      this.render([s.dim("the session is not ready yet; try again in a moment")]);
      return false;
    }
    // A prompt sent while a turn runs is queued by the engine: it is echoed when its own turn starts, so the
    // transcript reads prompt, answer, prompt, answer.
    const queued = this.controller.busy;
    if (!queued) this.render(echo);
    const attachments = this.#attachments;
    this.#attachments = [];
    if (attachments.length > 0)
      echo.push(s.dim(`  with ${attachments.map((attachment) => attachment.name).join(", ")}`));
    const requestId = await this.controller.submit(text, attachments);
    this.#turns.sent(requestId, text);
    if (queued) this.#queuedEchoes.set(requestId, echo);
    this.render([]);
    return false;
  }

  // ---- engine ----

  #log(): Logger {
    return this.#setup.log ?? (process.env.SCV_LOG ? createLogger(process.env.SCV_LOG, "scv chat") : silentLogger);
  }

  /** Lists this workspace's stored sessions for the user to pick from; false when even that failed. */
  async #showPicker(): Promise<boolean> {
    let sessions: StoredSessionRow[];
    try {
      const prepared = await this.#setup.prepare(this.#flags);
      try {
        sessions = await listStoredSessions(prepared.options, this.#log(), this.#setup.cwd);
      } finally {
        await prepared.close();
      }
    } catch (error) {
      this.note([`error: could not list the stored sessions: ${(error as Error).message}`], this.style.red);
      return false;
    }
    if (sessions.length === 0) {
      this.note(pickerRows(sessions, this.style));
      return this.controller.open || this.#startEngine();
    }
    this.#picking = sessions;
    this.render(pickerRows(sessions, this.style, this.controller.open));
    return true;
  }

  async leavePicker(key: "escape" | "ctrl-c"): Promise<void> {
    if (this.#question !== undefined) {
      await this.#answerQuestion("");
      return;
    }
    if (this.#picking === undefined) return;
    this.#picking = undefined;
    if (this.controller.open) {
      this.note(["picker closed; the current session goes on"]);
      return;
    }
    if (key === "ctrl-c") return this.#exit(0);
    if (!(await this.#startEngine())) this.#exit(1);
  }

  // A command's question (the /rewind list): echoed like a prompt, then answered by the command.
  #answerQuestion(text: string): Promise<boolean> | boolean {
    const answer = this.#question!;
    this.#question = undefined;
    if (text.trim() !== "") this.render([`${this.style.bold(PROMPT)}${this.style.bold(text.trim())}`]);
    return answer(text);
  }

  async #answerPicker(text: string): Promise<boolean> {
    const sessions = this.#picking!;
    const chosen = pickSession(text, sessions);
    if (chosen === "invalid") {
      this.note([`type a number from 1 to ${Math.min(sessions.length, 20)}, or press Enter for a new session`]);
      return false;
    }
    this.#picking = undefined;
    if (this.controller.open) await this.#stopEngine();
    if (await this.#startEngine(chosen === undefined ? {} : { resume: chosen.session_id })) return false;
    this.#exit(1);
    return true;
  }

  async #startEngine(request: StartRequest = {}): Promise<boolean> {
    try {
      this.#prepared = await this.#setup.prepare(this.#flags);
      const started = await this.controller.start(this.#prepared.options, this.#log(), {
        cwd: this.#setup.cwd,
        ...(this.#setup.workingFolder === undefined ? {} : { working_folder: this.#setup.workingFolder }),
        ...request,
      });
      this.#historyLimits = {
        maxItems: started.max_prompt_history_items || DEFAULT_HISTORY_LIMITS.maxItems,
        maxBytes: started.max_prompt_history_bytes || DEFAULT_HISTORY_LIMITS.maxBytes,
      };
      const policy = this.#flags.approvalPolicy ? ` · approvals ${this.#flags.approvalPolicy}` : "";
      const how = request.resume !== undefined || request.continue === true ? "session resumed" : "session started";
      this.note([`${how} · model ${started.model}${policy}`]);
      if (started.context_window.warning) this.note([`warning: ${started.context_window.warning}`], this.style.yellow);
      // Project hooks in a folder the user never answered about (issue 30): asked once; /trust answers for good.
      const skipped = started.hooks.filter((hook) => hook.status === "skipped");
      if (skipped.length > 0 && started.workspace_trust === "unknown") {
        this.note([
          `this folder's .scv/config.toml has ${skipped.length} hook(s), which run commands: they are skipped until ` +
          "you trust the folder. /trust runs them (from now on, recorded in your user file); /trust no keeps them " +
          "off and stops this question; /status lists them.",
        ], this.style.yellow);
      }
      return true;
    } catch (error) {
      this.#startFailure = error instanceof EngineError ? error.code : undefined;
      await this.#prepared?.close();
      this.#prepared = undefined;
      // The engine's refusal was shown already, as its error event; anything else was not (such as finding no
      // session to continue, the client's own conclusion).
      if (!(error instanceof EngineError) || error.message === NO_SESSION_TO_CONTINUE) {
        this.note([`error: could not start a session: ${(error as Error).message}`], this.style.red);
      }
      return false;
    }
  }

  async #stopEngine(): Promise<void> {
    await this.controller.close();
    await this.#prepared?.close();
    this.#prepared = undefined;
  }

  async #shutdown(): Promise<void> {
    this.#closing = true;
    this.#stopTicker();
    const { input } = this.#setup.terminal;
    // The terminal may be gone (SIGHUP after the window closed): restoring it then fails with EIO, and the
    // session must still be shut down and its temporary files removed.
    try {
      this.#source.detach();
      input.removeAllListeners("data");
      (input as NodeJS.ReadableStream & { pause(): void }).pause();
      this.#view.close();
    } catch {
      // Nothing left to restore.
    }
    await this.#stopEngine();
    await this.#historySaved;
  }

  // ---- events ----

  #onEvent(event: ClientEvent): void {
    if (this.#closing) return;
    const rows = this.#view.transcript.apply(event);
    this.#turns.apply(event);
    this.#view.activity.apply(event);
    this.#tick();
    switch (event.type) {
      case "turn.retrying":
        // A terminal shows the retry in its status line; a pipe has none, so it gets a row.
        if (!this.#setup.terminal.interactive) rows.push(this.style.dim(`  (${retryText(event)})`));
        break;
      case "session.started":
        this.#mcp.clear();
        break;
      case "mcp.server_status":
        this.#mcp.set(event.server, event);
        if (event.state === "failed")
          rows.push(this.style.yellow(`MCP server ${event.server} failed: ${event.reason ?? "no reason given"}`));
        break;
      case "turn.started": {
        const echo = this.#queuedEchoes.get(event.request_id);
        this.#queuedEchoes.delete(event.request_id);
        if (echo) rows.unshift(...echo);
        break;
      }
      case "error":
        // A refused turn.start (e.g. an oversized prompt, a full queue) never echoes its prompt.
        if (event.request_id !== undefined) this.#queuedEchoes.delete(event.request_id);
        break;
      case "session.replay":
        rows.push(...replayRows(event.turns, event.omitted_turns, this.style, PROMPT));
        for (const warning of event.warnings) rows.push(this.style.yellow(`note: ${warning}`));
        break;
      case "engine.closed":
        if (this.controller.engineClosed) {
          rows.push(this.style.red("the engine connection closed"));
          this.#exit(1);
        }
        break;
    }
    this.render(rows);
  }

  // While a turn runs in a terminal, the status line is redrawn whenever what it shows of the turn changes.
  #tick(): void {
    const activity = this.#view.activity;
    if (!this.#setup.terminal.interactive || !activity.running) return this.#stopTicker();
    if (this.#ticker !== undefined) return;
    this.#tickKey = activity.key();
    this.#ticker = setInterval(() => {
      const key = activity.key();
      if (key === this.#tickKey) return;
      this.#tickKey = key;
      this.render([]);
    }, SPINNER_FRAME_MS);
    this.#ticker.unref?.();
  }

  #stopTicker(): void {
    clearInterval(this.#ticker);
    this.#ticker = undefined;
  }

  #decide(approval: PendingApproval): boolean | undefined {
    if (this.#closing) return undefined;
    const decided = this.#source.decide(approval);
    return decided;
  }

  #ask(approval: PendingApproval): void {
    if (this.#closing) return;
    this.render([]);
    this.#source.ask(approval);
  }

  // ---- slash commands ----

  /** Stages the image at `file` for the next prompt; a pasted path that is no image is quietly sent as text. */
  async #stageImage(file: string, pasted: boolean): Promise<boolean> {
    let attachment: Attachment;
    try {
      attachment = await imageAttachment(file, this.#setup.workingFolder ?? this.#setup.cwd);
    } catch (error) {
      if (!pasted) this.note([`error: ${(error as Error).message}`], this.style.red);
      return false;
    }
    if (this.#attachments.length >= 16) {
      this.note(["a turn may attach at most 16 files"], this.style.red);
      return true;
    }
    this.#attachments.push(attachment);
    this.note([
      `attached ${attachment.name} (${attachment.mime}, ${attachment.size} bytes); it goes with your next prompt`,
    ]);
    return true;
  }

  /** Whether `text` starts with the name of one of the session's custom commands (built-in ones win a clash). */
  #isCustomCommand(text: string): boolean {
    const name = /^\/(\S+)/.exec(text.trim())?.[1];
    return name !== undefined && this.controller.commands.some((command) => command.name === name);
  }

  async #command(name: string, argument: string): Promise<boolean> {
    const command = findCommand(name);
    if (command === undefined) {
      this.render([
        `${this.style.yellow(`unknown command /${name}`)}${this.style.dim(" · /help lists the commands")}`,
      ]);
      return false;
    }
    return await command.run(this.#commandChat(), argument);
  }

  /** The chat as its slash commands see it (lib/chat/commands/command.ts). */
  #commandChat(): CommandChat {
    // deno-lint-ignore no-this-alias
    const app = this;
    return {
      style: this.style,
      controller: this.controller,
      commands: COMMANDS,
      get flags() {
        return app.#flags;
      },
      get policySetHere() {
        return app.#policySetHere;
      },
      set policySetHere(value: boolean) {
        app.#policySetHere = value;
      },
      prompt: async (text) => {
        await this.submit(text);
      },
      note: (rows) => this.note(rows),
      render: (rows) => this.render(rows),
      exit: (code) => this.#exit(code),
      stagedImages: () => this.#attachments.map((attachment) => attachment.name ?? attachment.path),
      stageImage: (path) => this.#stageImage(path, false),
      mcpStatus: () => this.#mcp,
      usage: () => ({ last: this.#view.transcript.lastUsage, total: this.#view.transcript.totalUsage }),
      switchSession: (name, argument) => this.#switchSession(name, argument),
      configure: (fields, flags, what) => this.#configure(fields, flags, what),
      turns: () => this.#turns.list,
      width: this.#view.width(),
      askNext: (answer) => {
        this.#question = answer;
      },
    };
  }

  // `/resume [ID]` (no id: the picker) and `/fork` (a copy of this session, which then goes on in the copy).
  async #switchSession(name: "resume" | "fork", argument: string): Promise<boolean> {
    if (this.controller.busy) {
      this.render([this.style.dim("cancel the running turn first (Esc)")]);
      return false;
    }
    let id = argument;
    if (name === "fork") {
      try {
        id = await this.controller.fork();
      } catch (error) {
        const nothing = error instanceof EngineError && error.code === "session_not_found";
        this.note([
          nothing
            ? "nothing to fork yet: this session has no turns"
            : `error: could not fork: ${(error as Error).message}`,
        ]);
        return false;
      }
      this.note([`forked into session ${id}; going on in the fork (the original is unchanged)`]);
    } else if (id === "") {
      return !(await this.#showPicker());
    }
    const previous = this.controller.session?.session_id;
    await this.#stopEngine();
    if (await this.#startEngine({ resume: id })) return false;
    // An unknown id: go back to the session we were in.
    if (previous !== undefined && (await this.#startEngine({ resume: previous }))) return false;
    if (await this.#startEngine()) return false;
    this.#exit(1);
    return true;
  }

  // `session.configure` changes the running session: the conversation (and the always-allowed calls) stay.
  async #configure(
    fields: { model?: string; approval_policy?: string },
    flags: ClientFlags,
    what: string,
  ): Promise<boolean> {
    let reply;
    try {
      reply = await this.controller.configure(fields);
    } catch (error) {
      this.note([`could not switch to ${what}: ${(error as Error).message}`], this.style.red);
      return false;
    }
    if (reply.type !== "session.configured") {
      this.note([`could not switch to ${what}: ${"message" in reply ? reply.message : reply.type}`], this.style.red);
      return false;
    }
    this.#flags = flags;
    this.#view.model = reply.model;
    const when = this.controller.busy && fields.model !== undefined ? " (the model from the next turn)" : "";
    this.note([`switched to ${what}${when}; the conversation continues`]);
    return false;
  }
}
