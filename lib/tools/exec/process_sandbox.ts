// The one sandbox of this process, created on the first exec call (never at start-up: a server that
// never runs a cell pays for no worker) and shut down when the connection ends.
import type { Sandbox } from "../../sandbox/index.ts";

let current: Promise<Sandbox> | undefined;

/** The process's sandbox, created on first use; `lib/sandbox` itself is loaded only then. */
export function processSandbox(): Promise<Sandbox> {
  current ??= import("../../sandbox/index.ts").then(({ createSandbox }) => createSandbox({ warmWorkers: 1 }));
  return current;
}

/** Stops every worker (no-op when no cell ever ran); a later exec call creates a fresh sandbox. */
export async function shutdownProcessSandbox(): Promise<void> {
  const sandbox = current;
  current = undefined;
  if (sandbox) await (await sandbox).shutdown();
}
