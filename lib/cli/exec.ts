// `scv exec [--json] [--yes|--approval-policy P] PROMPT`: one turn, non-interactively, through the in-process
// engine. Text mode prints the assistant text on stdout and tool activity on stderr; --json prints every event.
import type { ApprovalPolicy } from "../config/index.ts";
import type { Attachment } from "../protocol/index.ts";
import { type ClientEvent } from "../protocol/index.ts";
import {
  type ClientFlags,
  EngineError,
  NO_SESSION_TO_CONTINUE,
  type PreparedOptions,
  prepareOptions,
} from "../embed/index.ts";
import { createStyle, retryText, revealControls, stripControls, Transcript } from "../render/index.ts";
import { imageAttachment, type PendingApproval, SessionController } from "../client/index.ts";
import { createLogger } from "../util/log.ts";
import { type StartFolders, startFolders } from "../util/repository_root.ts";
import { EXIT_ALL_DENIED, EXIT_FAILURE, EXIT_INTERRUPTED, EXIT_OK, EXIT_SIGNALS, EXIT_USAGE } from "./exit.ts";
import { forceExitAfter, handleSignals } from "./process.ts";
import { refusesLogLevel } from "./log_level.ts";

export type ExecCliOptions = ClientFlags & {
  json?: boolean;
  yes?: boolean;
  approvalPolicy?: ApprovalPolicy;
  /** Continue this workspace's most recent stored session. */
  continue?: boolean;
  /** Continue the stored session with this id. */
  resume?: string;
  /** `--image PATH`, repeatable: images attached to the turn. */
  image?: string[];
};

/** How long a signalled exec waits for the cancelled turn to end before leaving anyway. */
const SIGNAL_GRACE_MS = 2000;

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

// The assistant text goes out as is, except to a terminal, where control characters could drive the terminal.
function writeOut(text: string): void {
  const safe = process.stdout.isTTY ? stripControls(text) : text;
  if (safe !== "") process.stdout.write(safe);
}

export async function runExec(promptArg: string, options: ExecCliOptions): Promise<number> {
  process.stdout.on("error", () => {});
  if (refusesLogLevel("exec", process.env.SCV_LOG)) return EXIT_USAGE;
  const prompt = promptArg === "-" ? (await readStdin()).replace(/\r?\n$/, "") : promptArg;
  const attachments: Attachment[] = [];
  for (const file of options.image ?? []) {
    try {
      attachments.push(await imageAttachment(file, process.cwd()));
    } catch (error) {
      process.stderr.write(`scv exec: ${(error as Error).message}\n`);
      return EXIT_USAGE;
    }
  }
  // With images the prompt may be empty (the server lists them for the model).
  if (prompt.trim() === "" && attachments.length === 0) {
    process.stderr.write("scv exec: the prompt is empty\n");
    return EXIT_USAGE;
  }
  if (options.continue === true && options.resume !== undefined) {
    process.stderr.write("scv exec: --continue and --resume cannot be combined\n");
    return EXIT_USAGE;
  }
  let prepared: PreparedOptions;
  try {
    prepared = await prepareOptions(options, process.env, process.cwd());
  } catch (error) {
    process.stderr.write(`scv exec: ${(error as Error).message}\n`);
    return EXIT_USAGE;
  }
  const folders = await startFolders(process.cwd(), process.env);
  let code: number;
  try {
    code = await runTurn(prompt, attachments, options, prepared, folders);
  } finally {
    // The replay provider and its session-only configuration file go away even if the turn threw.
    await prepared.close();
  }
  forceExitAfter(code);
  return code;
}

/** Prints a turn's events: the assistant text on stdout and tool activity on stderr, or every event as NDJSON. */
/** Built-in tools that only read: running them is not a change the user allowed. */
const READING_TOOLS: ReadonlySet<string> = new Set(["read", "grep", "glob", "list"]);

class ExecPrinter {
  readonly #json: boolean;
  readonly #transcript = new Transcript(createStyle(false), 100);
  #endedWithNewline = true;
  /** Calls denied (by the policy or for want of --yes) and approvals granted, for the exit code. */
  denied = 0;
  approved = 0;
  /** Calls that ran without a question (a rule or the mode allowed them), reads aside: changes that were allowed. */
  ran = 0;

  constructor(json: boolean) {
    this.#json = json;
  }

