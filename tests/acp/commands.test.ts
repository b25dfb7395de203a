// Custom commands in `scv acp` (issue 30): advertised with `available_commands_update` after session/new, and run
// when a prompt is `/name arguments`, as an editor sends it.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PROTOCOL_VERSION } from "@agentclientprotocol/sdk";
import { useCliHarness } from "../support/cli_harness.ts";
import { textResponse } from "../support/fake_provider.ts";
import { waitFor } from "../support/wait.ts";
import { type AcpRun, startAcp } from "./acp_client.ts";

const harness = useCliHarness();
let run: AcpRun | undefined;

afterEach(() => {
  if (run) expect(run.violations()).toEqual([]);
  run = undefined;
});

describe("scv acp custom commands", () => {
  it("advertises the commands and runs one typed as /name arguments", async () => {
    await mkdir(join(harness.sandbox.home, "commands"), { recursive: true });
    await mkdir(join(harness.sandbox.workspace, ".scv", "commands"), { recursive: true });
    await writeFile(
      join(harness.sandbox.home, "commands", "explain.md"),
      "---\ndescription: Explain code\nargument-hint: <file>\n---\nExplain $1 simply.\n",
    );
    await writeFile(join(harness.sandbox.workspace, ".scv", "commands", "todo.md"), "List the TODOs.\n");
    harness.provider.push(textResponse(["done"]));
    run = startAcp(harness);
    const agent = run.connection.agent;
    await agent.request("initialize", { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
    const { sessionId } = await agent.request("session/new", { cwd: harness.sandbox.workspace, mcpServers: [] });
    const acp = run;
    await waitFor(() => acp.updates.some((note) => note.update.sessionUpdate === "available_commands_update"));
    const advertised = acp.updates.find((note) => note.update.sessionUpdate === "available_commands_update")!;
    expect(advertised.sessionId).toBe(sessionId);
    expect(advertised.update).toEqual({
      sessionUpdate: "available_commands_update",
      availableCommands: [
        { name: "explain", description: "Explain code", input: { hint: "<file>" } },
        { name: "todo", description: "project command" },
      ],
    });
    const answer = await agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "/explain lib/main.ts" }],
    });
    expect(answer.stopReason).toBe("end_turn");
    expect(harness.provider.requests[0]!.body.input[0]).toEqual({
      role: "user",
      content: "Explain lib/main.ts simply.\n",
    });
  });
});
