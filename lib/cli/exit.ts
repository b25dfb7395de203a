/** Exit codes that mean the same thing in every subcommand. */
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;
/** `scv exec`: the turn completed, but every change the model tried (each call that needed approval) was denied. */
export const EXIT_ALL_DENIED = 3;
/** Ctrl-C / SIGINT (128 + 2). */
export const EXIT_INTERRUPTED = 130;
/** 128 + the signal number: how chat and exec leave after SIGTERM or SIGHUP. */
export const EXIT_SIGNALS: Readonly<Record<"SIGTERM" | "SIGHUP", number>> = { SIGTERM: 143, SIGHUP: 129 };

/** Commander has already printed its message; only the exit code is left to set. */
export function exitWithUsageError(): void {
  process.exitCode = EXIT_USAGE;
}
