// Issue 30 in the standalone binary (its application parts are split by subcommand, `trust` among them): `scv
// trust` records the folder, and then `scv exec` runs the project's PreToolUse hook, whose exit 2 denies the call.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { freshBinary } from "../support/binary.ts";
import { UNDER_DENO } from "../support/cli_command.ts";
import { type ConfigSandbox, createConfigSandbox } from "../support/config_files.ts";
import { type FakeProvider, startFakeProvider, textResponse, toolCallResponse } from "../support/fake_provider.ts";

let binary = "";
let sandbox: ConfigSandbox;
let provider: FakeProvider;

beforeAll(async () => {
  binary = await freshBinary();
}, 300_000);

beforeEach(async () => {
  sandbox = await createConfigSandbox();
  provider = await startFakeProvider();
});

afterEach(async () => {
  await provider.close();
  await sandbox.cleanup();
});

/** Runs the binary in the workspace (asynchronously: the fake provider answers from this process). */
function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env = sandbox.env({
    PATH: "/usr/bin:/bin",
    OPENAI_API_KEY: "test-key",
    SCV_BASE_URL: provider.url,
    SCV_MODEL: "fake-model",
  });
  const child = spawn(binary, args, { cwd: sandbox.workspace, env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, stdout, stderr })));
}

describe.skipIf(UNDER_DENO)("hooks and trust in the compiled binary", () => {
  it("runs a project's hook only after scv trust, and its exit 2 denies the call", async () => {
    const marker = join(sandbox.workspace, "hook-ran");
    await sandbox.writeProjectConfig(
      `[[hooks.PreToolUse]]\ncommand = ${
        JSON.stringify(`cat >/dev/null; touch ${marker}; echo "not here" >&2; exit 2`)
      }\n`,
    );
    const turn = () =>
      provider.push(
        toolCallResponse([{ call_id: "l1", name: "list", arguments: { path: "." } }]),
        textResponse(["done"]),
      );
    turn();
    const before = await run(["exec", "--json", "list"]);
    expect(before.code).toBe(0);
    expect(existsSync(marker)).toBe(false);

    const trust = await run(["trust"]);
    expect(trust.stderr).toBe("");
    expect(trust.code).toBe(0);
    expect(await readFile(join(sandbox.home, "config.toml"), "utf8")).toContain('trust_level = "trusted"');

    turn();
    const after = await run(["exec", "--json", "list"]);
    expect(existsSync(marker)).toBe(true);
    const events = after.stdout.trim().split("\n").map((line) => JSON.parse(line));
    expect(events.find((event) => event.type === "hook.completed")).toMatchObject({
      event: "PreToolUse",
      exit_code: 2,
      decision: "deny",
      reason: "not here",
    });
    expect(JSON.stringify(provider.requests[3]!.body)).toContain("not here");
  });
});
