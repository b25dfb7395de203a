// The turn loop in-process: the real Responses provider against the fake SSE provider on 127.0.0.1, with small
// hand-written tools to drive the loop's own rules (ordering, progress gating, failures, cancellation).
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ResolvedConfig } from "../../lib/config/types.ts";
import { runTurn, type TurnInput, type TurnSink } from "../../lib/agent/turn.ts";
import type { HistoryItem } from "../../lib/provider/types.ts";
import { createRegistry } from "../../lib/tools/index.ts";
import type { Tool, ToolContext, ToolOutcome } from "../../lib/tools/types.ts";
import { type FakeProvider, startFakeProvider, textResponse, toolCallResponse } from "../support/fake_provider.ts";
import { useTurnProvider } from "./turn_provider.ts";

const startProvider = useTurnProvider();
afterEach(() => {
  vi.useRealTimers();
});
let fake: FakeProvider | undefined;

function tool(
  name: string,
  run: (context: ToolContext, args: unknown) => Promise<ToolOutcome>,
  risk: "read_only" | "process" = "read_only",
): Tool {
  return {
    name,
    description: `${name} tool`,
    parameters: { type: "object", properties: {}, additionalProperties: true },
    prepare: (args) => ({
      risk,
      access: { effect: "read" },
      summary: `${name}!`,
      run: (context) => run(context, args),
    }),
  };
}

async function setup(
  script: Parameters<typeof startFakeProvider>[0],
  tools: Tool[],
  edit?: (config: ResolvedConfig) => void,
) {
  const started = await startProvider(script, edit);
  fake = started.fake;
  const { client, config } = started;
  const registry = createRegistry(tools);
  /** runTurn with prompt "go", an empty history and instructions, the workspace /ws and a signal nobody aborts. */
  const run = (sink: TurnSink, overrides: Partial<TurnInput> = {}) =>
    runTurn({
      prompt: "go",
      history: [],
      provider: client,
      tools: registry,
      config,
      workspace: "/ws",
      instructions: "",
      signal: new AbortController().signal,
      sink,
      ...overrides,
    });
  return { config, registry, run };
}

function recordingSink(log: string[], approve: (name: string) => Promise<boolean> | boolean = () => true): TurnSink {
  const push = (entry: string) => {
    log.push(entry);
    return Promise.resolve();
  };
  return {
    delta: (text) => push(`delta:${text}`),
    assistantCompleted: (text) => push(`completed:${text}`),
    toolProposed: (call) => push(`proposed:${call.call_id}`),
    approve: async (call) => {
      log.push(`gate:${call.call_id}`);
      return approve(call.name);
    },
    toolStarted: (call) => push(`started:${call.call_id}`),
    toolProgress: (call, text) => push(`progress:${call.call_id}:${text}`),
    toolCompleted: (call, outcome) =>
      push(`done:${call.call_id}:${outcome.success}:${outcome.error ?? ""}:${outcome.output}`),
    contextCompacted: () => push("compacted"),
    sessionTrimmed: (removed) => push(`trimmed:${removed}`),
  };
}

