// `scv exec [--json] [--yes|--approval-policy P] PROMPT`: one turn, non-interactively, through the in-process
// engine. Text mode prints the assistant text on stdout and tool activity on stderr; --json prints every event.
import type { ApprovalPolicy } from "../config/types.ts";
import { EngineError, openEngine, type EngineClient } from "../chat/engine.ts";
import { prepareOptions, type PreparedOptions } from "../chat/session_options.ts";
import { revealControls } from "../chat/approval_view.ts";
import { createStyle, stripControls } from "../chat/style.ts";
import { Transcript, type ServerEvent } from "../chat/transcript.ts";
import { createLogger } from "../server/log.ts";
import { EXIT_FAILURE, EXIT_INTERRUPTED, EXIT_OK, EXIT_SIGNALS, EXIT_USAGE } from "./exit.ts";

export type ExecCliOptions = {
  json?: boolean;
  yes?: boolean;
  approvalPolicy?: ApprovalPolicy;
  model?: string;
  provider?: string;
  fakeResponses?: string;
};

const FORCED_EXIT_MS = 250;
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
  const prompt = promptArg === "-" ? (await readStdin()).replace(/\r?\n$/, "") : promptArg;
  if (prompt.trim() === "") {
    process.stderr.write("scv exec: the prompt is empty\n");
    return EXIT_USAGE;
  }
  let prepared: PreparedOptions;
  try {
    prepared = await prepareOptions(options, process.env, process.cwd());
  } catch (error) {
    process.stderr.write(`scv exec: ${(error as Error).message}\n`);
    return EXIT_USAGE;
  }
  let code: number;
  try {
    code = await runTurn(prompt, options, prepared);
  } finally {
    // The replay provider and its session-only configuration file go away even if the turn threw.
    await prepared.close();
  }
  setTimeout(() => process.exit(code), FORCED_EXIT_MS).unref();
  return code;
}

async function runTurn(prompt: string, options: ExecCliOptions, prepared: PreparedOptions): Promise<number> {
  const json = options.json ?? false;
  const style = createStyle(false);
  const transcript = new Transcript(style, 100);
  let finish!: (code: number) => void;
  const finished = new Promise<number>((resolve) => {
    finish = resolve;
  });
  let turnId: string | undefined;
  let engine: EngineClient | undefined;
  let interrupts = 0;
  let endedWithNewline = true;
  /** Set by SIGTERM or SIGHUP: the exit code once the cancelled turn has ended. */
  let signalled: number | undefined;
  const end = (code: number) => finish(signalled ?? code);

  // Text cut short by a failure or cancellation still ends its line on stdout.
  const endLine = () => {
    if (!json && !endedWithNewline) {
      process.stdout.write("\n");
      endedWithNewline = true;
    }
  };

  const onEvent = (event: ServerEvent) => {
    if (event.type === "engine.closed") {
      end(EXIT_FAILURE);
      return;
    }
    if (json) process.stdout.write(`${JSON.stringify(event)}\n`);
    switch (event.type) {
      case "turn.started":
        turnId = event.turn_id;
        if (interrupts > 0 || signalled !== undefined) engine?.notify({ type: "turn.cancel", turn_id: turnId });
        break;
      case "assistant.delta":
        if (!json) {
          writeOut(event.content);
          if (event.content !== "") endedWithNewline = String(event.content).endsWith("\n");
        }
        break;
      case "assistant.completed":
        if (!json && !endedWithNewline) {
          process.stdout.write("\n");
          endedWithNewline = true;
        }
        break;
      case "approval.requested": {
        const approved = options.yes ?? false;
        if (!json) {
          process.stderr.write(
            `${approved ? "approved (--yes)" : "denied (no --yes; scv exec cannot ask)"}: ${event.name} (${event.risk} risk): ${event.summary}\n`,
          );
          // The change a write, edit or apply_patch would make, with hidden characters made visible.
          if (typeof event.diff === "string" && event.diff !== "") {
            const diff = revealControls(event.diff);
            process.stderr.write(diff.endsWith("\n") ? diff : `${diff}\n`);
          }
        }
        engine?.notify({ type: "approval.resolve", approval_id: event.approval_id, approved });
        break;
      }
      case "turn.completed":
        end(EXIT_OK);
        return;
      case "turn.failed":
        endLine();
        if (!json) process.stderr.write(`scv exec: turn failed (${event.code}): ${event.message}\n`);
        end(EXIT_FAILURE);
        return;
      case "turn.cancelled":
        endLine();
        if (!json) process.stderr.write("scv exec: turn cancelled\n");
        end(EXIT_INTERRUPTED);
        return;
      case "error":
        if (!json) process.stderr.write(`scv exec: ${event.message}\n`);
        if (turnId === undefined) end(EXIT_FAILURE);
        return;
    }
    // Tool activity goes to stderr in text mode, formatted like the chat's (the assistant text is stdout's).
    if (!json && event.type.startsWith("tool.")) {
      for (const row of transcript.apply(event)) process.stderr.write(`${row}\n`);
    }
  };

  const onSigint = () => {
    interrupts += 1;
    if (interrupts > 1 || !engine || turnId === undefined) {
      finish(EXIT_INTERRUPTED);
      return;
    }
    engine.notify({ type: "turn.cancel", turn_id: turnId });
  };
  // SIGTERM and SIGHUP cancel the running turn, then leave with 128 + the signal number.
  const onSignal = (signal: "SIGTERM" | "SIGHUP") => {
    if (signalled !== undefined) return;
    signalled = EXIT_SIGNALS[signal];
    if (!engine || turnId === undefined) {
      finish(signalled);
      return;
    }
    engine.notify({ type: "turn.cancel", turn_id: turnId });
    setTimeout(() => finish(signalled!), SIGNAL_GRACE_MS).unref();
  };
  process.on("SIGINT", onSigint);
  process.on("SIGTERM", onSignal);
  process.on("SIGHUP", onSignal);
  try {
    const log = createLogger(process.env.SCV_LOG);
    try {
      engine = await openEngine(prepared.options, log, { cwd: process.cwd() }, onEvent);
    } catch (error) {
      if (!json || !(error instanceof EngineError)) process.stderr.write(`scv exec: ${(error as Error).message}\n`);
      return EXIT_FAILURE;
    }
    // Interrupted or signalled while the session started: no turn, but the engine is still shut down.
    if (interrupts > 0) finish(EXIT_INTERRUPTED);
    else if (signalled !== undefined) finish(signalled);
    else await engine.send({ type: "turn.start", prompt });
    const code = await finished;
    await engine.close();
    return code;
  } finally {
    process.off("SIGINT", onSigint);
    process.off("SIGTERM", onSignal);
    process.off("SIGHUP", onSignal);
  }
}
