// The session controller over the real in-process engine and the fake SSE provider: turn state, approval
// questions left to the user and answered through it, and cancellation withdrawing them.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type PendingApproval, SessionController } from "../../lib/client/controller.ts";
import type { ClientEvent } from "../../lib/protocol/index.ts";
import { silentLogger } from "../../lib/util/log.ts";
import { type ConfigSandbox, createConfigSandbox } from "../support/config_files.ts";
import { type FakeProvider, startFakeProvider, textResponse, toolCallResponse } from "../support/fake_provider.ts";
import { waitFor } from "../support/wait.ts";

let sandbox: ConfigSandbox;
let provider: FakeProvider;
const controllers: SessionController[] = [];

beforeEach(async () => {
  sandbox = await createConfigSandbox();
  provider = await startFakeProvider();
});

afterEach(async () => {
  for (const controller of controllers.splice(0)) await controller.close();
  await provider.close();
  await sandbox.cleanup();
});

async function until(check: () => boolean, what: string): Promise<void> {
  await waitFor(check, { what });
}

async function startController(onApproval?: (approval: PendingApproval) => boolean | undefined) {
  const events: ClientEvent[] = [];
  const asked: PendingApproval[] = [];
  const controller = new SessionController({
    onEvent: (event) => events.push(event),
    ...(onApproval ? { onApproval } : {}),
    onAsk: (approval) => asked.push(approval),
  });
  controllers.push(controller);
  const options = {
    env: sandbox.env({ OPENAI_API_KEY: "k" }),
    cwd: sandbox.workspace,
    baseUrl: provider.url,
    model: "fake-model",
  };
  const started = await controller.start(options, silentLogger, { cwd: sandbox.workspace });
  return { controller, events, asked, started };
}

describe("SessionController", () => {
  it("leaves a question to the user, carries the call's arguments, and ends the turn once answered", async () => {
    provider.push(
      toolCallResponse([{ call_id: "c1", name: "bash", arguments: { command: "echo asked; true" } }]),
      textResponse(["done"]),
    );
    const { controller, events, asked, started } = await startController();
    expect(started.model).toBe("fake-model");
    expect(controller.state).toBe("idle");
    await controller.submit("run it");
    expect(controller.busy).toBe(true);
    await until(() => asked.length === 1, "the approval question");
    expect(asked[0]).toMatchObject({
      callId: "c1",
      name: "bash",
      args: { command: "echo asked; true" },
      risk: "process",
    });
    expect(controller.state).toBe("approval");
    expect(controller.asking).toBe(asked[0]);

    expect(controller.answer(true)).toBe(asked[0]);
    expect(controller.asking).toBeUndefined();
    await controller.turnEnded();
    expect(controller.state).toBe("idle");
    const completed = events.find((event) => event.type === "tool.completed");
    expect(completed).toMatchObject({ success: true });
    expect(events.at(-1)?.type).toBe("turn.completed");
  });

  it("answers at once what onApproval decides, and a denial reaches the tool as denied", async () => {
    provider.push(
      toolCallResponse([{ call_id: "c1", name: "bash", arguments: { command: "echo no; true" } }]),
      textResponse(["ok"]),
    );
    const { controller, events, asked } = await startController(() => false);
    await controller.submit("run it");
    await until(() => events.some((event) => event.type === "turn.completed"), "the turn to end");
    expect(asked).toEqual([]);
    expect(events.find((event) => event.type === "tool.completed")).toMatchObject({ success: false, error: "denied" });
  });

  it("cancel withdraws the question and the turn ends cancelled", async () => {
    provider.push(toolCallResponse([{ call_id: "c1", name: "bash", arguments: { command: "echo never; true" } }]));
    const { controller, events, asked } = await startController();
    await controller.submit("run it");
    await until(() => asked.length === 1, "the approval question");
    expect(controller.cancel()).toBe(true);
    expect(controller.asking).toBeUndefined();
    expect(controller.state).toBe("cancelling");
    await controller.turnEnded();
    expect(events.at(-1)?.type).toBe("turn.cancelled");
    expect(controller.state).toBe("idle");
    expect(controller.cancel()).toBe(false);
  });
});
