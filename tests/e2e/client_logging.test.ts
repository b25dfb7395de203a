// chat and exec log through the same logger as the server, under their own names: a provider set-up warning
// reads `scv chat warn: …` / `scv exec warn: …`, not `scv server warn: …`.
import { describe, expect, it } from "vitest";
import { useCliHarness } from "../support/cli_harness.ts";

const harness = useCliHarness();
const WARNING = 'web.search = "provider" has no effect on the Chat Completions wire: hosted web search is not sent';

async function withChatWire(): Promise<void> {
  await harness.sandbox.writeUserConfig(
    '[provider]\nwire_api = "chat"\napi_key = "local"\n\n[web]\nsearch = "provider"\n',
  );
}

describe("client log prefixes", () => {
  it("scv exec names itself", async () => {
    await withChatWire();
    const result = await harness.start(["exec", "hi"]).done;
    expect(result.stderr).toContain(`scv exec warn: ${WARNING}`);
    expect(result.stderr).not.toContain("scv server warn:");
  });

  it("scv chat names itself (its log is on with SCV_LOG)", async () => {
    await withChatWire();
    const result = await harness.start(["chat"], { stdin: "/exit\n", env: { SCV_LOG: "warn" } }).done;
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`scv chat warn: ${WARNING}`);
    expect(result.stderr).not.toContain("scv server warn:");
  });
});
