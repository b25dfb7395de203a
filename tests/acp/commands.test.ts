// Commands in `scv acp`: scv's own (undo, compact, usage; issue 31) and custom ones (issue 30), advertised with
// `available_commands_update` after session/new, and run when a prompt is `/name arguments`, as an editor sends it.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PROTOCOL_VERSION } from "@agentclientprotocol/sdk";
import { useCliHarness } from "../support/cli_harness.ts";
import { textResponse, toolCallResponse } from "../support/fake_provider.ts";
import { waitFor } from "../support/wait.ts";
import { type AcpRun, startAcp } from "./acp_client.ts";

const harness = useCliHarness();
const BUILTIN_NAMES = ["undo", "compact", "usage"];
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
        ...BUILTIN_NAMES.map((name) => expect.objectContaining({ name })),
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

  it("undoes the last turn's file changes, reports usage and compacts with /undo, /usage and /compact", async () => {
    const file = join(harness.sandbox.workspace, "notes.txt");
    await writeFile(file, "before\n");
    // A custom command named like a built-in is not offered: scv's own wins the clash, as in chat.
    await mkdir(join(harness.sandbox.workspace, ".scv", "commands"), { recursive: true });
    await writeFile(join(harness.sandbox.workspace, ".scv", "commands", "undo.md"), "Never sent.\n");
    harness.provider.push(
      toolCallResponse([{
        call_id: "call_w",
        name: "write",
        arguments: { path: "notes.txt", content: "after\n", mode: "replace" },
      }]),
      textResponse(["written"], { input_tokens: 120, output_tokens: 30 }),
      textResponse(["second"], { input_tokens: 200, output_tokens: 10 }),
      textResponse(["3"]),
      textResponse(["4"]),
      textResponse(["5"]),
      textResponse(["The user asked for notes; they were written."]),
    );
    run = startAcp(harness, { args: ["--approval-policy", "accept-edits"] });
    const acp = run;
    const agent = run.connection.agent;
    await agent.request("initialize", { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
    const { sessionId } = await agent.request("session/new", { cwd: harness.sandbox.workspace, mcpServers: [] });
    await waitFor(() => acp.updates.some((note) => note.update.sessionUpdate === "available_commands_update"));
    const advertised = acp.updates.find((note) => note.update.sessionUpdate === "available_commands_update")!;
    const names = (advertised.update as { availableCommands: { name: string }[] }).availableCommands.map((c) => c.name);
    expect(names).toEqual(BUILTIN_NAMES);

    const said = async (text: string): Promise<string> => {
      const before = acp.updates.length;
      const answer = await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
      expect(answer.stopReason).toBe("end_turn");
      return acp.updates.slice(before).flatMap((note) =>
        note.update.sessionUpdate === "agent_message_chunk" && note.update.content.type === "text"
          ? [note.update.content.text]
          : []
      ).join("");
    };

    expect(await said("write the notes")).toBe("written");
    expect(await readFile(file, "utf8")).toBe("after\n");
    expect(await said("and again")).toBe("second");

    expect(await said("/usage")).toMatch(/^last turn: 200 in \/ 10 out .*\nthis session: 320 in \/ 40 out/);

    // The second turn changed no file; undoing the first puts notes.txt back.
    expect(await said("/undo")).toBe("rewound 1 turn: the code and the conversation\nno file needed restoring");
    expect(await said("/undo")).toBe("rewound 1 turn: the code and the conversation\nrestored 1: notes.txt");
    expect(await readFile(file, "utf8")).toBe("before\n");
    expect(await said("/undo sideways")).toMatch(/^Usage: \/undo/);
    expect(await said("/undo")).toBe("/undo failed: there is no turn to undo");

    for (const [prompt, reply] of [["third", "3"], ["fourth", "4"], ["fifth", "5"]]) {
      expect(await said(prompt!)).toBe(reply);
    }
    const compacted = await said("/compact the notes");
    expect(compacted).toMatch(/^\(conversation compacted: 2 older messages summarised by the model, \d+ → \d+ tokens/);
    expect(compacted).toContain("The user asked for notes; they were written.");
    const summaryRequest = harness.provider.requests.at(-1)!.body;
    expect(summaryRequest.input.at(-1).content).toMatch(/Pay particular attention to: the notes$/);
    // The undone turns are gone from what the model saw: only the turn being summarised.
    expect(summaryRequest.input.slice(0, 2)).toEqual([
      { role: "user", content: "third" },
      { role: "assistant", content: "3" },
    ]);
    // No custom "undo" prompt ever reached the model.
    expect(JSON.stringify(harness.provider.requests.map((request) => request.body))).not.toContain("Never sent.");
  });
});
