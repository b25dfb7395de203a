// What every subcommand does with its process (the exit codes are lib/cli/exit.ts, which main.ts loads alone):
// signal handlers installed for one run, and the forced exit once the work is done (handles a finished run may
// leave behind, such as keep-alive sockets or a killed child's pipes, must not keep the process alive past the
// spec's exit deadlines).

/** How long a finished subcommand waits for the event loop to empty before it exits anyway. */
export const FORCED_EXIT_MS = 250;

/** Exits with `code` after `ms` unless the process has ended by itself by then (the timer does not hold it). */
export function forceExitAfter(code: number | (() => number), ms = FORCED_EXIT_MS): void {
  setTimeout(() => process.exit(typeof code === "function" ? code() : code), ms).unref();
}

export type SignalHandlers = Partial<Record<NodeJS.Signals, (signal: NodeJS.Signals) => void>>;

/** Installs `handlers` (replacing the default action of those signals); returns the function that removes them. */
export function handleSignals(handlers: SignalHandlers): () => void {
  const installed = Object.entries(handlers).map(([name, handler]) => {
    const signal = name as NodeJS.Signals;
    const listener = () => handler!(signal);
    process.on(signal, listener);
    return () => process.off(signal, listener);
  });
  return () => {
    for (const remove of installed) remove();
  };
}
