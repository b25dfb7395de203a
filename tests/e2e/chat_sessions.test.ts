// Stored sessions in `scv chat` (plain line mode, through the real CLI): --continue redraws the earlier turns and
// sends them to the provider, --resume without an id offers a numbered list, /fork goes on in a copy and leaves
// the original journal untouched, an unknown id exits 2.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliHarness } from "../support/cli_harness.ts";
import { textResponse } from "../support/fake_provider.ts";

const harness = useCliHarness();

const chat = (args: string[], input: string) => harness.start(["chat", ...args], { stdin: input }).done;
const exec = (args: string[]) => harness.start(["exec", ...args]).done;
const inputOf = (index: number) => JSON.stringify(harness.provider.requests[index]!.body.input);

async function sessionIds(): Promise<string[]> {
  const result = await harness.start(["sessions", "--json"]).done;
  return (JSON.parse(result.stdout) as Array<{ id: string }>).map((session) => session.id);
}

describe("scv chat with stored sessions", () => {
  it("--continue redraws the last session and continues it", async () => {
    harness.provider.push(textResponse(["the earlier \u001b[31manswer"]), textResponse(["the later answer"]));
    expect((await exec(["earlier question"])).code).toBe(0);
    const result = await chat(["--continue"], "later question\n");
    expect(result.code).toBe(0);
    const lines = result.stdout.split("\n");
    expect(result.stdout).toContain("session resumed · model fake-model");
    expect(lines).toContain("› earlier question");
    // The stored answer is redrawn without the control character it carried.
    expect(lines).toContain("the earlier [31manswer");
    expect(result.stdout).not.toContain("\u001b");
    expect(inputOf(1)).toContain("earlier question");
    expect(inputOf(1)).toContain("later question");
    expect(await sessionIds()).toHaveLength(1);
  });

  it("--resume without an id lists sessions newest first and resumes the one picked", async () => {
    harness.provider.push(textResponse(["old answer"]), textResponse(["new answer"]), textResponse(["picked answer"]));
    await exec(["old session prompt"]);
    await exec(["new session prompt"]);
    const result = await chat(["--resume"], "2\nfollow-up\n");
    expect(result.code).toBe(0);
    const out = result.stdout;
    expect(out).toMatch(/ {2}1 {2}new session prompt {2}(just now|\dm ago) · 1 turn\n/);
    expect(out).toMatch(/ {2}2 {2}old session prompt {2}(just now|\dm ago) · 1 turn\n/);
    expect(inputOf(2)).toContain("old session prompt");
    expect(inputOf(2)).not.toContain("new session prompt");
  });

  it("--resume: an empty line answers the picker with a new session", async () => {
    harness.provider.push(textResponse(["stored answer"]), textResponse(["fresh answer"]));
    await exec(["stored prompt"]);
    const result = await chat(["--resume"], "\nfresh prompt\n");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("session started · model fake-model");
    expect(inputOf(1)).toContain("fresh prompt");
    expect(inputOf(1)).not.toContain("stored prompt");
  });

  it("/fork goes on in a copy; the original journal is unchanged", async () => {
    harness.provider.push(textResponse(["first answer"]), textResponse(["fork answer"]));
    const result = await chat([], "first prompt\n/fork\nin the fork\n");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/forked into session [0-9a-f-]{36}/);
    const ids = await sessionIds();
    expect(ids).toHaveLength(2);
    const [fork, original] = ids;
    const originalJournal = readFileSync(join(harness.sandbox.home, "sessions", `${original}.ndjson`), "utf8");
    expect(originalJournal).not.toContain("in the fork");
    expect(readFileSync(join(harness.sandbox.home, "sessions", `${fork}.ndjson`), "utf8")).toContain("in the fork");
    expect(inputOf(1)).toContain("first answer");
  });

  it("--resume with an unknown id exits 2", async () => {
    const result = await chat(["--resume", "00000000-0000-4000-8000-000000000000"], "");
    expect(result.code).toBe(2);
    // The message is wrapped to the terminal width.
    expect((result.stdout + result.stderr).replace(/\s+/g, " ")).toContain(
      "session 00000000-0000-4000-8000-000000000000 was not found",
    );
    expect(harness.provider.requests).toHaveLength(0);
  });
});
