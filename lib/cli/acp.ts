// `scv acp`: an Agent Client Protocol (v1) agent on stdin/stdout for editors such as Zed; logs go to stderr.
import { serveAcp } from "../acp/index.ts";
import { killEveryProcessGroup } from "../tools/index.ts";
import { createLogger } from "../util/log.ts";
import { EXIT_INTERRUPTED, EXIT_OK, EXIT_SIGNALS, EXIT_USAGE } from "./exit.ts";
import { forceExitAfter, handleSignals } from "./process.ts";
import { serverOptionsFrom, type SessionFlags } from "./session_flags.ts";
import { refusesLogLevel } from "./log_level.ts";

/** The command-line flags: the session defaults, as `scv server` takes them. */
export type AcpCliOptions = SessionFlags;

export async function runAcp(options: AcpCliOptions): Promise<number> {
  if (refusesLogLevel("acp", process.env.SCV_LOG)) return EXIT_USAGE;
  const log = createLogger(process.env.SCV_LOG, "scv acp");
  // An editor stops its agent with a signal: the bash process groups go with it (exit handlers do not run).
  const removeSignals = handleSignals({
    SIGTERM: () => {
      killEveryProcessGroup();
      process.exit(EXIT_SIGNALS.SIGTERM);
    },
    SIGINT: () => {
      killEveryProcessGroup();
      process.exit(EXIT_INTERRUPTED);
    },
  });
  // A closed stdout means the editor has gone: stop instead of throwing on every write.
  process.stdout.on("error", () => process.stdin.destroy());
  await serveAcp(
    process.stdin,
    process.stdout,
    serverOptionsFrom(options, log),
    log,
  );
  removeSignals();
  killEveryProcessGroup();
  forceExitAfter(EXIT_OK);
  return EXIT_OK;
}
