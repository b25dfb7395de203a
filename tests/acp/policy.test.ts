// Issue 28 over ACP with the SDK client: the editor's session modes are the engine's approval modes, a switch
// reaches the engine (session.configure), and the editor sees a permission request only when the engine asks.
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PROTOCOL_VERSION } from "@agentclientprotocol/sdk";
import { useCliHarness } from "../support/cli_harness.ts";
import { textResponse, toolCallResponse } from "../support/fake_provider.ts";
import { type AcpRun, type PermissionAnswer, startAcp } from "./acp_client.ts";

const harness = useCliHarness();
let run: AcpRun | undefined;

afterEach(() => {
  if (run) expect(run.violations()).toEqual([]);
  run = undefined;
});

function start(permission?: PermissionAnswer): AcpRun {
  run = startAcp(harness, { permission });
  return run;
}

async function newSession(acp: AcpRun): Promise<string> {
  await acp.connection.agent.request("initialize", { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
  const { sessionId } = await acp.connection.agent.request("session/new", {
    cwd: harness.sandbox.workspace,
    mcpServers: [],
  });
  return sessionId;
}

const prompt = (acp: AcpRun, sessionId: string, text: string) =>
  acp.connection.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });

const select = (optionId: string): PermissionAnswer => () => ({ outcome: { outcome: "selected", optionId } });

describe("scv acp and the engine's policy", () => {
  it("runs a command a rule allows without any permission request", async () => {
    await harness.sandbox.writeUserConfig('[permissions]\nallow = ["bash(touch allowed.txt)"]\n');
    harness.provider.push(
      toolCallResponse([{ call_id: "b1", name: "bash", arguments: { command: "touch allowed.txt" } }]),
      textResponse(["done"]),
    );
    const acp = start(select("reject_once"));
    const sessionId = await newSession(acp);
    expect((await prompt(acp, sessionId, "make it")).stopReason).toBe("end_turn");
    expect(acp.permissions).toEqual([]);
    expect(existsSync(join(harness.sandbox.workspace, "allowed.txt"))).toBe(true);
  });

  it("switches the engine's mode: accept-edits edits unasked and asks for bash; plan refuses", async () => {
    await writeFile(join(harness.sandbox.workspace, "a.txt"), "old\n");
    harness.provider.push(
      toolCallResponse([
        { call_id: "e1", name: "edit", arguments: { path: "a.txt", old_string: "old", new_string: "new" } },
        { call_id: "b1", name: "bash", arguments: { command: "touch b.txt" } },
      ]),
      textResponse(["edited"]),
      toolCallResponse([{ call_id: "w1", name: "write", arguments: { path: "c.txt", content: "x", mode: "create" } }]),
      textResponse(["planned"]),
    );
    const acp = start(select("reject_once"));
    const sessionId = await newSession(acp);
    await acp.connection.agent.request("session/set_mode", { sessionId, modeId: "accept-edits" });
    expect((await prompt(acp, sessionId, "edit")).stopReason).toBe("end_turn");
    expect(await readFile(join(harness.sandbox.workspace, "a.txt"), "utf8")).toBe("new\n");
    expect(acp.permissions.map((request) => request.toolCall.toolCallId)).toEqual(["b1"]);
    expect(existsSync(join(harness.sandbox.workspace, "b.txt"))).toBe(false);

    await acp.connection.agent.request("session/set_mode", { sessionId, modeId: "plan" });
    expect((await prompt(acp, sessionId, "write")).stopReason).toBe("end_turn");
    expect(acp.permissions).toHaveLength(1);
    expect(existsSync(join(harness.sandbox.workspace, "c.txt"))).toBe(false);
    // The plan-mode instructions reached the model with the next turn.
    expect(harness.provider.requests.at(-1)!.rawBody).toContain("Plan mode is on");
  });

  it("offers to keep the engine's rule, and keeping it writes the user file", async () => {
    harness.provider.push(
      toolCallResponse([{ call_id: "b1", name: "bash", arguments: { command: "touch kept.txt" } }]),
      textResponse(["done"]),
    );
    const acp = start(select("allow_always"));
    const sessionId = await newSession(acp);
    expect((await prompt(acp, sessionId, "make it")).stopReason).toBe("end_turn");
    expect(acp.permissions[0]!.options.find((option) => option.kind === "allow_always")!.name).toBe(
      "Always allow: bash(touch kept.txt)",
    );
    expect(await readFile(join(harness.sandbox.home, "config.toml"), "utf8")).toContain(
      'allow = ["bash(touch kept.txt)"]',
    );
  });
});
