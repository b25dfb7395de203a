// The in-process engine client: real serveStdio over PassThrough streams, real provider code against the fake
// SSE provider on 127.0.0.1.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EngineClient, EngineError, openEngine } from "../../lib/embed/engine.ts";
import type { ClientEvent } from "../../lib/protocol/index.ts";
import { silentLogger } from "../../lib/util/log.ts";
import { type ConfigSandbox, createConfigSandbox } from "../support/config_files.ts";
import { type FakeProvider, startFakeProvider, textResponse } from "../support/fake_provider.ts";
import { settle } from "../support/wait.ts";

let sandbox: ConfigSandbox;
let provider: FakeProvider;
const engines: EngineClient[] = [];

beforeEach(async () => {
  sandbox = await createConfigSandbox();
  provider = await startFakeProvider();
});

afterEach(async () => {
  for (const engine of engines.splice(0)) await engine.close();
  await provider.close();
  await sandbox.cleanup();
});

function options() {
  return {
    env: sandbox.env({ OPENAI_API_KEY: "k" }),
    cwd: sandbox.workspace,
    baseUrl: provider.url,
    model: "fake-model",
  };
}

describe("engine client", () => {
  it("performs the handshake and carries a turn's events with their request and session ids", async () => {
    provider.push(textResponse(["hi ", "there"], { input_tokens: 2, output_tokens: 1 }));
    const events: ClientEvent[] = [];
    const engine = await openEngine(options(), silentLogger, { cwd: sandbox.workspace }, (event) => events.push(event));
    engines.push(engine);
    expect(engine.session).toMatchObject({ type: "session.started", model: "fake-model", cwd: sandbox.workspace });
    const done = engine.waitFor((event) => event.type === "turn.completed");
    const id = await engine.send({ type: "turn.start", prompt: "hello" });
    const completed = await done;
    expect(completed.request_id).toBe(id);
    expect(completed.session_id).toBe(engine.sessionId);
    expect(events.map((event) => event.type)).toEqual([
      "initialized",
      "session.started",
      "queue.snapshot",
      "turn.started",
      "assistant.delta",
      "assistant.delta",
      "assistant.completed",
      "turn.completed",
    ]);
    const result = await engines.pop()!.close();
    expect(result).toEqual({ exitCode: 0, reason: "eof" });
  });

  it("rejects with the engine's error message when the session cannot start", async () => {
    const attempt = openEngine(options(), silentLogger, { cwd: "does-not-exist" }, () => {});
    await expect(attempt).rejects.toBeInstanceOf(EngineError);
    await expect(attempt).rejects.toThrow(/^resolve cwd does-not-exist/);
  });

  it("refuses send after close with a clear error, and drops notify quietly (no unhandled rejection)", async () => {
    const engine = new EngineClient(options(), silentLogger);
    await engine.close();
    await expect(engine.send({ type: "turn.cancel", turn_id: "t1" })).rejects.toThrow(
      "cannot send turn.cancel: the engine connection is closed",
    );
    engine.notify({ type: "turn.cancel", turn_id: "t1" });
    // An unhandled rejection would surface here and fail the run.
    await settle();
  });

  it("reports engine.closed when the engine ends the connection on its own (fatal version_mismatch)", async () => {
    const engine = new EngineClient(options(), silentLogger);
    engines.push(engine);
    const events: ClientEvent[] = [];
    const closed = new Promise<void>((resolve) =>
      engine.subscribe((event) => {
        events.push(event);
        if (event.type === "engine.closed") resolve();
      })
    );
    await engine.send({ type: "initialize", protocol_version: 999, client: { name: "test", version: "0" } });
    await closed;
    expect(events.map((event) => [event.type, "code" in event ? event.code : undefined])).toEqual([
      ["error", "version_mismatch"],
      ["engine.closed", undefined],
    ]);
    expect(engine.closed).toBe(true);
    await expect(engine.waitFor(() => true)).rejects.toThrow("the engine connection closed");
    expect(await engines.pop()!.close()).toEqual({ exitCode: 1, reason: "version_mismatch" });
  });
});
