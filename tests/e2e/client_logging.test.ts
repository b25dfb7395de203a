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

describe("SCV_LOG", () => {
  it("refuses an unknown level, naming the allowed ones, before doing anything", async () => {
    for (const command of [["exec", "hi"], ["chat"], ["server", "--stdio"], ["acp"], ["config"]]) {
      const result = await harness.start(command, { stdin: "", env: { SCV_LOG: "verbose" } }).done;
      expect(result.code, command.join(" ")).toBe(2);
      expect(result.stderr).toBe(
        `scv ${command[0]}: SCV_LOG="verbose" is not a log level; use one of error, warn, info, debug (default warn)\n`,
      );
      expect(result.stdout).toBe("");
    }
    expect(harness.provider.requests).toHaveLength(0);
    // The levels themselves pass, in any case and with spaces around them.
    harness.provider.push({ events: [{ type: "response.completed", response: {} }] });
    const fine = await harness.start(["exec", "hi"], { env: { SCV_LOG: " DEBUG " } }).done;
    expect(fine.code).toBe(0);
  });
});
