// The exec tool on its own: the real process sandbox, nested calls answered by a scripted `nested` context
// (the turn loop's part is covered by tests/server/turn_nested.test.ts and tests/e2e/server_exec.test.ts).
import { afterAll, describe, expect, it, onTestFinished, vi } from "vitest";
import { defaultConfig } from "../../../lib/config/defaults.ts";
import { decide, RuleSet } from "../../../lib/policy/index.ts";
import {
  createExecTool,
  ExecSandbox,
  type NestedCallRequest,
  shutdownProcessSandbox,
} from "../../../lib/tools/exec/index.ts";
import type { PreparedCall, ToolContext, ToolOutcome } from "../../../lib/tools/types.ts";
import { waitFor, within } from "../../support/wait.ts";

afterAll(async () => {
  await shutdownProcessSandbox();
});

// A cell's default timeout is the longest allowed, so that only the tests about timeouts ever reach one.
const settings = { commandTimeoutSeconds: 30, maxTimeoutSeconds: 30, outputLimitBytes: 64 };
const config = defaultConfig("/nonexistent/skills");

function prepare(args: unknown, overrides: Partial<typeof settings> = {}): PreparedCall {
  const prepared = createExecTool({ ...settings, ...overrides }).prepare(args, { workspace: "/tmp", config });
  if ("error" in prepared) throw new Error(prepared.error);
  return prepared;
}

type Answer = (request: NestedCallRequest, signal: AbortSignal) => Promise<ToolOutcome>;

function context(
  answer: Answer,
  options: { signal?: AbortSignal; progress?: string[]; log?: string[] } = {},
): ToolContext {
  return {
    workspace: "/tmp",
    config,
    signal: options.signal ?? new AbortController().signal,
    progress: (text) => options.progress?.push(text),
    nested: {
      tools: [
        { name: "echo", description: "echoes" },
        { name: "exec", description: "itself" },
      ],
      run: async (request, signal) => {
        options.log?.push(`start ${request.suffix} ${request.name} ${JSON.stringify(request.arguments)}`);
        const outcome = await answer(request, signal);
        options.log?.push(`end ${request.suffix}`);
        return outcome;
      },
    },
  };
}

const ok = (output: string): ToolOutcome => ({ success: true, output, truncated: false });
const echo: Answer = async (request) => ok(JSON.stringify(request.arguments));

describe("exec prepare", () => {
  it("is read_only with the spec's summary (UTF-8 bytes) and validates its arguments", () => {
    const prepared = prepare({ code: "text('é')" });
    expect(prepared.risk).toBe("read_only");
    expect(prepared.summary).toBe(
      "Run 10 bytes of JavaScript in the exec sandbox; nested tool calls are approved one by one",
    );
    const tool = createExecTool(settings);
    const check = (args: unknown) => tool.prepare(args, { workspace: "/tmp", config });
    expect(check({})).toEqual({ error: 'invalid arguments: missing required property "code"' });
    expect(check({ code: "1", timeout_seconds: 31 })).toEqual({ error: "timeout_seconds must be at most 30" });
    expect(check({ code: "1", timeout_seconds: 0 })).toEqual({ error: "timeout_seconds must be positive" });
    expect(check({ code: "1", extra: true })).toEqual({ error: 'invalid arguments: unknown property "extra"' });
  });
});

