import { existsSync, readFileSync } from "node:fs";
import { afterAll, afterEach, beforeEach, describe, expect, it, onTestFinished, vi } from "vitest";
import { type BashSettings, createBashTool, MAX_COMMAND_CHARS } from "../../lib/tools/bash.ts";
import type { Tool } from "../../lib/tools/types.ts";
import { HANG_MS, waitFor, within } from "../support/wait.ts";
import { makeSandbox, prepare, prepareError, run, type Sandbox, testConfig } from "./helpers.ts";

const base: BashSettings = { commandTimeoutSeconds: 30, maxTimeoutSeconds: 60, outputLimitBytes: 4096 };
const started: number[] = [];

/** Running, not a zombie (zombies wait for a reaper that may be slow in containers). */
function isRunning(pid: number): boolean {
  const stat = `/proc/${pid}/stat`;
  if (existsSync("/proc/self/stat")) {
    try {
      const state = readFileSync(stat, "utf8").split(") ")[1]?.[0];
      return state !== undefined && state !== "Z";
    } catch {
      return false;
    }
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function eventually(check: () => boolean, ms = HANG_MS): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return check();
}

describe("bash", () => {
  let box: Sandbox;
  const tool = createBashTool(base);
  const bash = (args: unknown, useTool: Tool = tool, options = {}) =>
    run(prepare(useTool, args, box.workspace), box.workspace, options);
  const savedHome = process.env.HOME;
  beforeEach(() => {
    box = makeSandbox();
    // The spec's harness runs with an empty HOME; a real one may make `bash -l` slow to start.
    process.env.HOME = box.root;
  });
  afterEach(() => {
    process.env.HOME = savedHome;
    box.cleanup();
  });
  afterAll(() => {
    for (const pid of started) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
  });

  it("declares its one schema with the configured maximum", () => {
    expect(tool.description).toMatch(
      /^Run a Bash command in the workspace \(not sandboxed\)\. Prefer read, grep, glob and list/,
    );
    // Issue 26: recursive shell searches ask, so the model is pointed at the tools that skip secrets.
    expect(tool.description).toContain(
      "use the built-in grep and glob: they walk the whole workspace and skip secrets",
    );
    expect(tool.parameters).toMatchObject({
      type: "object",
      required: ["command"],
      additionalProperties: false,
      properties: { command: { type: "string" }, timeout_seconds: { type: "integer", minimum: 1, maximum: 60 } },
    });
  });

  it("validates before approval, with the spec's messages", () => {
    expect(prepareError(tool, { command: "  \n" }, box.workspace)).toBe("command or prompt must be non-empty");
    expect(prepareError(tool, { command: "ls", timeout_seconds: 61 }, box.workspace)).toBe(
      "timeout_seconds must be at most 60",
    );
    expect(prepareError(tool, { command: "ls", timeout_seconds: 0 }, box.workspace)).toBe(
      "timeout_seconds must be positive",
    );
    expect(prepareError(tool, { command: "ls", cwd: "/" }, box.workspace)).toBe(
      'invalid arguments: unknown property "cwd"',
    );
    expect(prepareError(tool, { command: ["ls"] }, box.workspace)).toBe(
      'invalid arguments: "command" must be a string, found an array',
    );
  });

  it("has process risk and a summary and detail holding the whole command", () => {
    const call = prepare(tool, { command: "npm test" }, box.workspace);
    expect(call.risk).toBe("process");
    expect(call.summary).toBe("Run with /bin/bash -c: npm test");
    expect(call.detail).toBe("npm test");
    // Past 2,000 characters nothing is cut any more: the dangerous tail stays in what is approved.
    const long = `${"é".repeat(5000)}; rm -rf ~`;
    expect(prepare(tool, { command: long }, box.workspace).summary).toBe(`Run with /bin/bash -c: ${long}`);
    expect(prepare(tool, { command: long }, box.workspace).detail).toBe(long);
  });

  it("refuses a command too long to show for approval, counting characters", () => {
    expect(prepare(tool, { command: "é".repeat(MAX_COMMAND_CHARS) }, box.workspace).detail).toHaveLength(
      MAX_COMMAND_CHARS,
    );
    expect(prepareError(tool, { command: "é".repeat(MAX_COMMAND_CHARS + 1) }, box.workspace)).toBe(
      `command is ${
        MAX_COMMAND_CHARS + 1
      } characters, longer than the ${MAX_COMMAND_CHARS} that can be shown for approval; ` +
        "write the script to a file and run that instead",
    );
  });

  it("runs in the workspace with stdin from /dev/null and the server environment", async () => {
    process.env.SCV_TOOLS_TEST_VALUE = "from-server";
    try {
      const outcome = await bash({ command: "pwd; cat; echo $SCV_TOOLS_TEST_VALUE" });
      expect(outcome).toEqual({
        success: true,
        truncated: false,
        output: JSON.stringify({
          exit_code: 0,
          timed_out: false,
          output: `${box.workspace}\nfrom-server\n`,
          truncated: false,
        }),
      });
    } finally {
      delete process.env.SCV_TOOLS_TEST_VALUE;
    }
  });

  it("drops the variables scv reads secrets from, except those passed through on purpose", async () => {
    process.env.SCV_TEST_SECRET_A = "secret-a";
    process.env.SCV_TEST_SECRET_B = "secret-b";
    try {
      const config = testConfig({ env_passthrough: ["SCV_TEST_SECRET_B"] });
      config.secrets = { ...config.secrets, env_names: ["SCV_TEST_SECRET_A", "SCV_TEST_SECRET_B"] };
      const call = prepare(
        tool,
        { command: 'echo "a=${SCV_TEST_SECRET_A-unset} b=${SCV_TEST_SECRET_B-unset}"' },
        box.workspace,
      );
      const outcome = await run(call, box.workspace, { config });
      expect(JSON.parse(outcome.output).output).toBe("a=unset b=secret-b\n");
    } finally {
      delete process.env.SCV_TEST_SECRET_A;
      delete process.env.SCV_TEST_SECRET_B;
    }
  });

  it("merges stdout and stderr", async () => {
    const outcome = await bash({ command: "echo out; sleep 0.05; echo err >&2" });
    expect(JSON.parse(outcome.output).output).toBe("out\nerr\n");
  });

  it("fails with the exit code: exit 3", async () => {
    const outcome = await bash({ command: "echo before; exit 3" });
    expect(outcome).toEqual({
      success: false,
      truncated: false,
      error: "failed",
      output: '{"exit_code":3,"timed_out":false,"output":"before\\n","truncated":false}',
    });
  });

  it("times out: SIGKILL to the whole group, timed_out true, exit_code null", async () => {
    const begin = Date.now();
    const outcome = await bash({ command: "echo $$; sleep 30 & echo $!; sleep 30", timeout_seconds: 1 });
    expect(Date.now() - begin).toBeGreaterThanOrEqual(950);
    expect(outcome.success).toBe(false);
    expect(outcome.error).toBe("limit");
    const parsed = JSON.parse(outcome.output);
    expect(parsed).toMatchObject({ exit_code: null, timed_out: true, truncated: false });
    const pids = parsed.output.trim().split("\n").map(Number);
    started.push(...pids);
    expect(await eventually(() => pids.every((pid: number) => !isRunning(pid)))).toBe(true);
  });

  it("does not wait for `sleep 100 &`, and kills it", async () => {
    // Waiting for it would take 100 s, past the hang deadline.
    const outcome = await within(bash({ command: "sleep 100 & echo $!" }), "the command without its background job");
    expect(outcome.success).toBe(true);
    const pid = Number(JSON.parse(outcome.output).output.trim());
    started.push(pid);
    expect(await eventually(() => !isRunning(pid))).toBe(true);
  });

  it("stops draining 250 ms after the leader exits, even if an escaped process holds the pipe", async () => {
    // Draining until the escaped process lets go would take 1,000 s, past the hang deadline.
    const outcome = await within(bash({ command: "setsid sleep 1000 & echo $!; echo done" }), "the drain to stop");
    const lines = JSON.parse(outcome.output).output.trim().split("\n");
    started.push(Number(lines[0]));
    expect(lines[1]).toBe("done");
    expect(outcome.success).toBe(true);
  });

  it("truncates output at output_limit_bytes, at a character boundary", async () => {
    const small = createBashTool({ ...base, outputLimitBytes: 100 });
    const outcome = await bash({ command: "yes | head -c 100000" }, small);
    const parsed = JSON.parse(outcome.output);
    expect(parsed.output).toBe("y\n".repeat(50));
    expect(parsed.truncated).toBe(true);
    expect(outcome.truncated).toBe(true);
    expect(outcome.success).toBe(true);
    const tiny = createBashTool({ ...base, outputLimitBytes: 5 });
    const cut = JSON.parse((await bash({ command: "printf 'abcdé'" }, tiny)).output);
    expect(cut).toEqual({ exit_code: 0, timed_out: false, output: "abcd", truncated: true });
  });

  it("cancels with SIGTERM and resolves promptly", async () => {
    const controller = new AbortController();
    const progress: string[] = [];
    // Cancelled once the command runs; not cancelled, it would run for 1,000 s, past the hang deadline.
    const pending = bash({ command: "echo running; sleep 1000" }, tool, { signal: controller.signal, progress });
    await waitFor(() => progress.includes("running"), { what: "the command to run" });
    controller.abort();
    const outcome = await within(pending, "the cancelled command to end");
    expect(outcome).toEqual({ success: false, truncated: false, error: "cancelled", output: "process cancelled" });
  });

  it("honours a cancel that arrives while the process is being spawned", async () => {
    const controller = new AbortController();
    const call = prepare(tool, { command: "sleep 30", timeout_seconds: 5 }, box.workspace);
    const pending = run(call, box.workspace, { signal: controller.signal });
    controller.abort(); // before the spawn event has been delivered
    // Missed, the cancel would leave the command to its 5 s timeout, which ends it with "limit".
    expect(await pending).toMatchObject({ success: false, error: "cancelled" });
  });

  it("escalates to SIGKILL when SIGTERM is ignored", async () => {
    const quick = createBashTool({ ...base, timings: { killGraceMs: 300, drainMs: 250 } });
    const controller = new AbortController();
    const pidFile = `${box.workspace}/pids`;
    const command = `trap '' TERM; sleep 30 & echo $! > pids; echo $$ >> pids; wait`;
    const call = prepare(quick, { command }, box.workspace);
    const pending = run(call, box.workspace, { signal: controller.signal });
    const ready = () => existsSync(pidFile) && readFileSync(pidFile, "utf8").trim().split("\n").length === 2;
    expect(await eventually(ready)).toBe(true);
    const pids = readFileSync(pidFile, "utf8").trim().split("\n").map(Number);
    started.push(...pids);
    const begin = Date.now();
    controller.abort();
    const outcome = await pending;
    const elapsed = Date.now() - begin;
    expect(outcome.error).toBe("cancelled");
    expect(elapsed).toBeGreaterThanOrEqual(280);
    expect(await eventually(() => pids.every((pid) => !isRunning(pid)))).toBe(true);
  });

  it("reports the last line as progress, at most once per interval", async () => {
    const progress: string[] = [];
    const paced = createBashTool({ ...base, progressIntervalMs: 50 });
    await bash({ command: "echo one; sleep 0.2; printf 'two\\n\\n'; sleep 0.2; echo three" }, paced, { progress });
    // Lines that arrive in one chunk (a starved machine) collapse to the latest; order is kept.
    expect(progress.at(-1)).toBe("three");
    expect(["one", "two", "three"].filter((line) => progress.includes(line))).toEqual(progress);
    // The interval is the subject: the reporter's clock is fake and stands still, however long the command takes.
    vi.useFakeTimers({ toFake: ["Date", "setTimeout", "clearTimeout"] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const throttled: string[] = [];
    const slow = createBashTool({ ...base, progressIntervalMs: 10_000 });
    await bash({ command: "for i in $(seq 1 20); do echo line$i; sleep 0.01; done" }, slow, { progress: throttled });
    expect(throttled.length).toBe(1);
    expect(throttled[0]).toMatch(/^line\d+$/);
  });

  it("cuts progress text to 512 bytes", async () => {
    const progress: string[] = [];
    await bash({ command: "printf '%0600d\\n' 0" }, tool, { progress });
    expect(progress).toEqual(["0".repeat(512)]);
  });

  it("is unavailable when the shell cannot be launched", async () => {
    const missing = createBashTool({ ...base, shell: "/nonexistent/bash" });
    const outcome = await bash({ command: "true" }, missing);
    expect(outcome.success).toBe(false);
    expect(outcome.error).toBe("unavailable");
    expect(outcome.output).toMatch(/^launch \/nonexistent\/bash: /);
  });
});
