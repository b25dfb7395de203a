// `scv exec` and `scv chat` take the session flags `scv server` takes: --base-url, --config-path, --scv-home,
// -C/--cd and --approval-policy, each proven by where the request goes or what the session reports.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliHarness } from "../support/cli_harness.ts";
import { fakeProfileToml, writeConfigFile } from "../support/config_files.ts";
import { startFakeProvider, textResponse } from "../support/fake_provider.ts";
import type { ServerEvent } from "../support/server_client.ts";

const harness = useCliHarness();

function events(stdout: string): ServerEvent[] {
  return stdout.trim().split("\n").map((line) => JSON.parse(line));
}

describe("client session flags", () => {
  it("--base-url sends the turn to that provider, over SCV_BASE_URL", async () => {
    const other = await startFakeProvider();
    try {
      other.push(textResponse(["from the flag"]));
      const result = await harness.start(["exec", "--base-url", `${other.url}`, "hi"]).done;
      expect(result.stdout).toBe("from the flag\n");
      expect(other.requests).toHaveLength(1);
      expect(harness.provider.requests).toHaveLength(0);
    } finally {
      await other.close();
    }
  });

  it("--config-path and --scv-home choose the files read", async () => {
    const home = join(harness.sandbox.root, "other-home");
    await mkdir(home, { mode: 0o700 });
    await writeConfigFile(join(home, "config.toml"), "[context]\nmax_tokens = 50000\n");
    const explicit = await harness.sandbox.writeExplicitConfig(
      fakeProfileToml({ baseUrl: harness.provider.url, model: "explicit-model" }),
    );
    harness.provider.push(textResponse(["ok"]));
    const result = await harness.start(["exec", "--json", "--scv-home", home, "--config-path", explicit, "hi"], {
      env: { SCV_MODEL: undefined, SCV_BASE_URL: undefined, OPENAI_API_KEY: undefined },
    }).done;
    expect(result.stderr).toBe("");
    const started = events(result.stdout).find((event) => event.type === "session.started")!;
    expect(started).toMatchObject({ model: "explicit-model", context_max_tokens: 50000 });
    expect(harness.provider.requests[0]!.body.model).toBe("explicit-model");
  });

  it("-C runs in another directory; a missing one is a usage error", async () => {
    const elsewhere = join(harness.sandbox.root, "elsewhere");
    await mkdir(elsewhere);
    await writeFile(join(elsewhere, "AGENTS.md"), "marker-7f3a: answer briefly\n");
    harness.provider.push(textResponse(["ok"]));
    const result = await harness.start(["exec", "--json", "-C", elsewhere, "hi"]).done;
    expect(result.code).toBe(0);
    expect(events(result.stdout).find((event) => event.type === "session.started")!.cwd).toBe(elsewhere);
    expect(JSON.stringify(harness.provider.requests[0]!.body.instructions)).toContain("marker-7f3a");
    const missing = await harness.start(["exec", "-C", join(elsewhere, "nope"), "hi"]).done;
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(`scv exec: cannot work in ${join(elsewhere, "nope")}: no such directory\n`);
  });

  it("chat takes --approval-policy and -C too", async () => {
    harness.provider.push(textResponse(["hello"]));
    const elsewhere = join(harness.sandbox.root, "chat-dir");
    await mkdir(elsewhere);
    const result = await harness.start(["chat", "--approval-policy", "always", "-C", elsewhere], { stdin: "hi\n" })
      .done;
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`workspace ${elsewhere}`);
    expect(result.stdout).toContain("approvals always");
  });
});
