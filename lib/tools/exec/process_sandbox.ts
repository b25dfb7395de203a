// Who owns the exec tool's sandbox. An ExecSandbox is created by whoever owns a session (and shut
// down when that session ends), so one session's shutdown cannot stop another's cells; the
// sandbox itself is made on the first exec call (a session that never runs a cell pays for no
// sandbox process). `processSandbox()` is the process-wide fallback for callers that pass none.
import type { Sandbox } from "../../sandbox/index.ts";

export class ExecSandbox {
  #current: Promise<Sandbox> | undefined;

  /** The sandbox, created on first use; `lib/sandbox` itself is loaded only then. */
  get(): Promise<Sandbox> {
    this.#current ??= import("../../sandbox/index.ts").then(({ createSandbox }) => createSandbox({ warmWorkers: 1 }));
    return this.#current;
  }

  /** Stops every sandbox process (no-op when no cell ever ran); a later exec call creates a fresh sandbox. */
  async shutdown(): Promise<void> {
    const sandbox = this.#current;
    this.#current = undefined;
    if (sandbox) await (await sandbox).shutdown();
  }
}

const processWide = new ExecSandbox();

/** The process-wide sandbox, for exec tools created without an owner. */
export function processSandbox(): Promise<Sandbox> {
  return processWide.get();
}

/** Stops the process-wide sandbox's processes. */
export async function shutdownProcessSandbox(): Promise<void> {
  await processWide.shutdown();
}
