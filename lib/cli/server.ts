// `scv server --stdio`: argument handling, then one protocol connection over stdin/stdout.
import { createLogger } from "../util/log.ts";
import { serveStdio } from "../server/index.ts";
import { killEveryProcessGroup } from "../tools/index.ts";
import { EXIT_FAILURE, EXIT_INTERRUPTED, EXIT_SIGNALS, EXIT_USAGE } from "./exit.ts";
import { forceExitAfter, handleSignals } from "./process.ts";
import { serverOptionsFrom, type SessionFlags } from "./session_flags.ts";
import { refusesLogLevel } from "./log_level.ts";

/** The command-line flags: `--stdio` plus the session defaults. */
export type ServerCliOptions = SessionFlags & { stdio?: boolean };

const SIGNAL_EXIT_CODES: Record<string, number> = { SIGINT: EXIT_INTERRUPTED, SIGTERM: EXIT_SIGNALS.SIGTERM };

export async function runServer(options: ServerCliOptions): Promise<number> {
  if (!options.stdio) {
    process.stderr.write("scv server currently supports only --stdio\n");
    return EXIT_USAGE;
  }
  if (refusesLogLevel("server", process.env.SCV_LOG)) return EXIT_USAGE;
  const log = createLogger(process.env.SCV_LOG);
  const stop = stopOnSignals(log.info);
  const result = await serveStdio(
    process.stdin,
    process.stdout,
    serverOptionsFrom(options, log),
    log,
    stop.signal,
  );
  stop.dispose();
  killEveryProcessGroup();
  process.stdin.destroy();
  forceExitAfter(result.exitCode);
  return result.exitCode;
}

/**
 * SIGTERM and SIGINT end the connection like stdin EOF (Node's exit handlers do not run on a signal, so the
 * default action would leave bash process groups and workers behind): the turn is cancelled, every bash process
 * group is killed at once, and the process exits 0. A second signal exits at once with 128 + the signal number.
 */
function stopOnSignals(info: (message: string) => void): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const onSignal = (name: NodeJS.Signals) => {
    if (controller.signal.aborted) {
      killEveryProcessGroup();
      process.exit(SIGNAL_EXIT_CODES[name] ?? EXIT_FAILURE);
    }
    info(`received ${name}; shutting down`);
    controller.abort();
    killEveryProcessGroup();
  };
  const removeSignals = handleSignals({ SIGTERM: onSignal, SIGINT: onSignal });
  return {
    signal: controller.signal,
    dispose() {
      // Keep handling signals until exit (a default SIGTERM now would skip the remaining cleanup).
      removeSignals();
      const late = (name: NodeJS.Signals) => {
        killEveryProcessGroup();
        process.exit(SIGNAL_EXIT_CODES[name] ?? EXIT_FAILURE);
      };
      handleSignals({ SIGTERM: late, SIGINT: late });
    },
  };
}
