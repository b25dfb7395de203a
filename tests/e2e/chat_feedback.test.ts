// Feedback while working in `scv chat` (issue 22), through the real CLI with stdin and stdout as pipes: SIGTERM in
// the middle of a streamed answer, provider retries, and what `/approvals` says about the policy in force.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliHarness } from "../support/cli_harness.ts";
import { sse, textResponse } from "../support/fake_provider.ts";
import { waitFor } from "../support/wait.ts";

const harness = useCliHarness();

describe("scv chat feedback", () => {
  it("SIGTERM mid-stream keeps the text already streamed, says turn cancelled and exits 143", async () => {
    // The answer stops mid-line (no newline yet) and the stream is held open. One delta carries both lines, so once
    // the first is on stdout the unfinished one has arrived too.
    harness.provider.push({
      events: [sse.textDelta("first line\nhalf a sen")],
      mode: "chunked",
      end: "hang",
    });
    const { child, stdout, done } = harness.start(["chat"], { stdin: null });
    child.stdin!.write("a long answer please\n");
    await waitFor(() => stdout().includes("first line"), { timeoutMs: 8000, what: "the streamed text" });
    child.kill("SIGTERM");
    const result = await done;
    expect(result.code).toBe(143);
    const lines = result.stdout.split("\n");
    expect(lines).toContain("half a sen");
    const partial = lines.indexOf("half a sen");
    expect(lines.slice(partial + 1).some((line) => line.includes("turn cancelled"))).toBe(true);
    expect(result.stderr).toBe("");
  });

  it("shows a provider retry as a row when piped, and no spinner", async () => {
    harness.provider.push(
      {
        status: 429,
        reason: "Too Many Requests",
        headers: { "retry-after-ms": "40" },
        body: { error: { message: "slow down", type: "rate_limit_error" } },
      },
      textResponse(["after the retry"]),
    );
    const result = await harness.start(["chat"], { stdin: "hello\n" }).done;
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("  (retrying 1/3 in 0.1 s: HTTP 429)");
    expect(result.stdout.indexOf("retrying 1/3")).toBeLessThan(result.stdout.indexOf("after the retry"));
    // A pipe gets no status line: no spinner frames, no elapsed time, no escape codes.
    expect(result.stdout).not.toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏|]|waiting for the model|\x1b/);
  });

  it("--fake-responses shows the recorded model, not the default or SCV_MODEL; --model still wins", async () => {
    const recorded = join(harness.sandbox.root, "recorded.ndjson");
    await writeFile(
      recorded,
      [
        { type: "response.created", response: { model: "gpt-5.1-codex-2025-11-13" } },
        { type: "response.output_text.delta", delta: "replayed" },
        { type: "response.completed", response: { model: "gpt-5.1-codex-2025-11-13", usage: {} } },
      ].map((event) => JSON.stringify(event)).join("\n"),
    );
    // SCV_MODEL is the user's model for real sessions: the recording's wins over it.
    const offline = { OPENAI_API_KEY: undefined, SCV_BASE_URL: undefined, SCV_MODEL: "env-model" };
    const chat = await harness.start(["chat", "--fake-responses", recorded], { stdin: "hi\n", env: offline }).done;
    expect(chat.code).toBe(0);
    expect(chat.stdout).toContain("session started · model gpt-5.1-codex-2025-11-13");
    expect(chat.stdout).not.toMatch(/gpt-4\.1-mini|env-model/);
    // A JSON script names its model itself; one that names none says it is a replay.
    const named = join(harness.sandbox.root, "named.json");
    await writeFile(named, JSON.stringify({ model: "recorded-model", responses: [[{ type: "response.completed" }]] }));
    const exec = await harness.start(["exec", "--json", "--fake-responses", named, "hi"], { env: offline }).done;
    expect(exec.stdout.split("\n").map((line) => line && JSON.parse(line)).find((e) => e.type === "session.started"))
      .toMatchObject({ model: "recorded-model" });
    const bare = join(harness.sandbox.root, "bare.json");
    await writeFile(bare, JSON.stringify([[{ type: "response.completed" }]]));
    const unnamed = await harness.start(["chat", "--fake-responses", bare], { stdin: "hi\n", env: offline }).done;
    expect(unnamed.stdout).toContain("session started · model replay");
    const flagged = await harness.start(["chat", "--fake-responses", recorded, "--model", "mine"], {
      stdin: "hi\n",
      env: offline,
    }).done;
    expect(flagged.stdout).toContain("session started · model mine");
  });

  it("/approvals says which policy is in force and where it came from", async () => {
    // The note is word-wrapped to the (80-column) width: join its rows again.
    const policyLines = (stdout: string) =>
      [...stdout.replace(/\s+/g, " ").matchAll(/approval policy: \S+ \([^)]*\)/g)].map((match) => match[0]);
    await harness.sandbox.writeUserConfig('[tools]\napproval_policy = "on-risk"\n');
    const user = await harness.start(["chat"], { stdin: "/approvals\n" }).done;
    expect(policyLines(user.stdout)).toEqual([
      `approval policy: on-risk (user file ${join(harness.sandbox.home, "config.toml")})`,
    ]);
    // A project layer may tighten the policy: it is named as the source.
    const project = await harness.sandbox.writeProjectConfig('[tools]\napproval_policy = "always"\n');
    const tightened = await harness.start(["chat"], { stdin: "/approvals\n/approvals never\n/approvals\n" }).done;
    expect(policyLines(tightened.stdout)).toEqual([
      `approval policy: always (project file ${project})`,
      "approval policy: never (set with /approvals in this chat)",
    ]);
    const flagged = await harness.start(["chat", "--approval-policy", "never"], { stdin: "/approvals\n" }).done;
    expect(policyLines(flagged.stdout)).toEqual(["approval policy: never (flag --approval-policy)"]);
  });
});
