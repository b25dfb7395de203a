// Killing a sandbox launch kills every process of it. bwrap runs the program as a grandchild: killed
// alone while it was still setting up, bwrap's inner process outlived it and kept the program (a
// cell spinning in `while (true) {}`) running with no parent to stop it. spawn_child.ts kills the
// launch's process group instead; this test kills launches at every stage of their start.
import { randomUUID } from "node:crypto";
import { realpathSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { libraryBinds, type NamespaceLayout, wrap } from "../../lib/sandbox/namespaces.ts";
import { spawnChild } from "../../lib/sandbox/spawn_child.ts";
import { until } from "./helpers.ts";
import { livePids } from "../support/live_processes.ts";

const survivors = (marker: string) => livePids((args) => args.join(" ").includes(marker));

const node = realpathSync(process.execPath);
const layout: NamespaceLayout = { binds: [{ source: node, target: "/scv/node" }, ...libraryBinds(node)] };

describe.skipIf("Deno" in globalThis || process.platform !== "linux")("killing a sandbox launch", () => {
  it("leaves no process of it behind, however early in its start it is killed", async () => {
    const marker = `scv-kill-test-${randomUUID()}`;
    // One after another, as a host replaces a killed process: each killed 0 to 9 ms after its
    // spawn, some while bwrap sets up, some once the program runs.
    for (let stage = 0; stage < 60; stage++) {
      const wrapped = wrap(layout, (inside) => ({
        command: inside("/scv/node"),
        args: ["-e", `while (true) {} // ${marker}`],
      }));
      await new Promise<void>((resolve) => {
        const child = spawnChild({ ...wrapped, env: {}, cwd: "/", layers: [], dispose() {} }, {
          stdout: () => undefined,
          stderr: () => undefined,
          exit: () => resolve(),
          error: () => resolve(),
        });
        setTimeout(() => child.kill(), stage % 10);
      });
    }
    // Once every launch reported its exit, what is left of them dies at once or never.
    await until(() => survivors(marker).length === 0);
    const left = survivors(marker);
    for (const pid of left) process.kill(pid, "SIGKILL");
    expect(left).toEqual([]);
  });
});
