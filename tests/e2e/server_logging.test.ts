// Provider set-up warnings go through the server logger (stderr, `scv server warn: …`) and honour SCV_LOG.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createConfigSandbox, type ConfigSandbox } from "../support/config_files.ts";
import { killAllServers, spawnServer } from "../support/server_client.ts";

let sandbox: ConfigSandbox;

beforeEach(async () => {
  sandbox = await createConfigSandbox();
  await sandbox.writeUserConfig('[provider]\nwire_api = "chat"\nbase_url = "http://127.0.0.1:9/v1"\napi_key = "local"\n\n[web]\nsearch = "provider"\n');
});

afterEach(async () => {
  killAllServers();
  await sandbox.cleanup();
});

const WARNING = 'web.search = "provider" has no effect on the Chat Completions wire: hosted web search is not sent';

describe("provider warnings", () => {
  it("reach stderr through the server logger at the default level", async () => {
    const client = spawnServer({ env: sandbox.env() });
    await client.start({ cwd: sandbox.workspace });
    await client.finish();
    expect(client.stderr).toContain(`scv server warn: ${WARNING}`);
    expect(client.lines.every((line) => !line.includes("hosted web search"))).toBe(true);
  });

  it("are silenced by SCV_LOG=error", async () => {
    const client = spawnServer({ env: sandbox.env({ SCV_LOG: "error" }) });
    await client.start({ cwd: sandbox.workspace });
    await client.finish();
    expect(client.stderr).not.toContain("hosted web search");
  });
});
