// The terminal chat: one engine session over the in-process protocol, a prompt with a line editor, inline
// rendering of every event, approvals answered with y / n / a, slash commands, and the scripted demo.
import { createInterface } from "node:readline";
import type { ApprovalPolicy } from "../config/types.ts";
import { silentLogger, createLogger, type Logger } from "../server/log.ts";
import { ApprovalMemory, bashPrefix } from "./approval_memory.ts";
import { openEngine, type EngineClient } from "./engine.ts";
import { loadHistory, saveHistory, type HistoryLimits, DEFAULT_HISTORY_LIMITS } from "./history_file.ts";
import { KeyReader, type Key } from "./keys.ts";
import { LineEditor } from "./line_editor.ts";
import { InlineScreen, PlainScreen, cursorColumn, type LiveRegion, type Screen } from "./screen.ts";
import type { ClientFlags, PreparedOptions } from "./session_options.ts";
import { helpText, parseSlash } from "./slash.ts";
import { formatStatus } from "./status.ts";
import { createStyle, displayWidth, stripControls, truncateText, wrapPlain, type Paint, type Style } from "./style.ts";
import { formatUsage, Transcript, type ServerEvent } from "./transcript.ts";

export type ChatTerminal = {
  input: NodeJS.ReadableStream & { setRawMode?: (raw: boolean) => unknown; isTTY?: boolean };
  output: NodeJS.WritableStream;
  /** Raw-mode keys and the inline live region; false = plain line mode. */
  interactive: boolean;
  color: boolean;
  columns: () => number;
  /** Terminal height; the live region is kept below it so it can always be redrawn in place. */
  rows?: () => number;
};

export type ChatSetup = {
  terminal: ChatTerminal;
  flags: ClientFlags;
  cwd: string;
  /** Builds the engine options for the current flags (called again by /model and /approvals). */
  prepare: (flags: ClientFlags) => Promise<PreparedOptions>;
  historyPath: string | undefined;
  /** Demo mode: these prompts are typed for the user and approvals are granted automatically. */
  demoPrompts?: string[];
  /** Demo pacing in a terminal: a pause before each prompt and the delay per typed character. */
  demoPacing?: { pauseMs: number; typeMs: number };
  log?: Logger;
};

const POLICIES: ApprovalPolicy[] = ["on-risk", "always", "never"];
const PROMPT = "› ";
const CONTINUATION = "  ";

type PendingApproval = { approvalId: string; name: string; args: unknown; indent: string };

/** What "always" covers for this call, as the question says it. */
function alwaysScope(pending: PendingApproval): string {
  const prefix = pending.name === "bash" ? bashPrefix(pending.args) : undefined;
  return prefix === undefined ? "lways for this session" : `lways allow \`${stripControls(prefix.join(" "))} …\` this session`;
}

/** The end of `text` that fits in `maxRows` rows of `columns`, marked with "…" when cut. */
export function tailToRows(text: string, columns: number, maxRows: number): string {
  const budget = columns * maxRows - 1;
  if (displayWidth(text) <= budget + 1) return text;
  const chars = [...text];
  let width = 0;
  let index = chars.length;
  while (index > 0 && width + displayWidth(chars[index - 1]!) <= budget - 1) {
    index -= 1;
    width += displayWidth(chars[index]!);
  }
  return `…${chars.slice(index).join("")}`;
}

export class ChatApp {
  #setup: ChatSetup;
  #style: Style;
  #screen: Screen;
  #transcript: Transcript;
  #editor = new LineEditor();
  #memory = new ApprovalMemory();
  #engine: EngineClient | undefined;
  #prepared: PreparedOptions | undefined;
  #flags: ClientFlags;
  #proposed = new Map<string, { name: string; args: unknown }>();
  #approval: PendingApproval | undefined;
  #approvalQueue: PendingApproval[] = [];
  #busy = false;
  #cancelling = false;
  #turnId: string | undefined;
  #hint = "";
  #historyLimits: HistoryLimits = DEFAULT_HISTORY_LIMITS;
  #turnDone: (() => void) | undefined;
  #exit!: (code: number) => void;
  readonly #exited: Promise<number>;
  #closing = false;
  /** Echo rows of prompts queued behind a running turn, by the request id of their turn.start. */
  #queuedEchoes = new Map<string, string[]>();
  #rawMode = false;
  #demoStopping = false;
  /** The part of a demo prompt "typed" so far, shown in the prompt row. */
  #demoTyped: string | undefined;
  /** The last prompt-history save, awaited before the chat ends. */
  #historySaved: Promise<void> = Promise.resolve();

