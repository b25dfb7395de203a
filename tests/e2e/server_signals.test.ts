// SIGTERM and SIGINT shut `scv server --stdio` down like stdin EOF (spec §6.7): the turn is cancelled, bash process
// groups are killed, exec workers stop, and the process exits 0 promptly.
import { readFileSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { type FakeResponse, toolCallResponse } from "../support/fake_provider.ts";
import type { ServerClient } from "../support/server_client.ts";
import { useServerHarness } from "../support/server_harness.ts";
import { waitFor } from "../support/wait.ts";

const harness = useServerHarness();

function startServer(script: FakeResponse[], toml?: string): Promise<ServerClient> {
  return harness.startServer(script, toml === undefined ? {} : { toml });
}

/** True while `pid` exists and is not a zombie. */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

describe("signals", () => {
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    // How soon: scripts/bench/latency.ts (server.sigterm_to_exit_idle).
    it(`exits 0 on ${signal} when idle`, async () => {
      const client = await startServer([]);
      client.child.kill(signal);
      expect(await client.exit()).toEqual({ code: 0, signal: null });
    });
  }

  it("on SIGTERM mid-bash kills the process group and exits 0", async () => {
    const client = await startServer([
      toolCallResponse([{
        call_id: "b1",
        name: "bash",
        // Longer than the hang deadline: only the signal can end it in time.
        arguments: { command: "echo $$ > pid.txt; sleep 1000 & sleep 1000" },
      }]),
      // The pid bash writes must be the host's: outside the command sandbox's PID namespace (a sandboxed command
      // dying with the server is tests/e2e/command_sandbox.test.ts).
    ], 'sandbox_mode = "danger-full-access"\n');
    client.turn("run");
    const approval = await client.next("approval.requested");
    client.send({
      type: "approval.resolve",
      request_id: "y",
      session_id: client.sessionId,
      approval_id: approval.approval_id,
      approved: true,
    });
    const pidFile = path.join(harness.sandbox.workspace, "pid.txt");
    const pid = await waitFor(
      async () => {
        const text = await readFile(pidFile, "utf8").catch(() => "");
        return text.endsWith("\n") ? Number(text.trim()) : undefined;
      },
      { what: "bash to write its pid" },
    );
    harness.defer(() => {
      try {
        process.kill(-pid, "SIGKILL");
      } catch {
        // already gone
      }
    });
    expect(alive(pid)).toBe(true);
    client.child.kill("SIGTERM");
    expect(await client.exit()).toEqual({ code: 0, signal: null });
    await waitFor(() => !alive(pid), { what: `the bash process ${pid} to end` });
  });

  it("on SIGTERM mid-exec terminates the busy cell and exits 0", async () => {
    await writeFile(path.join(harness.sandbox.workspace, "a.txt"), "alpha");
    const client = await startServer([
      // An hour-long timeout: only the signal can end the cell before the hang deadline.
      toolCallResponse([{
        call_id: "x1",
        name: "exec",
        arguments: { code: "notify('spinning'); while (true) {}", timeout_seconds: 3600 },
      }]),
    ]);
    client.turn("spin");
    await client.next("tool.progress");
    client.child.kill("SIGTERM");
    expect(await client.exit()).toEqual({ code: 0, signal: null });
  });
});
