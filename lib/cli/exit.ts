/** Exit codes that mean the same thing in every subcommand. */
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/** Commander has already printed its message; only the exit code is left to set. */
export function exitWithUsageError(): void {
  process.exitCode = EXIT_USAGE;
}