describe("runTurn", () => {
  it("runs calls in order and returns the new history; the checkpoint is untouched", async () => {
    const { run } = await setup(
      [
        toolCallResponse([
          { call_id: "a", name: "echo", arguments: { n: 1 } },
          { call_id: "b", name: "echo", arguments: { n: 2 } },
        ]),
        textResponse(["fin"]),
      ],
      [tool("echo", async (_context, args) => ({ success: true, output: JSON.stringify(args), truncated: false }))],
    );
    const log: string[] = [];
    const history: HistoryItem[] = [{ kind: "user", content: "earlier" }];
    const outcome = await run(recordingSink(log), { history, instructions: "be nice" });
    expect(log).toEqual([
      "completed:",
      "proposed:a",
      "gate:a",
      "started:a",
      'done:a:true::{"n":1}',
      "proposed:b",
      "gate:b",
      "started:b",
      'done:b:true::{"n":2}',
      "delta:fin",
      "completed:fin",
    ]);
    expect(outcome.kind).toBe("completed");
    if (outcome.kind !== "completed") return;
    expect(outcome.steps).toBe(2);
    expect(outcome.history.map((item) => item.kind)).toEqual([
      "user",
      "user",
      "assistant",
      "tool_result",
      "tool_result",
      "assistant",
    ]);
    expect(history).toEqual([{ kind: "user", content: "earlier" }]);
    expect(fake!.requests[0]!.body.instructions).toBe("be nice");
    expect(fake!.requests[0]!.body.tools.map((entry: { name: string }) => entry.name)).toEqual(["echo"]);
  });

  it("turns a throwing tool into a failed result and a success:false outcome without a code into failed", async () => {
    const { run } = await setup(
      [
        toolCallResponse([
          { call_id: "t", name: "throws", arguments: {} },
          { call_id: "f", name: "fails", arguments: {} },
        ]),
        textResponse(["ok"]),
      ],
      [
        tool("throws", async () => {
          throw new Error("kaboom");
        }),
        tool("fails", async () => ({ success: false, output: "nope", truncated: false })),
      ],
    );
    const log: string[] = [];
    const outcome = await run(recordingSink(log));
    expect(outcome.kind).toBe("completed");
    expect(log).toContain("done:t:false:failed:kaboom");
    expect(log).toContain("done:f:false:failed:nope");
  });

  it("gates progress to 512 bytes and at most 2 per second, dropping what is pending at completion", async () => {
    const log: string[] = [];
    const { run } = await setup(
      [toolCallResponse([{ call_id: "p", name: "chatty", arguments: {} }]), textResponse(["ok"])],
      [
        tool("chatty", async (context) => {
          // Time is the subject: the gate's clock (performance.now, setTimeout) is faked for the tool's run.
          vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
          context.progress("é".repeat(400));
          for (let index = 0; index < 10; index += 1) context.progress(`tick ${index}`);
          await vi.advanceTimersByTimeAsync(499);
          expect(log.filter((entry) => entry.startsWith("progress:"))).toHaveLength(1);
          await vi.advanceTimersByTimeAsync(151);
          context.progress("late");
          return { success: true, output: "ok", truncated: false };
        }),
      ],
    );
    await run(recordingSink(log));
    // Nothing is sent after completion, however long one waits.
    await vi.advanceTimersByTimeAsync(2_000);
    vi.useRealTimers();
    const progress = log.filter((entry) => entry.startsWith("progress:"));
    expect(progress).toEqual([`progress:p:${"é".repeat(256)}`, "progress:p:tick 9"]);
    expect(log.indexOf("progress:p:tick 9")).toBeLessThan(log.findIndex((entry) => entry.startsWith("done:p")));
  });

  it("denies without running, and cancels from an approval wait", async () => {
    const { run } = await setup(
      [
        toolCallResponse([{ call_id: "d", name: "risky", arguments: {} }]),
        textResponse(["ok"]),
        toolCallResponse([{ call_id: "w", name: "risky", arguments: {} }]),
      ],
      [tool("risky", async () => ({ success: true, output: "ran", truncated: false }), "process")],
    );
    const log: string[] = [];
    const denied = await run(recordingSink(log, () => false));
    expect(denied.kind).toBe("completed");
    expect(log).toContain("done:d:false:denied:tool call denied by policy or user");
    expect(log.some((entry) => entry.startsWith("started:d"))).toBe(false);

    const controller = new AbortController();
    const cancelled = await run(
      recordingSink([], () => {
        // Aborted from the approval wait: once the loop is awaiting this answer.
        setImmediate(() => controller.abort());
        return new Promise<boolean>(() => {});
      }),
      { prompt: "again", signal: controller.signal },
    );
    expect(cancelled).toEqual({ kind: "cancelled", usage: {} });
  });

  it("reports sink failures through classify, else as internal_error", async () => {
    const { run } = await setup([textResponse(["x"]), textResponse(["y"])], []);
    const sink = recordingSink([]);
    sink.assistantCompleted = () => Promise.reject(new Error("too big"));
    const classified = await run(sink, {
      classify: () => ({ code: "response_limit", message: "server event exceeds configured frame limit" }),
    });
    expect(classified).toEqual({
      kind: "failed",
      code: "response_limit",
      message: "server event exceeds configured frame limit",
      usage: {},
    });
    const plain = await run(sink);
    expect(plain).toEqual({ kind: "failed", code: "internal_error", message: "too big", usage: {} });
  });
});