  event(event: ClientEvent): void {
    if (event.type === "engine.closed") return;
    if (event.type === "tool.completed") {
      if (event.error === "denied") this.denied += 1;
      else if (!READING_TOOLS.has(event.name)) this.ran += 1;
    }
    if (this.#json) {
      process.stdout.write(`${JSON.stringify(event)}\n`);
      return;
    }
    switch (event.type) {
      case "assistant.delta":
        writeOut(event.content);
        if (event.content !== "") this.#endedWithNewline = event.content.endsWith("\n");
        return;
      case "assistant.completed":
        this.#endLine();
        return;
      case "turn.failed":
        this.#endLine();
        process.stderr.write(`scv exec: turn failed (${event.code}): ${event.message}\n`);
        return;
      case "turn.cancelled":
        this.#endLine();
        process.stderr.write("scv exec: turn cancelled\n");
        return;
      case "turn.retrying":
        process.stderr.write(`scv exec: ${retryText(event)}\n`);
        return;
      case "error":
        process.stderr.write(`scv exec: ${event.message}\n`);
        return;
    }
    // Tool activity, hook runs and joined instructions go to stderr, formatted like the chat's (stdout is the answer).
    if (event.type.startsWith("tool.") || event.type === "hook.completed" || event.type === "instructions.joined") {
      for (const row of this.#transcript.apply(event)) process.stderr.write(`${row}\n`);
    }
  }

  approval(approval: PendingApproval, approved: boolean): void {
    if (approved) this.approved += 1;
    if (this.#json) return;
    const verdict = approved ? "approved (--yes)" : "denied (no --yes; scv exec cannot ask)";
    process.stderr.write(`${verdict}: ${approval.name} (${approval.risk} risk): ${approval.summary}\n`);
    // The change a write, edit or apply_patch would make, with hidden characters made visible.
    if (approval.diff !== undefined && approval.diff !== "") {
      const diff = revealControls(approval.diff);
      process.stderr.write(diff.endsWith("\n") ? diff : `${diff}\n`);
    }
  }

  /** The turn completed: exit 3 when it denied every change the model tried (and none ran), saying so. */
  completedCode(): number {
    if (this.denied === 0 || this.approved > 0 || this.ran > 0) return EXIT_OK;
    if (!this.#json) {
      const calls = this.denied === 1 ? "the 1 tool call" : `all ${this.denied} tool calls`;
      process.stderr.write(
        `scv exec: every change was denied (${calls} that needed approval); --yes allows them (not under ` +
          "--approval-policy never)\n",
      );
    }
    return EXIT_ALL_DENIED;
  }

  // Text cut short by a failure or cancellation still ends its line on stdout.
  #endLine(): void {
    if (this.#endedWithNewline) return;
    process.stdout.write("\n");
    this.#endedWithNewline = true;
  }
}

/** The exit code a turn's last event means, or undefined while the turn goes on. */
function exitCodeOf(event: ClientEvent, turnRuns: boolean): number | undefined {
  switch (event.type) {
    case "engine.closed":
    case "turn.failed":
      return EXIT_FAILURE;
    case "turn.completed":
      return EXIT_OK;
    case "turn.cancelled":
      return EXIT_INTERRUPTED;
    case "error":
      return turnRuns ? undefined : EXIT_FAILURE;
    default:
      return undefined;
  }
}

async function runTurn(
  prompt: string,
  attachments: Attachment[],
  options: ExecCliOptions,
  prepared: PreparedOptions,
  folders: StartFolders,
): Promise<number> {
  const json = options.json ?? false;
  const approve = options.yes ?? false;
  const printer = new ExecPrinter(json);
  let finish!: (code: number) => void;
  const finished = new Promise<number>((resolve) => {
    finish = resolve;
  });
  let interrupts = 0;
  /** Set by SIGTERM or SIGHUP: the exit code once the cancelled turn has ended. */
  let signalled: number | undefined;
  const controller: SessionController = new SessionController({
    onEvent(event) {
      printer.event(event);
      // Interrupted or signalled before the turn started: cancel it as soon as it has.
      if (event.type === "turn.started" && (interrupts > 0 || signalled !== undefined)) controller.cancel();
      const ended = exitCodeOf(event, controller.turnId !== undefined);
      const code = ended === EXIT_OK && event.type === "turn.completed" ? printer.completedCode() : ended;
      if (code !== undefined) finish(signalled ?? code);
    },
    onApproval(approval) {
      printer.approval(approval, approve);
      return approve;
    },
  });
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled !== undefined) return;
    const code = EXIT_SIGNALS[signal as "SIGTERM" | "SIGHUP"];
    signalled = code;
    if (!controller.cancel()) finish(code);
    else setTimeout(() => finish(code), SIGNAL_GRACE_MS).unref();
  };
  const removeSignals = handleSignals({
    SIGINT() {
      interrupts += 1;
      if (interrupts > 1 || !controller.cancel()) finish(EXIT_INTERRUPTED);
    },
    // SIGTERM and SIGHUP cancel the running turn, then leave with 128 + the signal number.
    SIGTERM: (signal) => onSignal(signal),
    SIGHUP: (signal) => onSignal(signal),
  });
  try {
    try {
      await controller.start(prepared.options, createLogger(process.env.SCV_LOG, "scv exec"), {
        cwd: folders.workspace,
        working_folder: folders.workingFolder,
        ...(options.resume === undefined ? {} : { resume: options.resume }),
        ...(options.continue === true ? { continue: true } : {}),
      });
    } catch (error) {
      // The engine's error event has been printed already (as text or NDJSON); anything else has not, such as
      // finding no session to continue (the client's own conclusion).
      if (!(error instanceof EngineError) || error.message === NO_SESSION_TO_CONTINUE) {
        process.stderr.write(`scv exec: ${(error as Error).message}\n`);
      }
      // A stored session that does not exist is a usage error.
      if (error instanceof EngineError && error.code === "session_not_found") return EXIT_USAGE;
      return EXIT_FAILURE;
    }
    // Interrupted or signalled while the session started: no turn, but the engine is still shut down.
    if (interrupts > 0) finish(EXIT_INTERRUPTED);
    else if (signalled !== undefined) finish(signalled);
    else await controller.submit(prompt, attachments);
    const code = await finished;
    await controller.close();
    return code;
  } finally {
    removeSignals();
  }
}
