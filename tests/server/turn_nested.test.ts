// The turn loop's shared call path in-process: nested calls (as exec makes them) go through the same proposal,
// validation, gate and completion as top-level calls; a nested call whose cell stops waiting completes as
// cancelled; the step number reaches the provider (chat wire names id-less calls call_<step>_<n>).
import { describe, expect, it } from "vitest";
import type { ResolvedConfig } from "../../lib/config/types.ts";
import { NESTED_CANCELLED_OUTPUT, runTurn, type TurnSink } from "../../lib/agent/turn.ts";
import type { ProviderClient } from "../../lib/provider/types.ts";
import { createRegistry } from "../../lib/tools/index.ts";
import type { Risk, Tool, ToolContext, ToolOutcome } from "../../lib/tools/types.ts";
import { chat, startFakeProvider, textResponse, toolCallResponse } from "../support/fake_provider.ts";
import { useTurnProvider } from "./turn_provider.ts";

/** A promise and its resolve function: resolved when the nested call reaches its approval gate. */
function signalled(): { reached: Promise<void>; reach: () => void } {
  let reach = () => {};
  const reached = new Promise<void>((resolve) => (reach = resolve));
  return { reached, reach };
}

const startProvider = useTurnProvider();
let client: ProviderClient | undefined;

async function setup(script: Parameters<typeof startFakeProvider>[0], edit?: (config: ResolvedConfig) => void) {
  const started = await startProvider(script, edit);
  client = started.client;
  return started.config;
}

function simpleTool(
  name: string,
  risk: Risk,
  run: (args: unknown) => Promise<ToolOutcome> = async (args) => ({
    success: true,
    output: JSON.stringify(args),
    truncated: false,
  }),
): Tool {
  return {
    name,
    description: `${name} tool`,
    parameters: { type: "object", properties: {}, additionalProperties: true },
    prepare: (
      args,
    ) => (args === null
      ? { error: "invalid arguments: expected a JSON object, found null" }
      : { risk, access: { effect: "read" as const }, summary: `${name}!`, run: () => run(args) }),
  };
}

/** A stand-in for exec: runs `script` with the nested-call runner the turn loop hands it. */
function parentTool(script: (context: ToolContext) => Promise<string>): Tool {
  return {
    name: "parent",
    description: "runs nested calls",
    parameters: { type: "object", properties: {}, additionalProperties: true },
    prepare: () => ({
      risk: "read_only",
      access: { effect: "run" },
      summary: "parent!",
      run: async (context) => ({ success: true, output: await script(context), truncated: false }),
    }),
  };
}

function recordingSink(
  log: string[],
  approve: (callId: string, risk: Risk, signal?: AbortSignal) => Promise<boolean> | boolean,
): TurnSink {
  const push = (entry: string) => {
    log.push(entry);
    return Promise.resolve();
  };
  return {
    delta: () => Promise.resolve(),
    assistantCompleted: () => Promise.resolve(),
    toolProposed: (call) => push(`proposed:${call.call_id}:${call.name}`),
    approve: async (call, prepared, signal) => {
      log.push(`gate:${call.call_id}:${prepared.risk}`);
      return approve(call.call_id, prepared.risk, signal);
    },
    toolStarted: (call) => push(`started:${call.call_id}`),
    toolProgress: (call, text) => push(`progress:${call.call_id}:${text}`),
    toolCompleted: (call, outcome) =>
      push(`done:${call.call_id}:${outcome.success}:${outcome.error ?? ""}:${outcome.output}`),
    contextCompacted: () => Promise.resolve(),
    sessionTrimmed: () => Promise.resolve(),
  };
}

const turn = (config: ResolvedConfig, tools: Tool[], sink: TurnSink, signal = new AbortController().signal) =>
  runTurn({
    prompt: "go",
    history: [],
    provider: client!,
    tools: createRegistry(tools),
    config,
    workspace: "/ws",
    instructions: "",
    signal,
    sink,
  });

