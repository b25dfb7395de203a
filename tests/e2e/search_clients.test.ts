// grep's worker thread seen from the clients that share one process: two sessions in one `scv acp` (one server
// thread), where a regular expression that backtracks without end in the first session's grep does not stop the
// second session, and the first is cancelled on request (liveness shown by the order of answers, not by timing);
// and `scv exec`, which must still exit when its turn is over although a worker is kept for the next search.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PROTOCOL_VERSION } from "@agentclientprotocol/sdk";
import { useCliHarness } from "../support/cli_harness.ts";
import { textResponse, toolCallResponse } from "../support/fake_provider.ts";
import { waitFor } from "../support/wait.ts";
import { type AcpRun, startAcp } from "../acp/acp_client.ts";

const harness = useCliHarness();
let run: AcpRun | undefined;

afterEach(() => {
  if (run) expect(run.violations()).toEqual([]);
  run = undefined;
});

describe("a catastrophic grep in one ACP session", () => {
  it("does not stop the other session, and ends on session/cancel", async () => {
    await harness.sandbox.writeUserConfig("[tools]\nsearch_timeout_seconds = 86400\n");
    await writeFile(join(harness.sandbox.workspace, "evil.txt"), `${"a".repeat(40)}b\n`);
    const other = join(harness.sandbox.root, "other");
    await mkdir(other);
    harness.provider.push(
      toolCallResponse([{ call_id: "evil", name: "grep", arguments: { pattern: "^(a+)+$" } }]),
      textResponse(["second session answered"]),
    );
    const acp = (run = startAcp(harness));
    await acp.connection.agent.request("initialize", { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
    const { sessionId: first } = await acp.connection.agent.request("session/new", {
      cwd: harness.sandbox.workspace,
      mcpServers: [],
    });
    const { sessionId: second } = await acp.connection.agent.request("session/new", { cwd: other, mcpServers: [] });

    const answers: string[] = [];
    const searching = acp.connection.agent
      .request("session/prompt", { sessionId: first, prompt: [{ type: "text", text: "search" }] })
      .then((result) => {
        answers.push(`first:${result.stopReason}`);
        return result;
      });
    await waitFor(
      () =>
        acp.updates.find(({ sessionId, update }) =>
          sessionId === first && update.sessionUpdate === "tool_call_update" && update.toolCallId === "evil" &&
          update.status === "in_progress"
        ),
      { what: "the grep to start", timeoutMs: 15_000 },
    );
    const answered = await acp.connection.agent.request("session/prompt", {
      sessionId: second,
      prompt: [{ type: "text", text: "hello" }],
    });
    answers.push(`second:${answered.stopReason}`);
    await acp.connection.agent.notify("session/cancel", { sessionId: first });
    expect((await searching).stopReason).toBe("cancelled");
    expect(answers).toEqual(["second:end_turn", "first:cancelled"]);
    const text = acp.updates
      .filter(({ sessionId, update }) => sessionId === second && update.sessionUpdate === "agent_message_chunk")
      .map(({ update }) => (update as { content: { text: string } }).content.text)
      .join("");
    expect(text).toBe("second session answered");
  });
});

describe("scv exec after a grep", () => {
  it("exits 0 when the turn is over: the worker kept for the next search holds nothing open", async () => {
    await writeFile(join(harness.sandbox.workspace, "a.txt"), "needle\n");
    harness.provider.push(
      toolCallResponse([{ call_id: "g", name: "grep", arguments: { pattern: "ne+dle" } }]),
      textResponse(["found it"]),
    );
    const result = await harness.start(["exec", "--json", "find the needle"]).done;
    expect(result.code).toBe(0);
    const completed = result.stdout.trim().split("\n").map((line) => JSON.parse(line)).find((event) =>
      event.type === "tool.completed"
    );
    expect(completed).toMatchObject({ success: true, output: "a.txt:1:needle" });
  });
});
