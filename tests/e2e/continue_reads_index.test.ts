// `scv chat --continue` finds the workspace's latest session from the listing index and opens that one journal only
// (docs/sessions.md), so its start-up does not grow with the number of stored sessions. The proof is structural:
// every other stored session's journal is a named pipe, and opening a pipe for reading blocks until a writer comes,
// so a resume that opened any other journal would hang instead of printing its replay (the generous deadline only
// catches that hang).
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliHarness } from "../support/cli_harness.ts";
import { textResponse } from "../support/fake_provider.ts";

const harness = useCliHarness();
const DECOYS = 200;

/** Index entries for `DECOYS` sessions whose journals are named pipes: half older in this workspace, half newer elsewhere. */
function addPipeSessions(): void {
  const dir = join(harness.sandbox.home, "sessions");
  const lines: string[] = [];
  const pipes: string[] = [];
  for (let i = 0; i < DECOYS; i++) {
    const id = randomUUID();
    const elsewhere = i % 2 === 1;
    const at = new Date(Date.parse(elsewhere ? "2090-01-01T00:00:00Z" : "2001-01-01T00:00:00Z") + i * 1000)
      .toISOString();
    pipes.push(join(dir, `${id}.ndjson`));
    lines.push(
      JSON.stringify({
        id,
        cwd: elsewhere ? join(harness.sandbox.workspace, "..", "elsewhere") : harness.sandbox.workspace,
        created_at: at,
        updated_at: at,
        title: `decoy ${i}`,
        turns: 1,
        model: "fake-model",
      }) + "\n",
    );
  }
  execFileSync("mkfifo", ["-m", "600", ...pipes]);
  appendFileSync(join(dir, "index.ndjson"), lines.join(""));
}

describe.skipIf(process.platform === "win32")("scv chat --continue with many stored sessions", () => {
  it("resumes the workspace's latest session without opening any other journal", async () => {
    harness.provider.push(textResponse(["the stored answer"]), textResponse(["the later answer"]));
    expect((await harness.start(["exec", "the stored question"]).done).code).toBe(0);
    addPipeSessions();
    const result = await harness.start(["chat", "--continue"], { stdin: "later question\n" }).done;
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("session resumed · model fake-model");
    expect(result.stdout.split("\n")).toContain("› the stored question");
    const input = JSON.stringify(harness.provider.requests[1]!.body.input);
    expect(input).toContain("the stored question");
    expect(input).toContain("later question");
  });
});
