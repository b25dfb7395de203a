// Shared set-up for sandbox tests: one sandbox per test file, helpers to run cells and record
// the nested tool calls and notifications a cell makes.
import { readdirSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, onTestFinished, vi } from "vitest";
import { HANG_MS, hangDeadline } from "../support/wait.ts";
import { createSandbox, type SandboxOptions } from "../../lib/sandbox/index.ts";
import type {
  CellCallbacks,
  NestedToolCall,
  Observation,
  Sandbox,
  SandboxCell,
  SandboxSession,
  SessionLimits,
  ToolDefinition,
} from "../../lib/sandbox/index.ts";

export function tool(name: string, kind: "function" | "freeform" = "function"): ToolDefinition {
  return { name, tool_name: { name, namespace: null }, description: `${name} tool`, kind };
}

export interface Recorder {
  calls: NestedToolCall[];
  aborted: string[];
  notifications: string[];
  callbacks: CellCallbacks;
}

/** Tool calls are answered by `answer` (default: echo the input); notifications resolve at once. */
export function recorder(
  answer: (call: NestedToolCall, signal: AbortSignal) => Promise<unknown> = async (c) => c.input,
): Recorder {
  const rec: Recorder = {
    calls: [],
    aborted: [],
    notifications: [],
    callbacks: {
      callTool(call, signal) {
        rec.calls.push(call);
        // The signal is the cell's: a call hears its abort only while unanswered.
        const aborted = (): void => void rec.aborted.push(call.runtimeToolCallId);
        signal.addEventListener("abort", aborted, { once: true });
        const answered = answer(call, signal);
        const forget = (): void => signal.removeEventListener("abort", aborted);
        answered.then(forget, forget);
        return answered;
      },
      async notify(text) {
        rec.notifications.push(text);
      },
    },
  };
  return rec;
}

export interface RunOptions {
  tools?: ToolDefinition[];
  yieldTimeMs?: number | null;
  rec?: Recorder;
}

export function useSandbox(options: SandboxOptions = {}) {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = createSandbox({ warmWorkers: 2, ...options });
    // Wait for the warm workers, so that timing-sensitive tests do not measure a boot.
    const session = sandbox.openSession();
    const cells = [0, 1].map(() =>
      session.startCell({ source: "", tools: [], yieldTimeMs: null, callbacks: recorder().callbacks })
    );
    await Promise.all(cells.map((cell) => cell.initial));
    await session.close();
  });
  afterAll(async () => {
    await sandbox.shutdown();
  });
  const api = {
    get sandbox(): Sandbox {
      return sandbox;
    },
    session(limits?: SessionLimits): SandboxSession {
      return sandbox.openSession(limits);
    },
    start(session: SandboxSession, source: string, options: RunOptions = {}): SandboxCell {
      return session.startCell({
        source,
        tools: options.tools ?? [],
        // A cell that must complete gets until the hang deadline before it yields.
        yieldTimeMs: options.yieldTimeMs === undefined ? HANG_MS : options.yieldTimeMs,
        callbacks: (options.rec ?? recorder()).callbacks,
      });
    },
    /** Runs a cell in a fresh session and returns its initial observation. */
    async run(source: string, options: RunOptions = {}): Promise<Observation> {
      const session = sandbox.openSession();
      try {
        return await api.start(session, source, options).initial;
      } finally {
        void session.close();
      }
    },
    /** Runs a cell that must complete; returns its text items and error text. */
    async result(
      source: string,
      options: RunOptions = {},
    ): Promise<{ texts: string[]; errorText: string | null; observation: Observation }> {
      const observation = await api.run(source, options);
      if (observation.kind !== "result") throw new Error(`Expected a result, got ${JSON.stringify(observation)}`);
      const texts = observation.items.map((item) => (item.type === "input_text" ? item.text : JSON.stringify(item)));
      return { texts, errorText: observation.errorText, observation };
    },
  };
  return api;
}

/**
 * Puts this process's timers and `process.hrtime` on a fake clock (vitest's fake timers) until the test ends: the
 * session's yield and wait timers, the drain grace and `bufferedForNs` then move only with
 * `vi.advanceTimersByTimeAsync`, while the cells run for real in their own processes. For tests whose subject is
 * time; the test waits for what a cell did (a tool call, a notification) before it moves the clock.
 */
export function useFakeClock(): void {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "hrtime"] });
  onTestFinished(() => {
    vi.useRealTimers();
  });
}

/** The promise's value once it has settled, else undefined (for "not yet" checks). */
export function peek<T>(promise: Promise<T>): { readonly value: T | undefined } {
  const box: { value: T | undefined } = { value: undefined };
  void promise.then((value) => (box.value = value));
  return box;
}

/** Pids of the live (not zombie) child processes of `parent` (Linux /proc). */
export function childPids(parent: number = process.pid): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "latin1");
      // Fields after the parenthesised command: state, ppid, …
      const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(ppid) === parent && state !== "Z") pids.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

/**
 * CPU ticks (user + system) a process and its descendants have used so far, or null once it is
 * gone (a sandbox process may run under a launcher such as bwrap, which runs the code as a grandchild).
 */
export function cpuTicks(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (fields[0] === "Z") return null;
    let ticks = Number(fields[11]) + Number(fields[12]);
    for (const child of descendants(pid)) {
      try {
        const childStat = readFileSync(`/proc/${child}/stat`, "latin1");
        const childFields = childStat.slice(childStat.lastIndexOf(")") + 2).split(" ");
        ticks += Number(childFields[11]) + Number(childFields[12]);
      } catch {
        // Gone meanwhile.
      }
    }
    return ticks;
  } catch {
    return null;
  }
}

/** Every descendant of `pid` (Linux /proc). */
export function descendants(pid: number): number[] {
  const found: number[] = [];
  const visit = (parent: number): void => {
    for (const child of childPids(parent)) {
      found.push(child);
      visit(child);
    }
  };
  visit(pid);
  return found;
}

/** Polls `check` until it returns true or the hang deadline passes (`atLeastMs` may lengthen it). */
export async function until(check: () => boolean, atLeastMs?: number, step = 20): Promise<boolean> {
  const deadline = performance.now() + hangDeadline(atLeastMs);
  while (performance.now() < deadline) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, step));
  }
  return check();
}
