// Two sessions in one process (chat restarting its engine, an embedding client, the tests): each owns its exec
// sandbox, so shutting one session down leaves the other's running cell alone.
import { afterEach, beforeEach, expect, it } from "vitest";
import { type EngineClient, openEngine } from "../../lib/embed/engine.ts";
import type { ClientEvent } from "../../lib/protocol/index.ts";
import { silentLogger } from "../../lib/util/log.ts";
import { type ConfigSandbox, createConfigSandbox } from "../support/config_files.ts";
import { type FakeProvider, startFakeProvider, textResponse, toolCallResponse } from "../support/fake_provider.ts";
import { waitFor } from "../support/wait.ts";

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

/** A session whose first turn runs an exec cell that waits for `ms`, then writes `marker`. */
async function sessionRunningCell(
  marker: string,
  ms: number,
): Promise<{ engine: EngineClient; events: ClientEvent[] }> {
  const code = `notify("running"); await new Promise((resolve) => setTimeout(resolve, ${ms})); text(${
    JSON.stringify(marker)
  });`;
  const provider = await startFakeProvider([
    toolCallResponse([{ call_id: `${marker}-1`, name: "exec", arguments: { code } }]),
    textResponse(["done"]),
  ]);
  providers.push(provider);
  const events: ClientEvent[] = [];
  const engine = await openEngine(
    { env: sandbox.env({ OPENAI_API_KEY: "k" }), cwd: sandbox.workspace, baseUrl: provider.url, model: "fake-model" },
    silentLogger,
    { cwd: sandbox.workspace },
    (event) => events.push(event),
  );
  engines.push(engine);
  await engine.send({ type: "turn.start", prompt: "run it" });
  await waitFor(() => events.some((event) => event.type === "tool.progress"), {
    timeoutMs: 20_000,
    what: `${marker}'s cell to run`,
  });
  return { engine, events };
}

it("shutting one session down leaves the other session's cell running to its end", async () => {
  const survivor = await sessionRunningCell("survivor", 1500);
  const closing = await sessionRunningCell("closing", 30_000);
  engines.splice(engines.indexOf(closing.engine), 1);
  await closing.engine.close();

  await waitFor(
    () => survivor.events.some((event) => event.type === "turn.completed" || event.type === "turn.failed"),
    {
      timeoutMs: 20_000,
      what: "the surviving turn to end",
    },
  );
  const completed = survivor.events.find((event) => event.type === "tool.completed" && event.call_id === "survivor-1");
  expect(completed).toMatchObject({ name: "exec", success: true, output: "survivor" });
});
