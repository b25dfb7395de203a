// The ACP setup as README.md and docs/acp.md print it, used as written: the Zed settings snippet starts an agent
// that serves a whole turn, and the hand-typed initialize prints exactly what the page shows.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { cliCommand, cliEnv } from "../support/cli_command.ts";
import { useCliHarness } from "../support/cli_harness.ts";
import { textResponse } from "../support/fake_provider.ts";
import { startAcp } from "./acp_client.ts";
import { HANG_MS } from "../support/wait.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const README = readFileSync(join(ROOT, "README.md"), "utf8");
const PAGE = readFileSync(join(ROOT, "docs/acp.md"), "utf8");

/** The fenced block that follows `marker` in `doc`. */
function block(doc: string, marker: string): string {
  const start = doc.indexOf(marker);
  if (start === -1) throw new Error(`the page has no ${marker}`);
  const match = /```[a-z]*\n([\s\S]*?)```/.exec(doc.slice(start + marker.length));
  if (match === null) throw new Error(`no code block after ${marker}`);
  return match[1]!;
}

const harness = useCliHarness();

describe("the ACP docs", () => {
  it("README's Zed settings start an agent that answers a prompt; docs/acp.md shows the same", async () => {
    const snippet = block(README, "### `scv acp`");
    expect(block(PAGE, "Zed, in `settings.json`")).toBe(snippet);
    const settings = JSON.parse(snippet) as {
      agent_servers: Record<string, { command: string; args: string[]; env: object }>;
    };
    const scv = settings.agent_servers.scv!;
    expect(scv.command).toBe("scv");
    expect(scv.args[0]).toBe("acp");
    harness.provider.push(textResponse(["from zed"]));
    const acp = startAcp(harness, { args: scv.args.slice(1), env: scv.env as Record<string, string> });
    await acp.connection.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    const { sessionId } = await acp.connection.agent.request("session/new", {
      cwd: harness.sandbox.workspace,
      mcpServers: [],
    });
    const response = await acp.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "hi" }],
    });
    expect(response.stopReason).toBe("end_turn");
    expect(acp.violations()).toEqual([]);
  });

  it("docs/acp.md's initialize by hand prints what the page shows", () => {
    const command = block(PAGE, "A first message by hand:").trim();
    const input = /^echo '(.*)' \| scv acp$/.exec(command);
    expect(input).not.toBeNull();
    const { command: runtime, args } = cliCommand(["acp"]);
    const run = spawnSync(runtime, args, {
      input: `${input![1]}\n`,
      env: cliEnv(harness.sandbox.env()),
      encoding: "utf8",
      timeout: HANG_MS,
    });
    expect(run.status).toBe(0);
    const version = (text: string) => text.replace(/"version":"[^"]*"/, '"version":"V"').trim();
    expect(version(run.stdout)).toBe(version(block(PAGE, "prints")));
    expect(run.stderr).toBe("");
  });
});