describe("exec run", () => {
  it("runs nested calls one at a time in call order and resolves with parsed JSON, else the text", async () => {
    const log: string[] = [];
    const answer: Answer = async (request) => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      return request.name === "echo" && (request.arguments as { raw?: boolean } | null)?.raw
        ? ok("not json")
        : echo(request, new AbortController().signal);
    };
    const code = [
      "const [a, b] = await Promise.all([tools.echo({ n: 1 }), tools.echo({ raw: true })]);",
      "text(JSON.stringify(a) + ' ' + typeof b + ' ' + b);",
      "text(typeof tools.exec + ' ' + ALL_TOOLS.map((t) => t.name).join(','));",
    ].join("\n");
    const outcome = await prepare({ code }).run(context(answer, { log }));
    expect(outcome).toEqual(ok('{"n":1} string not json\nundefined echo'));
    expect(log).toEqual(['start tool-1 echo {"n":1}', "end tool-1", 'start tool-2 echo {"raw":true}', "end tool-2"]);
  });

  it("rejects inside the cell with the output text of a failed nested call", async () => {
    const fail: Answer = async () => ({
      success: false,
      output: "tool call denied by policy or user",
      truncated: false,
      error: "denied",
    });
    const outcome = await prepare({ code: "try { await tools.echo(1) } catch (e) { text(typeof e + ':' + e) }" }).run(
      context(fail),
    );
    expect(outcome).toEqual(ok("string:tool call denied by policy or user"));
  });

  it("waits for a nested call the cell left behind, whose signal aborts when the cell ends", async () => {
    const log: string[] = [];
    const slow: Answer = (_request, signal) =>
      new Promise((resolve) =>
        signal.addEventListener(
          "abort",
          () => resolve({ success: false, output: "cancelled", truncated: false, error: "cancelled" }),
        )
      );
    const outcome = await prepare({ code: "tools.echo({}); text('left')" }).run(context(slow, { log }));
    expect(outcome).toEqual(ok("left"));
    expect(log).toEqual(["start tool-1 echo {}", "end tool-1"]);
  });

  it("cuts the output to the limit at a character boundary", async () => {
    const outcome = await prepare({ code: "text('é'.repeat(40))" }).run(context(echo));
    expect(outcome).toEqual({ success: true, output: "é".repeat(32), truncated: true });
    const odd = await prepare({ code: "text('a' + 'é'.repeat(40))" }, { outputLimitBytes: 8 }).run(context(echo));
    expect(odd).toEqual({ success: true, output: "aééé", truncated: true });
  });

  it("keeps the timeout line whole when the output is cut, and fails with limit", async () => {
    // Time is the subject: the tool's timer runs on a fake clock, moved once the cell has written its text.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const progress: string[] = [];
    const running = prepare({ code: "text('x'.repeat(500)); notify('spinning'); for (;;) {}", timeout_seconds: 1 })
      .run(context(echo, { progress }));
    await waitFor(() => progress.length > 0, { what: "the cell to write its text" });
    await vi.advanceTimersByTimeAsync(1000);
    const outcome = await running;
    const trailer = "Script terminated: timed out after 1 seconds";
    expect(outcome.success).toBe(false);
    expect(outcome.error).toBe("limit");
    expect(outcome.truncated).toBe(true);
    expect(outcome.output).toBe(`${"x".repeat(64 - trailer.length - 1)}\n${trailer}`);
  });

  it("observes a cell that yields until it ends", async () => {
    const outcome = await prepare({
      code: "text('a'); yield_control(); await new Promise((r) => setTimeout(r, 50)); text('b')",
    }).run(context(echo));
    expect(outcome).toEqual(ok("a\nb"));
  });

  it("reports a syntax error and a thrown string as script errors", async () => {
    const syntax = await prepare({ code: "let = ;" }).run(context(echo));
    expect(syntax).toMatchObject({ success: false, error: "failed" });
    expect(syntax.output.startsWith("Script error:\nSyntaxError: ")).toBe(true);
    expect(await prepare({ code: "text(1); throw 'bare'" }).run(context(echo))).toEqual({
      success: false,
      output: "1\nScript error:\nbare",
      truncated: false,
      error: "failed",
    });
  });

  it("turns notify into progress", async () => {
    const progress: string[] = [];
    expect(await prepare({ code: "notify('step 1'); text('done')" }).run(context(echo, { progress }))).toEqual(
      ok("done"),
    );
    expect(progress).toEqual(["step 1"]);
  });

  it("terminates the cell when the turn is cancelled", async () => {
    const controller = new AbortController();
    const progress: string[] = [];
    const running = prepare({ code: "text('spin'); notify('running'); for (;;) {}", timeout_seconds: 30 }).run(
      context(echo, { signal: controller.signal, progress }),
    );
    // Cancelled once the cell runs (a sandbox process may take a while to boot on a loaded machine).
    await waitFor(() => progress.length > 0, { what: "the cell to run" });
    controller.abort();
    // Not cancelled, the cell would end by its 30 s timeout with another outcome.
    const outcome = await within(running, "the cancelled cell to end");
    expect(outcome).toEqual({
      success: false,
      output: "spin\nScript terminated: cancelled",
      truncated: false,
      error: "cancelled",
    });
  });

  it("without a nested context offers no tools", async () => {
    const outcome = await prepare({ code: "text(typeof tools.echo)" }).run({
      workspace: "/tmp",
      config,
      signal: new AbortController().signal,
      progress() {},
    });
    expect(outcome).toEqual(ok("undefined"));
  });
});

describe("exec risk and ownership", () => {
  it("asks under policy always; each nested call goes through the gate on its own", async () => {
    const prepared = prepare({ code: "await tools.echo({ n: 1 }); await tools.echo({ n: 2 }); text('done')" });
    expect(
      decide({ tool: "exec", risk: prepared.risk, ...prepared.access }, { mode: "always", rules: RuleSet.empty() })
        .verdict,
    )
      .toBe("ask");
    const log: string[] = [];
    const outcome = await prepared.run(context(echo, { log }));
    expect(outcome).toMatchObject({ success: true, output: "done" });
    expect(log).toEqual(['start tool-1 echo {"n":1}', "end tool-1", 'start tool-2 echo {"n":2}', "end tool-2"]);
  });

  it("one session's sandbox shutdown does not stop another session's cell", async () => {
    const first = new ExecSandbox();
    const second = new ExecSandbox();
    try {
      const run = (owner: ExecSandbox, code: string, answer: Answer = echo) => {
        const prepared = createExecTool(settings, owner).prepare({ code }, { workspace: "/tmp", config });
        if ("error" in prepared) throw new Error(prepared.error);
        return prepared.run(context(answer));
      };
      expect(await run(first, "text('first')")).toMatchObject({ success: true, output: "first" });
      // The second session's cell waits on a tool call that is answered only after the first one shut down.
      let release: (() => void) | undefined;
      const gated: Answer = () => new Promise((resolve) => (release = () => resolve(ok("go"))));
      const slow = run(second, "await tools.echo({}); text('second')", gated);
      await waitFor(() => release !== undefined, { what: "the second cell's tool call" });
      await first.shutdown();
      release!();
      expect(await slow).toMatchObject({ success: true, output: "second" });
    } finally {
      await Promise.all([first.shutdown(), second.shutdown()]);
    }
  });
});
