// `scv exec` through the real CLI against the fake SSE provider: text and --json output, approvals, exit codes
// 0/1/2/3/130 and prompts read from stdin.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliHarness } from "../support/cli_harness.ts";
import { sse, textResponse, toolCallResponse } from "../support/fake_provider.ts";
import type { ServerEvent } from "../support/server_client.ts";
import { waitFor } from "../support/wait.ts";

const harness = useCliHarness();

function start(args: string[], options: { stdin?: string; env?: Record<string, string | undefined> } = {}) {
  return harness.start(["exec", ...args], options);
}

const run = (args: string[], options?: Parameters<typeof start>[1]) => start(args, options).done;

function events(stdout: string): ServerEvent[] {
  return stdout.trim().split("\n").map((line) => JSON.parse(line));
}

describe("scv exec", () => {
  it("prints the streamed assistant text and exits 0", async () => {
    harness.provider.push(textResponse(["hello ", "from ", "fake"], { input_tokens: 3, output_tokens: 2 }));
    const result = await run(["say hello"]);
    expect(result.stderr).toBe("");
    expect(result.stdout).toBe("hello from fake\n");
    expect(result.code).toBe(0);
    expect(harness.provider.requests[0]!.requestLine).toBe("POST /v1/responses HTTP/1.1");
    expect(harness.provider.requests[0]!.body.input).toEqual([{ role: "user", content: "say hello" }]);
  });

  it("--json prints every protocol event as NDJSON with gapless seq", async () => {
    harness.provider.push(textResponse(["a", "b"], { input_tokens: 1, output_tokens: 1 }));
    const result = await run(["--json", "go"]);
    expect(result.code).toBe(0);
    const list = events(result.stdout);
    expect(list.map((event) => event.type)).toEqual([
      "initialized",
      "session.started",
      "queue.snapshot",
      "turn.started",
      "assistant.delta",
      "assistant.delta",
      "assistant.completed",
      "turn.completed",
    ]);
    const seqs = list.filter((event) => "seq" in event).map((event) => event.seq);
    expect(seqs).toEqual([1, 2, 3, 4, 5, 6]);
    expect(list.at(-1)!.usage).toEqual({ input_tokens: 1, output_tokens: 1 });
  });

  it("exits 1 on a failed turn and says why on stderr", async () => {
    harness.provider.push({ events: [sse.error("model is not available")] });
    const result = await run(["go"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      "scv exec: turn failed (provider_error): provider stream error: model is not available",
    );
    expect(result.stdout).toBe("");
  });

  it("a workspace .scv/config.toml that sets [provider] fails naming the file and where to set it", async () => {
    const file = await harness.sandbox.writeProjectConfig('[provider]\nmodel = "from-the-repo"\n');
    const result = await run(["go"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `project configuration ${file} cannot set [provider]: the provider is chosen only in the user file`,
    );
    expect(harness.provider.requests).toHaveLength(0);
  });

  it("exits 1 when the session cannot start (no credential)", async () => {
    const result = await run(["go"], { env: { OPENAI_API_KEY: undefined } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("provider credential is not configured");
    // Printed once, not once per layer that saw it.
    expect(result.stderr.match(/provider credential is not configured/g)).toHaveLength(1);
    expect(harness.provider.requests).toHaveLength(0);
    // --json: the refusal is the last event on stdout, and stderr stays empty.
    const json = await run(["--json", "go"], { env: { OPENAI_API_KEY: undefined } });
    expect(json.code).toBe(1);
    expect(json.stderr).toBe("");
    expect(events(json.stdout).at(-1)).toMatchObject({
      type: "error",
      code: "invalid_request",
      message: expect.stringContaining("provider credential is not configured"),
    });
  });

  it("reads the prompt from stdin with -, and refuses an empty one with exit 2", async () => {
    harness.provider.push(textResponse(["ok"]));
    const result = await run(["-"], { stdin: "line one\nline two\n" });
    expect(result.code).toBe(0);
    expect(harness.provider.requests[0]!.body.input[0]).toEqual({ role: "user", content: "line one\nline two" });
    const empty = await run(["-"], { stdin: "  \n" });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain("scv exec: the prompt is empty");
  });

  it("denies approvals without --yes and approves them with it", async () => {
    const call = [{ call_id: "call_1", name: "bash", arguments: { command: "echo ran-it; true" } }];
    harness.provider.push(toolCallResponse(call), textResponse(["after"]));
    // Changed (issue 27 item 6): a turn whose every change was denied exits 3, and says so in text mode.
    const denied = await run(["--json", "run"]);
    expect(denied.code).toBe(3);
    expect(denied.stderr).toBe("");
    const completed = events(denied.stdout).find((event) => event.type === "tool.completed")!;
    expect(completed).toMatchObject({ success: false, error: "denied", output: "tool call denied by policy or user" });
    harness.provider.push(toolCallResponse(call), textResponse(["after"]));
    const deniedText = await run(["run"]);
    expect(deniedText.code).toBe(3);
    expect(deniedText.stdout).toBe("after\n");
    expect(deniedText.stderr).toContain(
      "scv exec: every change was denied (the 1 tool call that needed approval); --yes allows them (not under " +
        "--approval-policy never)\n",
    );
    expect(deniedText.stderr).toContain(
      "denied (no --yes; scv exec cannot ask): bash (process risk): Run with /bin/bash -c: echo ran-it; true",
    );
    expect(deniedText.stderr).not.toContain("✓ ran-it");

    harness.provider.push(toolCallResponse(call), textResponse(["after"]));
    const approved = await run(["--yes", "run"]);
    expect(approved.code).toBe(0);
    expect(approved.stdout).toBe("after\n");
    expect(approved.stderr).toContain(
      "approved (--yes): bash (process risk): Run with /bin/bash -c: echo ran-it; true",
    );
    expect(approved.stderr).toContain("✓ ran-it");
  });

  it("--help documents exit code 3 beside 0, 1, 2 and 130", async () => {
    const help = await run(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout.replace(/\s+/g, " ")).toContain(
      "Exit codes: 0 the turn completed, 1 it failed, 2 usage (also an unknown session id), 3 the turn completed but " +
        "every change it tried was denied (no --yes, or --approval-policy never), 130 interrupted.",
    );
  });

  it("exits 0 when the change was allowed (--yes) and when nothing needed approval", async () => {
    const calls = [
      { call_id: "w1", name: "write", arguments: { path: "a.txt", content: "a", mode: "create" } },
      { call_id: "r1", name: "read", arguments: { path: "a.txt" } },
    ];
    harness.provider.push(toolCallResponse(calls), textResponse(["done"]));
    const allowed = await run(["--yes", "go"]);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.stderr).not.toContain("every change was denied");
    harness.provider.push(
      toolCallResponse([{ call_id: "r2", name: "read", arguments: { path: "a.txt" } }]),
      textResponse(["read it"]),
    );
    expect((await run(["go"])).code).toBe(0);
  });

  it("passes --approval-policy to the session: never denies without asking", async () => {
    harness.provider.push(
      toolCallResponse([{ call_id: "c", name: "bash", arguments: { command: "true" } }]),
      textResponse(["x"]),
    );
    const result = await run(["--json", "--yes", "--approval-policy", "never", "go"]);
    expect(result.code).toBe(3);
    const list = events(result.stdout);
    expect(list.some((event) => event.type === "approval.requested")).toBe(false);
    expect(list.find((event) => event.type === "tool.completed")!.error).toBe("denied");
  });

  it("cancels the turn on SIGINT and exits 130", async () => {
    harness.provider.push({ events: [sse.textDelta("partial")], mode: "chunked", end: "hang" });
    const process = start(["--json", "wait"]);
    await waitFor(() => process.stdout().includes("assistant.delta"), { timeoutMs: 10_000, what: "the first delta" });
    process.child.kill("SIGINT");
    const result = await process.done;
    expect(result.code).toBe(130);
    expect(events(result.stdout).at(-1)!.type).toBe("turn.cancelled");
  });

  it("cancels the turn on SIGTERM and exits 143 (text mode says so on stderr)", async () => {
    harness.provider.push({ events: [sse.textDelta("partial")], mode: "chunked", end: "hang" });
    const json = start(["--json", "wait"]);
    await waitFor(() => json.stdout().includes("assistant.delta"), { timeoutMs: 10_000, what: "the first delta" });
    json.child.kill("SIGTERM");
    const result = await json.done;
    expect(result.code).toBe(143);
    expect(events(result.stdout).at(-1)!.type).toBe("turn.cancelled");

    harness.provider.push({ events: [sse.textDelta("partial text")], mode: "chunked", end: "hang" });
    const text = start(["wait"]);
    await waitFor(() => text.stdout().includes("partial text"), { timeoutMs: 10_000, what: "the partial text" });
    text.child.kill("SIGTERM");
    const plain = await text.done;
    expect(plain.code).toBe(143);
    expect(plain.stdout).toBe("partial text\n");
    expect(plain.stderr).toContain("scv exec: turn cancelled");
  });

  it("--fake-responses FILE replays a JSON script with a tool call, over any configured credential", async () => {
    const script = join(harness.sandbox.root, "script.json");
    const call = [
      {
        type: "response.function_call_arguments.delta",
        output_index: 0,
        delta: JSON.stringify({ command: "echo replayed-tool" }),
      },
      {
        type: "response.output_item.done",
        output_index: 0,
        item: { type: "function_call", call_id: "c1", name: "bash" },
      },
      sse.completed(),
    ];
    await writeFile(
      script,
      JSON.stringify({
        responses: [call, [sse.textDelta("tool said hi"), sse.completed({ input_tokens: 2, output_tokens: 1 })]],
      }),
    );
    await harness.sandbox.writeUserConfig('[provider]\napi_key = "sk-user-secret"\nwire_api = "chat"\n');
    const result = await run(["--yes", "--fake-responses", script, "hi"], {
      env: { OPENAI_API_KEY: undefined, SCV_BASE_URL: undefined },
    });
    expect(result.stdout).toBe("tool said hi\n");
    expect(result.stderr).toContain("✓ replayed-tool");
    expect(result.code).toBe(0);
    expect(harness.provider.requests).toHaveLength(0);
    const missing = await run(["--fake-responses", join(harness.sandbox.root, "missing.json"), "hi"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("scv exec: read replay script");
  });

  it("replays a recorded script from SCV_FAKE_RESPONSES without any credential", async () => {
    const script = join(harness.sandbox.root, "script.ndjson");
    await writeFile(
      script,
      [sse.textDelta("from "), sse.textDelta("replay"), sse.completed()].map((event) => JSON.stringify(event)).join(
        "\n",
      ),
    );
    const result = await run(["hi"], {
      env: { OPENAI_API_KEY: undefined, SCV_BASE_URL: undefined, SCV_FAKE_RESPONSES: script },
    });
    expect(result.stderr).toBe("");
    expect(result.stdout).toBe("from replay\n");
    expect(result.code).toBe(0);
    expect(harness.provider.requests).toHaveLength(0);
  });
});