  constructor(setup: ChatSetup) {
    this.#setup = setup;
    this.#flags = { ...setup.flags };
    this.#style = createStyle(setup.terminal.color);
    const { terminal } = setup;
    this.#screen = terminal.interactive ? new InlineScreen(terminal.output, terminal.columns) : new PlainScreen(terminal.output);
    this.#transcript = new Transcript(this.#style, this.#width());
    this.#exited = new Promise((resolve) => {
      this.#exit = resolve;
    });
  }

  #width(): number {
    return Math.max(20, Math.min(this.#setup.terminal.columns(), 200));
  }

  /** Runs the chat until the user leaves (or the demo ends); resolves with the exit code. */
  async run(): Promise<number> {
    const s = this.#style;
    const demo = this.#setup.demoPrompts !== undefined;
    if (this.#setup.historyPath && !demo) this.#editor = new LineEditor(await loadHistory(this.#setup.historyPath));
    this.#render([
      `${s.bold("scv chat")}${demo ? s.yellow(" · offline demo (recorded responses, no network)") : ""}`,
      ...(demo && this.#setup.terminal.interactive ? [s.dim("Ctrl-C or q stops the demo")] : []),
      s.dim(`workspace ${this.#setup.cwd}`),
    ]);
    // Raw mode first, so keys typed while the session starts are kept (and Ctrl-D is a key, not EOF).
    // The demo reads keys too (no echo into the live region; Ctrl-C, Esc or q stop it).
    if (this.#setup.terminal.interactive) this.#readKeys();
    if (!(await this.#startEngine())) {
      await this.#shutdown();
      return 1;
    }
    if (!demo) this.#render([...this.#wrapped(["Enter sends · Ctrl-J new line · /help for commands · Ctrl-C twice exits"]), ""]);
    if (demo) void this.#playDemo(this.#setup.demoPrompts!);
    else if (!this.#setup.terminal.interactive) this.#readLines();
    const code = await this.#exited;
    await this.#shutdown();
    return code;
  }

  async #startEngine(): Promise<boolean> {
    const s = this.#style;
    try {
      this.#prepared = await this.#setup.prepare(this.#flags);
      const log = this.#setup.log ?? (process.env.SCV_LOG ? createLogger(process.env.SCV_LOG) : silentLogger);
      this.#engine = await openEngine(
        this.#prepared.options,
        log,
        { cwd: this.#setup.cwd },
        (event) => this.#onEvent(event),
      );
    } catch (error) {
      await this.#prepared?.close();
      this.#prepared = undefined;
      this.#render(this.#wrapped([`error: could not start a session: ${(error as Error).message}`], s.red));
      return false;
    }
    const started = this.#engine.session!;
    this.#historyLimits = {
      maxItems: Number(started.max_prompt_history_items) || DEFAULT_HISTORY_LIMITS.maxItems,
      maxBytes: Number(started.max_prompt_history_bytes) || DEFAULT_HISTORY_LIMITS.maxBytes,
    };
    const policy = this.#flags.approvalPolicy ? ` · approvals ${this.#flags.approvalPolicy}` : "";
    this.#render(this.#wrapped([`session started · model ${started.model}${policy}`]));
    return true;
  }

  async #stopEngine(): Promise<void> {
    const engine = this.#engine;
    this.#engine = undefined;
    if (engine) await engine.close();
    await this.#prepared?.close();
    this.#prepared = undefined;
  }

  async #shutdown(): Promise<void> {
    this.#closing = true;
    const { input } = this.#setup.terminal;
    // The terminal may be gone (SIGHUP after the window closed): restoring it then fails with EIO, and the
    // session must still be shut down and its temporary files removed.
    try {
      if (this.#rawMode) {
        this.#rawMode = false;
        input.setRawMode?.(false);
        this.#setup.terminal.output.write("\x1b[?2004l");
      }
      input.removeAllListeners("data");
      (input as NodeJS.ReadableStream & { pause(): void }).pause();
      this.#screen.close();
    } catch {
      // Nothing left to restore.
    }
    await this.#stopEngine();
    await this.#historySaved;
  }

  // ---- events ----

  #onEvent(event: ServerEvent): void {
    if (this.#closing) return;
    const s = this.#style;
    const rows = this.#transcript.apply(event);
    switch (event.type) {
      case "turn.started": {
        this.#busy = true;
        this.#turnId = event.turn_id;
        const echo = this.#queuedEchoes.get(event.request_id);
        this.#queuedEchoes.delete(event.request_id);
        if (echo) rows.unshift(...echo);
        break;
      }
      case "tool.proposed":
        this.#proposed.set(event.call_id, { name: event.name, args: event.arguments });
        break;
      case "approval.requested": {
        const args = this.#proposed.get(event.call_id)?.args ?? {};
        const pending = { approvalId: event.approval_id, name: event.name, args, indent: this.#transcript.indentOf(event.call_id) };
        if (this.#setup.demoPrompts !== undefined) {
          rows.push(...this.#wrapped([`${pending.indent}  [demo] approved automatically (in a real chat you answer y, n or a)`], s.yellow));
          this.#resolveApproval(pending, true);
        } else if (this.#memory.allows(event.name, args)) {
          rows.push(`${pending.indent}  ${s.green("approved")} ${s.dim("(always allowed for this session)")}`);
          this.#resolveApproval(pending, true);
        } else if (this.#approval) {
          this.#approvalQueue.push(pending);
        } else {
          this.#approval = pending;
          if (!this.#screen.interactive) rows.push(`Allow? [y]es / [n]o / [a]${alwaysScope(pending)}:`);
        }
        break;
      }
      case "turn.completed":
      case "turn.failed":
      case "turn.cancelled":
        this.#busy = false;
        this.#cancelling = false;
        this.#turnId = undefined;
        this.#approval = undefined;
        this.#approvalQueue = [];
        this.#turnDone?.();
        break;
      case "error":
        // A rejected turn.start (e.g. an oversized prompt, a full queue) never starts a turn, nor echoes its prompt.
        this.#queuedEchoes.delete(event.request_id);
        if (!this.#turnId) {
          this.#busy = false;
          this.#turnDone?.();
        }
        break;
      case "engine.closed":
        if (!this.#closing && this.#engine?.closed) {
          rows.push(s.red("the engine connection closed"));
          this.#exit(1);
        }
        break;
    }
    this.#render(rows);
    this.#answerFromLines();
  }

  #resolveApproval(pending: PendingApproval, approved: boolean): void {
    this.#engine?.notify({ type: "approval.resolve", approval_id: pending.approvalId, approved });
  }

  #answerApproval(answer: "y" | "n" | "a"): void {
    const pending = this.#approval;
    if (!pending) return;
    const s = this.#style;
    this.#approval = this.#approvalQueue.shift();
    const approved = answer !== "n";
    if (answer === "a") this.#memory.remember(pending.name, pending.args);
    const label =
      answer === "a" ? s.green(`approved (a${alwaysScope(pending)})`) : approved ? s.green("approved") : s.red("denied");
    this.#render([`${pending.indent}  ${label}`]);
    this.#resolveApproval(pending, approved);
  }

  /** `v` during an approval: the next page of its diff goes into the transcript (the terminal scrolls it). */
  #pageApproval(): void {
    const pending = this.#approval;
    if (!pending) return;
    const { rows, remaining } = this.#transcript.moreOfApproval(pending.approvalId);
    if (rows.length === 0) return this.#render([]);
    const more = remaining > 0 ? [`${pending.indent}  ${this.#style.dim(`… ${remaining} more diff lines: press v to show more`)}`] : [];
    this.#render([...rows, ...more]);
  }

  // ---- rendering ----

  /** Rows of plain text, word-wrapped to the terminal and painted (dim by default). */
  #wrapped(rows: string[], paint: Paint = this.#style.dim): string[] {
    return rows.flatMap((row) => wrapPlain(row, this.#width() - 1)).map((row) => paint(row));
  }

  #render(commit: string[]): void {
    if (this.#closing && commit.length === 0) return;
    this.#screen.draw(commit, this.#screen.interactive ? this.#live() : undefined);
  }

  #live(): LiveRegion {
    const s = this.#style;
    const width = this.#width();
    const rows: string[] = [];
    const height = Math.max(6, this.#setup.terminal.rows?.() ?? 24);
    const partial = this.#transcript.partial;
    // A long unfinished line shows only its tail here; it is printed whole once it ends.
    if (partial !== "") rows.push(tailToRows(partial, width, Math.max(1, Math.floor(height / 3))));
    rows.push(...this.#transcript.liveProgress.slice(-3));
    if (this.#approval) {
      const name = truncateText(stripControls(this.#approval.name), 20);
      const long = `${s.yellow("?")} Allow ${s.bold(name)}? ${s.bold("[y]")}es / ${s.bold("[n]")}o / ${s.bold("[a]")}${alwaysScope(this.#approval)} `;
      const short = `${s.yellow("?")} Allow ${s.bold(name)}? ${s.bold("y")}/${s.bold("n")}/${s.bold("a")}(lways) `;
      rows.push(displayWidth(long) < width ? long : short);
      // The question takes the cursor; the prompt (and what was typed there) comes back once it is answered.
      if (this.#setup.demoPrompts === undefined) {
        const cursor = { cursorRow: rows.length - 1, cursorColumn: displayWidth(rows.at(-1)!) };
        rows.push(this.#status(width));
        return { rows, ...cursor };
      }
    }
    if (this.#setup.demoPrompts !== undefined) {
      if (this.#demoTyped === undefined) {
        rows.push(this.#status(width));
        return { rows, cursorRow: rows.length - 1, cursorColumn: displayWidth(rows.at(-1)!) };
      }
      rows.push(`${s.bold(PROMPT)}${this.#demoTyped}`, this.#status(width));
      return { rows, cursorRow: rows.length - 2, cursorColumn: cursorColumn(PROMPT, this.#demoTyped) };
    }
    const lines = this.#editor.text.split("\n");
    const before = this.#editor.text.slice(0, this.#editor.cursor).split("\n");
    const cursorLine = before.length - 1;
    // A prompt taller than the room left shows a window of lines around the cursor.
    const room = Math.max(1, height - rows.length - 2);
    const start = Math.max(0, Math.min(cursorLine - room + 1, lines.length - room));
    const first = rows.length - start;
    lines.forEach((line, index) => {
      if (index >= start && index < start + room) rows.push(`${s.bold(index === 0 ? PROMPT : CONTINUATION)}${line}`);
    });
    rows.push(this.#hint ? s.yellow(truncateText(this.#hint, width - 1)) : this.#status(width));
    return {
      rows,
      cursorRow: first + cursorLine,
      cursorColumn: cursorColumn(cursorLine === 0 ? PROMPT : CONTINUATION, before[cursorLine]!),
    };
  }

  #status(width: number): string {
    return formatStatus(
      {
        model: String(this.#engine?.session?.model ?? this.#flags.model ?? ""),
        state: this.#approval ? "approval" : this.#cancelling ? "cancelling" : this.#busy ? "working" : this.#engine ? "idle" : "starting",
        lastUsage: this.#transcript.lastUsage,
        totalUsage: this.#transcript.totalUsage,
        width,
      },
      this.#style,
    );
  }

  // ---- input ----

  #readKeys(): void {
    const { input } = this.#setup.terminal;
    input.setRawMode?.(true);
    this.#rawMode = true;
    // A closed terminal makes reads fail with EIO; SIGHUP ends the chat, this only keeps the error from crashing it.
    input.on("error", () => this.#exit(129));
    input.setEncoding?.("utf8");
    const reader = new KeyReader();
    input.on("data", (data: string | Buffer) => {
      for (const key of reader.feed(typeof data === "string" ? data : data.toString("utf8"))) this.#onKey(key);
    });
    // Bracketed paste (a mode switch, not a query): pasted line breaks stay in the prompt.
    this.#setup.terminal.output.write("\x1b[?2004h");
    input.once("end", () => this.#exit(0));
    input.resume();
    this.#render([]);
  }

  #onKey(key: Key): void {
    if (this.#closing) return;
    if (key.name === "suspend") return this.#suspend();
    if (this.#setup.demoPrompts !== undefined) {
      if (key.name === "ctrl-c") this.#stopDemo(130);
      else if (key.name === "escape" || key.name === "ctrl-d" || (key.name === "text" && key.text.trim().toLowerCase() === "q")) this.#stopDemo(0);
      return;
    }
    if (this.#approval) {
      const text = key.name === "text" ? (key.text === " " ? " " : key.text.trim().toLowerCase()) : "";
      if (text === "y" || text === "n" || text === "a") return this.#answerApproval(text);
      if (text === "v" || text === " ") return this.#pageApproval();
      if (key.name === "enter") return this.#answerApproval("n");
      if (key.name !== "ctrl-c" && key.name !== "escape") return;
    }
    const action = this.#editor.handle(key, this.#busy);
    this.#hint = "";
    switch (action.type) {
      case "submit":
        void this.#saveHistory();
        void this.#submit(action.text);
        return;
      case "cancel-turn":
        this.#cancelTurn();
        return;
      case "exit-hint":
        this.#hint = "Press Ctrl-C again to exit";
        break;
      case "exit":
        this.#exit(0);
        return;
    }
    this.#render([]);
  }

  // Ctrl-Z: give the terminal back (cooked mode, live region cleared) and stop like any job; on `fg`, take it again.
  #suspend(): void {
    if (process.platform === "win32") return;
    const { input, output } = this.#setup.terminal;
    this.#screen.draw([]);
    output.write("\x1b[?2004l");
    input.setRawMode?.(false);
    process.once("SIGCONT", () => {
      if (this.#closing) return;
      input.setRawMode?.(true);
      output.write("\x1b[?2004h");
      this.#render([]);
    });
    // The whole process group, like a Ctrl-Z typed in cooked mode, so a wrapper (npm, a shell script) stops too.
    process.kill(0, "SIGTSTP");
  }

  // Saves run one after another (two overlapping writes of one file can interleave) and never reject.
  #saveHistory(): Promise<void> {
    const path = this.#setup.historyPath;
    if (!path) return Promise.resolve();
    const entries = [...this.#editor.history];
    const limits = this.#historyLimits;
    this.#historySaved = this.#historySaved.then(() => saveHistory(path, entries, limits)).catch(() => {});
    return this.#historySaved;
  }

  #cancelTurn(): void {
    if (this.#turnId && this.#engine) {
      this.#approval = undefined;
      this.#approvalQueue = [];
      this.#cancelling = true;
      this.#render([]);
      this.#engine.notify({ type: "turn.cancel", turn_id: this.#turnId });
    }
  }

  #lineQueue: string[] = [];
  #linesEnded = false;
  #lineWaiter: ((line: string | undefined) => void) | undefined;

  // Plain mode: an approval question takes the next stdin line as its answer (y or a approve, anything else denies).
  #answerFromLines(): void {
    if (!this.#approval || this.#screen.interactive || this.#setup.demoPrompts !== undefined) return;
    const line = this.#lineQueue.shift();
    if (line !== undefined) {
      const answer = line.trim().toLowerCase()[0];
      this.#answerApproval(answer === "y" || answer === "a" ? answer : "n");
    } else if (this.#linesEnded) {
      this.#answerApproval("n");
    }
  }

  #readLines(): void {
    const lines = createInterface({ input: this.#setup.terminal.input, crlfDelay: Infinity });
    lines.on("line", (line) => {
      if (this.#lineWaiter) {
        const wake = this.#lineWaiter;
        this.#lineWaiter = undefined;
        wake(line);
      } else {
        this.#lineQueue.push(line);
        this.#answerFromLines();
      }
    });
    lines.on("close", () => {
      this.#linesEnded = true;
      this.#answerFromLines();
      this.#lineWaiter?.(undefined);
    });
    const next = () =>
      new Promise<string | undefined>((resolve) => {
        if (this.#lineQueue.length > 0) resolve(this.#lineQueue.shift());
        else if (this.#linesEnded) resolve(undefined);
        else this.#lineWaiter = resolve;
      });
    void (async () => {
      for (;;) {
        const line = await next();
        if (line === undefined) break;
        if (line.trim() === "") continue;
        this.#editor.remember(line);
        await this.#saveHistory();
        if (await this.#submit(line, true)) break;
      }
      this.#exit(0);
    })();
  }

  /** Handles a prompt or slash command; with `wait`, resolves after the turn ends. Resolves true to exit. */
  async #submit(text: string, wait = false): Promise<boolean> {
    const s = this.#style;
    const slash = parseSlash(text);
    if (slash) return this.#command(slash.name, slash.argument);
    const echo = text.split("\n").map((line, index) => `${s.bold(index === 0 ? PROMPT : CONTINUATION)}${s.bold(line)}`);
    if (!this.#engine) {
      this.#render([s.dim("the session is not ready yet; try again in a moment")]);
      return false;
    }
    // A prompt sent while a turn runs is queued by the engine: it is echoed when its own turn starts, so the
    // transcript reads prompt, answer, prompt, answer.
    const queued = this.#busy;
    if (!queued) this.#render(echo);
    const done = new Promise<void>((resolve) => {
      this.#turnDone = resolve;
    });
    this.#busy = true;
    const requestId = await this.#engine.send({ type: "turn.start", prompt: text });
    if (queued) this.#queuedEchoes.set(requestId, echo);
    this.#render([]);
    if (wait) await done;
    return false;
  }

  async #command(name: string, argument: string): Promise<boolean> {
    const s = this.#style;
    const note = (rows: string[]) => this.#render(this.#wrapped(rows));
    switch (name) {
      case "help":
        note(helpText());
        return false;
      case "exit":
        this.#exit(0);
        return true;
      case "usage":
        note([
          `last turn: ${this.#transcript.lastUsage ? formatUsage(this.#transcript.lastUsage) : "no turn yet"}`,
          `this chat: ${formatUsage(this.#transcript.totalUsage)}`,
        ]);
        return false;
      case "clear":
        if (this.#busy) {
          note(["cancel the running turn before clearing (Esc)"]);
          return false;
        }
        this.#memory.clear();
        await this.#engine?.send({ type: "session.clear" });
        return false;
      case "model":
        if (argument === "") {
          note([`model: ${this.#engine?.session?.model ?? "unknown"}`]);
          return false;
        }
        return this.#configure({ model: argument }, { ...this.#flags, model: argument }, `model ${argument}`);
      case "approvals":
        if (argument === "") {
          note([
            `approval policy: ${this.#flags.approvalPolicy ?? "from configuration (default on-risk)"}`,
            `always-allowed for this session: ${this.#memory.size} tool call${this.#memory.size === 1 ? "" : "s"}`,
          ]);
          return false;
        }
        if (!POLICIES.includes(argument as ApprovalPolicy)) {
          note([`unknown approval policy ${argument}; use on-risk, always or never`]);
          return false;
        }
        return this.#configure(
          { approval_policy: argument },
          { ...this.#flags, approvalPolicy: argument as ApprovalPolicy },
          `approvals ${argument}`,
        );
      default:
        this.#render([`${s.yellow(`unknown command /${name}`)}${s.dim(" · /help lists the commands")}`]);
        return false;
    }
  }

  // `session.configure` changes the running session: the conversation (and the always-allowed calls) stay.
  async #configure(fields: { model?: string; approval_policy?: string }, flags: ClientFlags, what: string): Promise<boolean> {
    const engine = this.#engine;
    if (!engine) {
      this.#render(this.#wrapped(["the session is not ready yet; try again in a moment"]));
      return false;
    }
    let reply: ServerEvent;
    try {
      reply = await engine.request({ type: "session.configure", ...fields });
    } catch (error) {
      this.#render(this.#wrapped([`could not switch to ${what}: ${(error as Error).message}`], this.#style.red));
      return false;
    }
    if (reply.type === "error") {
      this.#render(this.#wrapped([`could not switch to ${what}: ${String(reply.message)}`], this.#style.red));
      return false;
    }
    this.#flags = flags;
    if (engine.session) engine.session.model = reply.model;
    const when = this.#busy ? " (the model from the next turn)" : "";
    this.#render(this.#wrapped([`switched to ${what}${fields.model !== undefined ? when : ""}; the conversation continues`]));
    return false;
  }

  async #playDemo(prompts: string[]): Promise<void> {
    const s = this.#style;
    for (const prompt of prompts) {
      if (this.#closing || this.#demoStopping) return;
      this.#render([s.yellow("[demo] typed for you:")]);
      if (await this.#typeDemoPrompt(prompt)) return;
      await this.#submit(prompt, true);
    }
    if (this.#demoStopping) return;
    this.#render(this.#wrapped(["[demo] finished · run `scv chat` in a project for a real session"]));
    this.#exit(0);
  }

  /** Shows `prompt` being typed (in a terminal with pacing); resolves true when the demo was stopped meanwhile. */
  async #typeDemoPrompt(prompt: string): Promise<boolean> {
    const pacing = this.#setup.demoPacing;
    if (!pacing || !this.#screen.interactive) return false;
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const stopped = () => this.#closing || this.#demoStopping;
    this.#demoTyped = "";
    this.#render([]);
    await sleep(pacing.pauseMs);
    for (const char of prompt) {
      if (stopped()) break;
      this.#demoTyped += char;
      this.#render([]);
      await sleep(pacing.typeMs);
    }
    if (!stopped()) await sleep(pacing.pauseMs / 2);
    this.#demoTyped = undefined;
    return stopped();
  }

  // Stopping the demo cancels the running turn and leaves (the recorded script cannot resume from a cancelled turn).
  #stopDemo(code: number): void {
    if (this.#demoStopping) return;
    this.#demoStopping = true;
    const leave = () => {
      this.#render([this.#style.yellow("[demo] stopped")]);
      this.#exit(code);
    };
    if (this.#turnId && this.#engine) {
      const previous = this.#turnDone;
      const done = new Promise<void>((resolve) => {
        this.#turnDone = () => {
          previous?.();
          resolve();
        };
      });
      this.#cancelTurn();
      void done.then(leave);
    } else {
      leave();
    }
  }

  /** Ctrl-C delivered as a signal (plain mode, the demo): cancel the running turn, else leave. */
  interrupt(): void {
    if (this.#setup.demoPrompts !== undefined) return this.#stopDemo(130);
    if (this.#turnId) this.#cancelTurn();
    else this.#exit(130);
  }

  /** Redraws the live region (after a terminal resize). */
  redraw(): void {
    this.#transcript.setWidth(this.#width());
    this.#render([]);
  }

  /** Ends the chat from outside (a signal). */
  stop(code: number): void {
    this.#exit(code);
  }
}
