// Provider set-up warnings go through the server logger (stderr, `scv server warn: …`) and honour SCV_LOG.
import { describe, expect, it } from "vitest";
import { spawnServer } from "../support/server_client.ts";
import { useServerHarness } from "../support/server_harness.ts";

const harness = useServerHarness(async (harness) => {
  await harness.sandbox.writeUserConfig(
    '[provider]\nwire_api = "chat"\nbase_url = "http://127.0.0.1:9/v1"\napi_key = "local"\n\n[web]\nsearch = "provider"\n',
  );
});

const WARNING = 'web.search = "provider" has no effect on the Chat Completions wire: hosted web search is not sent';

describe("provider warnings", () => {
  it("reach stderr through the server logger at the default level", async () => {
    const client = spawnServer({ env: harness.sandbox.env() });
    await client.start({ cwd: harness.sandbox.workspace });
    await client.finish();
    expect(client.stderr).toContain(`scv server warn: ${WARNING}`);
    expect(client.lines.every((line) => !line.includes("hosted web search"))).toBe(true);
  });

  it("are silenced by SCV_LOG=error", async () => {
    const client = spawnServer({ env: harness.sandbox.env({ SCV_LOG: "error" }) });
    await client.start({ cwd: harness.sandbox.workspace });
    await client.finish();
    expect(client.stderr).not.toContain("hosted web search");
  });
});
