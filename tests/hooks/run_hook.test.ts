// One hook process through real shells (issue 30): its JSON input on stdin, stdout and stderr apart, the exit code,
// the working folder, and the whole process group killed at the timeout or when the hook itself has exited.
import { mkdtemp, readFile, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runHookProcess } from "../../lib/hooks/index.ts";
import { waitFor } from "../support/wait.ts";
import { alive } from "../support/process_alive.ts";

let folder: string;

beforeEach(async () => {
  folder = await realpath(await mkdtemp(path.join(tmpdir(), "scv-hook-")));
});

afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

type Extra = { input?: string; signal?: AbortSignal; startTimer?: (fire: () => void, ms: number) => () => void };

const run = (command: string, extra: Extra = {}) =>
  runHookProcess({
    command,
    cwd: folder,
    env: { PATH: process.env.PATH, MARK: "env-mark" },
    input: extra.input ?? "{}\n",
    timeoutMs: 60_000,
    ...extra,
  });

describe("runHookProcess", () => {
  it("gives the input on stdin and keeps stdout, stderr and the exit code apart, in the working folder", async () => {
    const result = await run('cat; echo "to stderr $MARK" >&2; pwd; exit 3', { input: '{"tool_name":"bash"}\n' });
    expect(result).toMatchObject({
      exitCode: 3,
      timedOut: false,
      cancelled: false,
      stdout: `{"tool_name":"bash"}\n${folder}\n`,
      stderr: "to stderr env-mark\n",
    });
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
  });

  it("does not fail a hook that never reads its input", async () => {
    const result = await run("exit 0", { input: `${"x".repeat(1_000_000)}\n` });
    expect(result.exitCode).toBe(0);
  });

  it("kills the whole group at the timeout, a background child included", async () => {
    const pidFile = path.join(folder, "child.pid");
    // The test is the clock: the timeout fires once the hook has started its child.
    let fire: (() => void) | undefined;
    const result = run(`sleep 300 & echo $! > ${pidFile}.tmp; mv ${pidFile}.tmp ${pidFile}; sleep 300`, {
      startTimer: (callback) => {
        fire = callback;
        return () => {};
      },
    });
    const child = await waitFor(() => readFile(pidFile, "utf8").then(Number), { what: "the hook's child" });
    fire!();
    expect(await result).toMatchObject({ timedOut: true, exitCode: null });
    await waitFor(() => !alive(child), { what: "the background child to be gone", timeoutMs: 10_000 });
  });

  it("kills what a hook left running once it exited, without waiting for it", async () => {
    const pidFile = path.join(folder, "child.pid");
    const result = await run(`sleep 300 & echo $! > ${pidFile}; echo done`);
    expect(result).toMatchObject({ exitCode: 0, stdout: "done\n" });
    const child = Number(await readFile(pidFile, "utf8"));
    await waitFor(() => !alive(child), { what: "the background child to be gone", timeoutMs: 10_000 });
  });

  it("stops when its signal aborts, and only that hook", async () => {
    const mine = new AbortController();
    const theirs = new AbortController();
    const running = run("sleep 300", { signal: theirs.signal });
    const cancelled = run("sleep 300", { signal: mine.signal });
    mine.abort();
    expect(await cancelled).toMatchObject({ cancelled: true, exitCode: null });
    const other = await Promise.race([running.then(() => "ended"), Promise.resolve("still running")]);
    expect(other).toBe("still running");
    theirs.abort();
    expect(await running).toMatchObject({ cancelled: true });
  });

  it("reports a shell that cannot start", async () => {
    const result = await runHookProcess({
      command: "true",
      cwd: folder,
      env: {},
      input: "{}",
      timeoutMs: 1000,
      shell: path.join(folder, "no-such-shell"),
    });
    expect(result.spawnError).toMatch(/ENOENT/);
  });
});
