// Persistent sessions through the real CLI: `scv exec --continue` / `--resume ID` carry the earlier history to the
// provider, `--continue` picks the right workspace, `scv sessions [--all] [--json]` lists from the index and
// `scv sessions delete ID` removes one; an unknown id is exit 2 and touches nothing.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, realpath } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliHarness } from "../support/cli_harness.ts";
import { textResponse } from "../support/fake_provider.ts";

const harness = useCliHarness();

const run = (args: string[], cwd?: string) => harness.start(args, cwd === undefined ? {} : { cwd }).done;
const inputOf = (index: number) => JSON.stringify(harness.provider.requests[index]!.body.input);

type Listed = { id: string; cwd: string; title: string; turns: number; updated_at: string };

async function listJson(args: string[] = [], cwd?: string): Promise<Listed[]> {
  const result = await run(["sessions", "--json", ...args], cwd);
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout);
}

describe("scv exec with stored sessions", () => {
  it("--continue resumes this workspace's latest session, not another workspace's", async () => {
    const other = join(harness.sandbox.workspace, "..", "elsewhere");
    await mkdir(other);
    harness.provider.push(
      textResponse(["alpha answer"]),
      textResponse(["other answer"]),
      textResponse(["beta answer"]),
    );
    expect((await run(["exec", "alpha question"])).code).toBe(0);
    expect((await run(["exec", "other question"], other)).code).toBe(0);
    // The other workspace's session is the newest overall; --continue here must still pick this workspace's.
    const result = await run(["exec", "--continue", "beta question"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("beta answer\n");
    const input = inputOf(2);
    expect(input).toContain("alpha question");
    expect(input).toContain("alpha answer");
    expect(input).not.toContain("other question");

    const here = await listJson();
    expect(here).toHaveLength(1);
    expect(here[0]).toMatchObject({ cwd: harness.sandbox.workspace, title: "alpha question", turns: 2 });
    const all = await listJson(["--all"]);
    expect(all.map((session) => session.cwd)).toEqual([harness.sandbox.workspace, await realpath(other)]);
  });

  it("--resume ID continues that session; an unknown id exits 2 without calling the provider", async () => {
    harness.provider.push(textResponse(["one"]), textResponse(["two"]), textResponse(["three"]));
    await run(["exec", "first session"]);
    await run(["exec", "second session"]);
    const [newest, oldest] = await listJson();
    expect(newest!.title).toBe("second session");
    const result = await run(["exec", "--resume", oldest!.id, "follow-up"]);
    expect(result.code).toBe(0);
    expect(inputOf(2)).toContain("first session");
    expect(inputOf(2)).not.toContain("second session");

    for (const id of ["00000000-0000-4000-8000-000000000000", "../config"]) {
      const missing = await run(["exec", "--resume", id, "hello"]);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toBe(`scv exec: session ${id} was not found\n`);
    }
    expect(harness.provider.requests).toHaveLength(3);
  });

  it("--continue with no earlier session in this workspace exits 2", async () => {
    const result = await run(["exec", "--continue", "hello"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe("scv exec: no earlier session in this workspace to continue\n");
    expect(harness.provider.requests).toHaveLength(0);
  });
});

describe("scv sessions", () => {
  it("lists id, updated, turns and title newest first, and deletes a session", async () => {
    harness.provider.push(textResponse(["a"]), textResponse(["b"]));
    await run(["exec", "a first prompt that is long enough to be cut: " + "x".repeat(200)]);
    await run(["exec", "second\nprompt"]);
    const text = await run(["sessions"]);
    expect(text.code).toBe(0);
    const lines = text.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^ID\s+UPDATED\s+TURNS\s+COST\s+TITLE$/);
    // The provider counted no tokens: no cost either (never $0).
    expect(lines[1]).toMatch(/^[0-9a-f-]{36} {2}\d{4}-\d\d-\d\d \d\d:\d\d {6}1 {9}- {2}second prompt$/);
    const [second, first] = await listJson();
    expect(Array.from(first!.title as string).length).toBeLessThanOrEqual(80);
    expect(first!.title).toMatch(/^a first prompt that is long enough to be cut: x+…$/);

    const deleted = await run(["sessions", "delete", second!.id]);
    expect(deleted).toMatchObject({ code: 0, stderr: "" });
    expect((await listJson()).map((session) => session.id)).toEqual([first!.id]);
    expect(existsSync(join(harness.sandbox.home, "sessions", `${second!.id}.ndjson`))).toBe(false);

    const again = await run(["sessions", "delete", second!.id]);
    expect(again.code).toBe(2);
    expect(again.stderr).toBe(`scv sessions: session ${second!.id} was not found\n`);
    const escape = await run(["sessions", "delete", "../config.toml"]);
    expect(escape.code).toBe(2);
    expect(readdirSync(join(harness.sandbox.home, "sessions")).sort()).toEqual([`${first!.id}.ndjson`, "index.ndjson"]);
  });

  it("shows what a priced session cost in the table and in --json, and ? for an unknown price", async () => {
    harness.provider.push(textResponse(["unpriced"], { input_tokens: 10, output_tokens: 1 }));
    expect((await run(["exec", "an unpriced prompt"])).code).toBe(0);
    // gpt-5: $1.25 input, $10 output per million tokens: 2000 in and 100 out cost $0.0035.
    harness.provider.push(textResponse(["priced"], { input_tokens: 2000, output_tokens: 100 }));
    expect((await run(["exec", "--model", "gpt-5", "a priced prompt"])).code).toBe(0);
    const lines = (await run(["sessions"])).stdout.trim().split("\n");
    expect(lines[1]).toMatch(/ {5}1 {3}\$0\.0035 {2}a priced prompt$/);
    // fake-model has no price: its cost is unknown, never $0.
    expect(lines[2]).toMatch(/ {5}1 {9}\? {2}an unpriced prompt$/);
    expect((await listJson())[0]).toMatchObject({
      usage: { input_tokens: 2000, output_tokens: 100 },
      cost_usd: 0.0035,
    });
  });

  it("keeps the test key out of every stored file", async () => {
    harness.provider.push(textResponse(["noted"]));
    await run(["exec", "my key is test-key, keep it"]);
    const dir = join(harness.sandbox.home, "sessions");
    for (const name of readdirSync(dir)) expect(readFileSync(join(dir, name), "utf8")).not.toContain("test-key");
  });
});
