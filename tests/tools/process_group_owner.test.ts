// Process groups belong to an owner (a session): killing one owner's groups leaves another owner's running.
import { describe, expect, it } from "vitest";
import { killEveryProcessGroup, ProcessGroups, runProcessGroup } from "../../lib/tools/process_group.ts";
import { waitFor } from "../support/wait.ts";

function start(groups: ProcessGroups, signal: AbortSignal) {
  return runProcessGroup({
    file: "/bin/sh",
    // Longer than any run of this test, however busy the machine: only the kills end these.
    args: ["-c", "exec sleep 1000"],
    cwd: process.cwd(),
    env: process.env,
    timeoutMs: 1_000_000,
    outputLimitBytes: 1024,
    signal,
    groups,
    timings: { killGraceMs: 200, drainMs: 50 },
  });
}

async function until(check: () => boolean, what: string): Promise<void> {
  await waitFor(check, { what });
}

describe("ProcessGroups", () => {
  it("killAll ends only its own groups; killEveryProcessGroup ends every owner's", async () => {
    const mine = new ProcessGroups();
    const theirs = new ProcessGroups();
    const stop = new AbortController();
    const myRun = start(mine, stop.signal);
    const theirRun = start(theirs, stop.signal);
    await until(() => mine.size === 1 && theirs.size === 1, "both groups to start");

    mine.killAll();
    const myResult = await myRun;
    expect(myResult).toMatchObject({ kind: "finished", exitCode: null, timedOut: false });
    expect(mine.size).toBe(0);
    expect(theirs.size).toBe(1);

    killEveryProcessGroup();
    expect(await theirRun).toMatchObject({ kind: "finished", exitCode: null });
    expect(theirs.size).toBe(0);
  });
});
