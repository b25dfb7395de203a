// Two sessions in one process (as chat restarting its engine, or an embedding client, runs them): each owns the
// bash process groups it started, so shutting one session down leaves the other's running command alone.
import { randomInt } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type EngineClient, openEngine } from "../../lib/embed/engine.ts";
import type { ClientEvent } from "../../lib/protocol/index.ts";
import { silentLogger } from "../../lib/util/log.ts";
import { type ConfigSandbox, createConfigSandbox } from "../support/config_files.ts";
import { type FakeProvider, startFakeProvider, textResponse, toolCallResponse } from "../support/fake_provider.ts";
import { waitFor } from "../support/wait.ts";
import { livePids } from "../support/live_processes.ts";
import { alive } from "../support/process_alive.ts";

let sandbox: ConfigSandbox;
const providers: FakeProvider[] = [];
const engines: EngineClient[] = [];

beforeEach(async () => {
  sandbox = await createConfigSandbox();
});

afterEach(async () => {
  for (const engine of engines.splice(0)) await engine.close();
  for (const provider of providers.splice(0)) await provider.close();
  await sandbox.cleanup();
});

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  await waitFor(check, { what, intervalMs: 20 });
}

/** A session whose first turn runs a `sleep` only it runs (bash execs it); resolves with that process's pid. */
async function sessionRunningBash(name: string): Promise<{ engine: EngineClient; pid: number; events: ClientEvent[] }> {
  const duration = `1000.${randomInt(1_000_000, 9_999_999)}`;
  const provider = await startFakeProvider([
    toolCallResponse([{
      call_id: `${name}-1`,
      name: "bash",
      arguments: { command: `exec sleep ${duration}` },
    }]),
    textResponse(["done"]),
  ]);
  providers.push(provider);
  const events: ClientEvent[] = [];
  // Read by the event callback that openEngine receives, so it cannot be a const assigned from openEngine's result.
  // deno-lint-ignore prefer-const
  let engine: EngineClient | undefined;
  engine = await openEngine(
    { env: sandbox.env({ OPENAI_API_KEY: "k" }), cwd: sandbox.workspace, baseUrl: provider.url, model: "fake-model" },
    silentLogger,
    { cwd: sandbox.workspace },
    (event) => {
      events.push(event);
      if (event.type === "approval.requested")
        engine?.notify({ type: "approval.resolve", approval_id: event.approval_id, approved: true });
    },
  );
  engines.push(engine);
  await engine.send({ type: "turn.start", prompt: "run it" });
  let pid = 0;
  await until(() => {
    // Found by its arguments: under the command sandbox, bash's `$$` is not the host's pid.
    pid = livePids((args) => args.length === 2 && args[0] === "sleep" && args[1] === duration)[0] ?? 0;
    return pid > 0;
  }, `${name}'s bash`);
  return { engine, pid, events };
}

describe("process groups owned by the session", () => {
  it("shutting one session down kills its bash and leaves the other session's bash running", async () => {
    const first = await sessionRunningBash("first");
    const second = await sessionRunningBash("second");

    engines.splice(engines.indexOf(second.engine), 1);
    await second.engine.close();
    await until(() => !alive(second.pid), "the closed session's bash to end");

    expect(alive(first.pid)).toBe(true);
    expect(first.events.some((event) => event.type === "turn.cancelled" || event.type === "turn.completed")).toBe(
      false,
    );

    // The surviving session is still in charge of its own command: cancelling its turn ends it.
    const turn = first.events.find((event) => event.type === "turn.started");
    if (turn?.type !== "turn.started") throw new Error("the first session's turn never started");
    const ended = first.engine.waitFor((event) => event.type === "turn.cancelled");
    first.engine.notify({ type: "turn.cancel", turn_id: turn.turn_id });
    await ended;
    await until(() => !alive(first.pid), "the cancelled bash to end");
  });
});