describe("nested calls", () => {
  it("go through proposal, validation, the gate with their own risk, and completion, and stay out of the history", async () => {
    const config = await setup([
      toolCallResponse([{ call_id: "p1", name: "parent", arguments: {} }]),
      textResponse(["fin"]),
    ]);
    const log: string[] = [];
    const parent = parentTool(async (context) => {
      const nested = context.nested!;
      expect(nested.tools.map((tool) => tool.name)).toEqual(["asks", "parent", "reads"]);
      const results: string[] = [];
      for (
        const [suffix, name, args] of [
          ["tool-1", "reads", { a: 1 }],
          ["tool-2", "asks", { b: 2 }],
          ["tool-3", "missing", {}],
          ["tool-4", "reads", null],
        ] as const
      ) {
        const outcome = await nested.run({ suffix, name, arguments: args }, new AbortController().signal);
        results.push(`${outcome.success}:${outcome.error ?? ""}`);
      }
      return results.join(",");
    });
    const outcome = await turn(
      config,
      [parent, simpleTool("reads", "read_only"), simpleTool("asks", "process")],
      recordingSink(log, (id) => id !== "p1:tool-2"),
    );
    expect(log).toEqual([
      "proposed:p1:parent",
      "gate:p1:read_only",
      "started:p1",
      "proposed:p1:tool-1:reads",
      "gate:p1:tool-1:read_only",
      "started:p1:tool-1",
      'done:p1:tool-1:true::{"a":1}',
      "proposed:p1:tool-2:asks",
      "gate:p1:tool-2:process",
      "done:p1:tool-2:false:denied:tool call denied by policy or user",
      "proposed:p1:tool-3:missing",
      "done:p1:tool-3:false:unknown_tool:unknown tool: missing",
      "proposed:p1:tool-4:reads",
      "done:p1:tool-4:false:invalid_arguments:invalid arguments: expected a JSON object, found null",
      "done:p1:true::true:,false:denied,false:unknown_tool,false:invalid_arguments",
    ]);
    expect(outcome.kind).toBe("completed");
    if (outcome.kind !== "completed") return;
    expect(outcome.history.map((item) => (item.kind === "tool_result" ? `result:${item.call_id}` : item.kind))).toEqual(
      ["user", "assistant", "result:p1", "assistant"],
    );
  });

  it("completes as cancelled when its cell stops waiting during the approval, withdrawing the question", async () => {
    const config = await setup([
      toolCallResponse([{ call_id: "p1", name: "parent", arguments: {} }]),
      textResponse(["fin"]),
    ]);
    const log: string[] = [];
    let gateSignal: AbortSignal | undefined;
    const gate = signalled();
    const parent = parentTool(async (context) => {
      const cell = new AbortController();
      const pending = context.nested!.run({ suffix: "tool-1", name: "asks", arguments: {} }, cell.signal);
      void gate.reached.then(() => cell.abort());
      const outcome = await pending;
      return `${outcome.error}:${outcome.output}`;
    });
    const outcome = await turn(
      config,
      [parent, simpleTool("asks", "process")],
      recordingSink(log, (id, _risk, signal) => {
        if (id === "p1") return true;
        gateSignal = signal;
        gate.reach();
        return new Promise<boolean>(() => {});
      }),
    );
    expect(outcome.kind).toBe("completed");
    expect(gateSignal?.aborted).toBe(true);
    expect(log.slice(3)).toEqual([
      "proposed:p1:tool-1:asks",
      "gate:p1:tool-1:process",
      `done:p1:tool-1:false:cancelled:${NESTED_CANCELLED_OUTPUT}`,
      `done:p1:true::cancelled:${NESTED_CANCELLED_OUTPUT}`,
    ]);
  });

  it("rejects with the turn's cancellation, and the turn is cancelled", async () => {
    const config = await setup([toolCallResponse([{ call_id: "p1", name: "parent", arguments: {} }])]);
    const controller = new AbortController();
    let nestedError: unknown;
    const gate = signalled();
    void gate.reached.then(() => controller.abort());
    const parent = parentTool(async (context) => {
      try {
        await context.nested!.run({ suffix: "tool-1", name: "asks", arguments: {} }, new AbortController().signal);
      } catch (error) {
        nestedError = error;
      }
      return "after";
    });
    const outcome = await turn(
      config,
      [parent, simpleTool("asks", "process")],
      recordingSink([], (id) => {
        if (id === "p1") return true;
        gate.reach();
        return new Promise<boolean>(() => {});
      }),
      controller.signal,
    );
    expect(outcome).toEqual({ kind: "cancelled", usage: {} });
    expect((nestedError as Error).name).toBe("AbortError");
  });
});

describe("step numbers", () => {
  it("reach the chat wire, which names id-less calls call_<step>_<n>", async () => {
    const idless = (args: string) => ({
      events: [
        chat.toolCalls({ index: 0, type: "function", name: "reads", arguments: args }),
        chat.finish("tool_calls"),
        chat.done(),
      ],
    });
    const config = await setup(
      [idless('{"s":1}'), idless('{"s":2}'), { events: [chat.text("fin"), chat.finish("stop"), chat.done()] }],
      (config) => {
        config.provider.wire_api = "chat";
      },
    );
    const log: string[] = [];
    const outcome = await turn(config, [simpleTool("reads", "read_only")], recordingSink(log, () => true));
    expect(outcome.kind).toBe("completed");
    expect(log.filter((entry) => entry.startsWith("proposed:"))).toEqual([
      "proposed:call_1_1:reads",
      "proposed:call_2_1:reads",
    ]);
  });
});
