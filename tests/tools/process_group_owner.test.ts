// Process groups belong to an owner (a session): killing one owner's groups leaves another owner's running.
import { describe, expect, it } from "vitest";
import { killEveryProcessGroup, ProcessGroups, runProcessGroup } from "../../lib/tools/process_group.ts";

function start(groups: ProcessGroups, signal: AbortSignal) {
  return runProcessGroup({
    file: "/bin/sh",
    args: ["-c", "exec sleep 30"],
    cwd: process.cwd(),
    env: process.env,
    timeoutMs: 30_000,
    outputLimitBytes: 1024,
    signal,
    groups,
    timings: { killGraceMs: 200, drainMs: 50 },
  });
}

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
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
