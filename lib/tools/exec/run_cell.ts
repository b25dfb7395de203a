// Drives one exec cell to its end: the result, a timeout (the cell is terminated) or the turn's cancellation
// (likewise). A cell that yields (`yield_control()`) is simply observed again until it ends.
import type {
  CellCallbacks,
  ContentItem,
  Observation,
  ObserveOutcome,
  SandboxSession,
  ToolDefinition,
} from "../../sandbox/index.ts";
import type { CellEnd } from "./output.ts";

export type CellRun = {
  session: SandboxSession;
  source: string;
  tools: ToolDefinition[];
  timeoutSeconds: number;
  signal: AbortSignal;
  callbacks: CellCallbacks;
};

/** Observations are requested with a yield time past the deadline, so only the cell's own yields end them early. */
const YIELD_SLACK_MS = 60_000;

export async function runCell(run: CellRun): Promise<{ items: ContentItem[]; end: CellEnd }> {
  const items: ContentItem[] = [];
  const timeoutMs = run.timeoutSeconds * 1000;
  if (run.signal.aborted) return { items, end: { kind: "cancelled" } };
  const cell = run.session.startCell({
    source: run.source,
    tools: run.tools,
    yieldTimeMs: timeoutMs + YIELD_SLACK_MS,
    callbacks: run.callbacks,
  });

  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stop = new Promise<"timed_out" | "cancelled">((resolve) => {
    timer = setTimeout(() => resolve("timed_out"), timeoutMs);
    onAbort = () => resolve("cancelled");
    run.signal.addEventListener("abort", onAbort, { once: true });
  });
  const waits = new AbortController();
  try {
    let observing: Promise<Observation | ObserveOutcome> = cell.initial;
    for (;;) {
      const next = await Promise.race([observing, stop]);
      if (next === "timed_out" || next === "cancelled") {
        waits.abort();
        const ended = await terminate(run.session, cell.id, observing);
        items.push(...ended.items);
        if (ended.kind === "result") return { items, end: { kind: "result", errorText: ended.errorText } };
        return {
          items,
          end: next === "timed_out" ? { kind: "timed_out", seconds: run.timeoutSeconds } : { kind: "cancelled" },
        };
      }
      const observation = unwrap(next);
      if (observation === undefined)
        return { items, end: { kind: "result", errorText: "exec runtime ended unexpectedly" } };
      items.push(...observation.items);
      if (observation.kind === "result") return { items, end: { kind: "result", errorText: observation.errorText } };
      // Terminated from elsewhere: the sandbox (and so the server) is shutting down.
      if (observation.kind === "terminated") return { items, end: { kind: "cancelled" } };
      observing = run.session.wait(cell.id, timeoutMs + YIELD_SLACK_MS, waits.signal);
    }
  } finally {
    clearTimeout(timer);
    run.signal.removeEventListener("abort", onAbort!);
  }
}

/**
 * Terminates the cell. If it completed just before, its result wins: either terminate hands it over (buffered,
 * no observer) or the pending observer already received it (terminate then finds no cell).
 */
async function terminate(
  session: SandboxSession,
  cellId: string,
  observing: Promise<Observation | ObserveOutcome>,
): Promise<Observation> {
  const outcome = await session.terminate(cellId);
  if (outcome.kind === "observation") return outcome.observation;
  const pending = unwrap(await observing);
  return pending ?? { kind: "terminated", cellId, items: [] };
}

function unwrap(value: Observation | ObserveOutcome): Observation | undefined {
  if ("cellId" in value) return value;
  return value.kind === "observation" ? value.observation : undefined;
}
