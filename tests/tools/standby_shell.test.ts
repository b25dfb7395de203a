// A standby shell (lib/tools/standby_shell.ts) without a sandbox around it: the waiter itself, started ahead, runs
// exactly the command it is handed; a standby started for another launch, for paths that changed since, or that died
// while waiting is never used (and one set aside is killed); a waiting standby keeps nothing alive.
import { readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ProcessGroups, runProcessGroup } from "../../lib/tools/process_group.ts";
import { type StandbyLaunch, StandbyShell, waiterProgram } from "../../lib/tools/standby_shell.ts";
import { isRunning, livePids, parentOf } from "../support/live_processes.ts";
import { waitFor } from "../support/wait.ts";
import { makeSandbox, type Sandbox } from "./helpers.ts";

let box: Sandbox;
let groups: ProcessGroups;
let standby: StandbyShell;
let mark: string;
beforeEach(() => {
  mark = `${process.pid}-${Math.random()}`;
  box = makeSandbox();
  groups = new ProcessGroups();
  standby = new StandbyShell(groups);
});
afterEach(() => {
  standby.dispose();
  groups.killAll();
  box.cleanup();
});

const launchIn = (cwd: string, extra: Record<string, string> = {}): StandbyLaunch => ({
  ...waiterProgram("/bin/bash", "-c"),
  cwd,
  env: { PATH: process.env.PATH ?? "/usr/bin:/bin", SCV_TEST_STANDBY: mark, ...extra },
});

/**
 * Runs `command` in whatever the standby hands over: "none handed over", "ran nothing" (it had died), or
 * "exit <code>: <output>".
 */
async function runInStandby(launch: StandbyLaunch, identity: string, command: string): Promise<string> {
  const handover = standby.take(launch, identity, command);
  if (handover === undefined) return "none handed over";
  handover.begin();
  const result = await runProcessGroup({
    file: "unused",
    args: [],
    cwd: launch.cwd,
    env: launch.env,
    timeoutMs: 60_000,
    outputLimitBytes: 4096,
    signal: new AbortController().signal,
    groups,
    running: handover.child,
  });
  if (!await handover.acknowledged) return "ran nothing";
  return result.kind === "finished" ? `exit ${result.exitCode}: ${result.output}` : result.kind;
}

describe("StandbyShell", () => {
  it("runs the command it is handed byte for byte, in its folder and environment, with its exit code", async () => {
    const launch = launchIn(box.workspace, { GREETING: "hello" });
    standby.prepare(launch, "paths-1");
    const command = 'printf "%s|%s|%s" "$GREETING" "$PWD" "$0"; echo " a \\\nb"; exit 3\n\n';
    expect(await runInStandby(launch, "paths-1", command)).toBe(`exit 3: hello|${box.workspace}|/bin/bash a b\n`);
    // Handed over once: the next command finds none waiting.
    expect(standby.take(launch, "paths-1", "true")).toBeUndefined();
  });

  it("is not used, and is killed, for another launch or when its paths changed", async () => {
    for (
      const [launch, identity] of [[launchIn(box.outside), "paths-1"], [launchIn(box.workspace), "paths-2"]] as const
    ) {
      standby.prepare(launchIn(box.workspace), "paths-1");
      const pid = waitingPid();
      expect(await runInStandby(launch, identity, "true")).toBe("none handed over");
      await waitFor(() => !isRunning(pid), { what: `the standby (${pid}) set aside to be killed` });
    }
  });

  it("runs nothing once it died while waiting, even before its end is noticed, and a new one takes its place", async () => {
    const launch = launchIn(box.workspace);
    standby.prepare(launch, "paths-1");
    const pid = waitingPid();
    process.kill(-pid, "SIGKILL");
    // Handed over at once: this process has not yet seen the standby end; it says it ran nothing.
    expect(await runInStandby(launch, "paths-1", "true")).toMatch(/^(ran nothing|none handed over)$/);
    await waitFor(() => !isRunning(pid), { what: "the standby to die" });
    standby.prepare(launch, "paths-1");
    expect(await runInStandby(launch, "paths-1", "echo again")).toBe("exit 0: again\n");
  });

  it("keeps one standby per launch: preparing again starts none, dispose kills it", async () => {
    const launch = launchIn(box.workspace);
    standby.prepare(launch, "paths-1");
    const pid = waitingPid();
    standby.prepare(launch, "paths-1");
    expect(waitingPid()).toBe(pid);
    standby.dispose();
    await waitFor(() => !isRunning(pid), { what: "the disposed standby to be killed" });
  });
});

/**
 * The host pid of the one standby of this test waiting now (found by its marker and this test's variable; the
 * subshell it forks to read the command, with the same arguments until it runs `cat`, is not counted).
 */
function waitingPid(): number {
  const ours = livePids((args) => args.includes("scv-standby")).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/environ`, "latin1").split("\0").includes(`SCV_TEST_STANDBY=${mark}`);
    } catch {
      return false;
    }
  });
  const pids = ours.filter((pid) => !ours.includes(parentOf(pid) ?? 0));
  if (pids.length !== 1) throw new Error(`expected one standby waiting, found ${pids.length}`);
  return pids[0]!;
}
