// `scv chat` in plain line mode (stdout and stdin are pipes) and the offline demo, through the real CLI.
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliHarness } from "../support/cli_harness.ts";
import { sse, textResponse, toolCallResponse } from "../support/fake_provider.ts";
import { HANG_MS, waitFor, within } from "../support/wait.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const ESC = "\x1b";

const harness = useCliHarness();

function chat(args: string[], input: string, env: Record<string, string | undefined> = {}, cwd?: string) {
  return harness.start(["chat", ...args], { stdin: input, env, cwd }).done;
}

describe("scv chat in plain line mode", () => {
  it("runs each stdin line as a turn and renders Markdown without escape codes", async () => {
    harness.provider.push(
      textResponse(["# Plan\n", "- use `npm test`\n", "- see [docs](https://d.example)"], {
        input_tokens: 4,
        output_tokens: 2,
      }),
    );
    const result = await chat([], "first prompt\n");
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain(ESC);
    const lines = result.stdout.split("\n");
    expect(lines).toContain("› first prompt");
    expect(lines).toContain("Plan");
    expect(lines).toContain("  • use `npm test`");
    expect(lines).toContain("  • see docs (https://d.example)");
    expect(lines).toContain("  · done in 1 step · tokens 4 in / 2 out");
    expect(result.stdout).toContain("session started · model fake-model");
  });

  it("answers each slash command; unknown ones say so", async () => {
    harness.provider.push(textResponse(["one"], { input_tokens: 2, output_tokens: 1 }));
    const result = await chat(
      [],
      [
        "hello",
        "/usage",
        "/help",
        "/nope",
        "/model",
        "/clear",
        "/approvals",
        "/approvals sometimes",
        "/exit",
        "never sent",
      ].join("\n") + "\n",
    );
    expect(result.code).toBe(0);
    const out = result.stdout;
    expect(out).toContain("last turn: 2 in / 1 out");
    expect(out).toContain("this session: 2 in / 1 out");
    expect(out).toContain("/model [name]");
    expect(out).toContain("unknown command /nope · /help lists the commands");
    expect(out).toContain("model: fake-model");
    expect(out).toContain("(conversation cleared)");
    expect(out).toContain("approval policy: on-risk (default)");
    // Wrapped at the terminal width: compare it as one line.
    expect(out.replace(/\s+/g, " ")).toContain(
      'unknown approval policy "sometimes"; use on-risk, accept-edits, auto, plan, always or never',
    );
    expect(out).not.toContain("never sent");
    expect(harness.provider.requests).toHaveLength(1);
  });

  it("/mcp lists the MCP servers with their state and tools", async () => {
    const everything = join(ROOT, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    await harness.sandbox.writeUserConfig(
      // Until the hang deadline to start (the default 10 s can pass on a busy machine).
      `[mcp_servers.everything]\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${
        JSON.stringify(everything)
      }]\nstartup_timeout_sec = ${HANG_MS / 1000}\n` +
        '[mcp_servers.missing]\ncommand = "/nonexistent/mcp-nope"\n',
    );
    harness.provider.push(textResponse(["one"]));
    const result = await chat([], "hello\n/mcp\n/exit\n");
    expect(result.code).toBe(0);
    const out = result.stdout;
    expect(out).toContain("everything (stdio): ready");
    expect(out).toMatch(/ {2}\d+ tools: .*\becho\b/);
    expect(out).toMatch(/missing \(stdio\): failed \(.*ENOENT/);
    expect(out).toContain("MCP server missing failed:");
  });

  it("/model and /approvals change the running session's settings", async () => {
    harness.provider.push(
      toolCallResponse([{ call_id: "c1", name: "bash", arguments: { command: "echo hi; true" } }]),
      textResponse(["done"]),
    );
    const result = await chat([], "/model other-model\n/approvals never\nrun it\n");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("switched to model other-model; the conversation continues");
    expect(result.stdout).toContain("switched to approvals never; the conversation continues");
    expect(result.stdout.match(/session started/g)).toHaveLength(1);
    expect(harness.provider.requests[0]!.body.model).toBe("other-model");
    // Under `never` the bash call is denied without a question.
    expect(result.stdout).not.toContain("Approve bash");
    expect(result.stdout).toContain("✗ denied: tool call denied by policy or user");
  });

  it("asks approvals on stdin: a approves and the engine keeps the rule for the session, n denies", async () => {
    const call = (id: string) =>
      toolCallResponse([{ call_id: id, name: "bash", arguments: { command: "echo  same; true" } }]);
    harness.provider.push(
      call("c1"),
      textResponse(["first"]),
      call("c2"),
      textResponse(["second"]),
      toolCallResponse([{ call_id: "c3", name: "bash", arguments: { command: "echo other; false" } }]),
      textResponse(["third"]),
    );
    const result = await chat([], "one\na\ntwo\nthree\nn\n");
    expect(result.code).toBe(0);
    const out = result.stdout;
    expect(out).toContain("? Approve bash (process risk)");
    expect(out).toContain("Allow? [y]es / [n]o / [a]lways for this session / [k]eep for good:");
    // `echo` is read-only: "always" keeps the rule for the other part, and the engine runs the second call unasked.
    expect(out).toContain("approved (always for this session: bash(true))");
    expect(out.match(/Approve bash/g)).toHaveLength(2);
    expect(out.match(/✓ same/g)).toHaveLength(2);
    expect(out).toContain("denied");
    expect(out).toContain("✗ denied: tool call denied by policy or user");
  });

  it("'always' on a bash call allows the rule the engine names, and says so; other commands still ask", async () => {
    const call = (id: string, command: string) =>
      toolCallResponse([{ call_id: id, name: "bash", arguments: { command } }]);
    await writeFile(join(harness.sandbox.workspace, "one.txt"), "keep\n");
    harness.provider.push(
      call("c1", "git init -q a"),
      textResponse(["first"]),
      call("c2", "git init -q b"),
      textResponse(["second"]),
      call("c3", "git init -q c; rm one.txt"),
      textResponse(["third"]),
    );
    const result = await chat([], "one\na\ntwo\nthree\nn\n");
    expect(result.code).toBe(0);
    const out = result.stdout;
    expect(out).toContain("always / keep allow: bash(git init:*)");
    expect(out).toContain("Allow? [y]es / [n]o / [a]lways for this session / [k]eep for good:");
    expect(out).toContain("approved (always for this session: bash(git init:*))");
    expect(existsSync(join(harness.sandbox.workspace, "b", ".git"))).toBe(true);
    // `git init -q c; rm one.txt` has a part no rule allows: it asks, is denied, and nothing is removed.
    expect(out.match(/Allow\? \[y\]es/g)).toHaveLength(2);
    expect(existsSync(join(harness.sandbox.workspace, "one.txt"))).toBe(true);
    expect(existsSync(join(harness.sandbox.workspace, "c"))).toBe(false);
  });

  it("persists prompt history in $SCV_HOME/chat_history", async () => {
    harness.provider.push(textResponse(["x"]));
    await chat([], "remember me\n/usage\n");
    const history = await readFile(join(harness.sandbox.home, "chat_history"), "utf8");
    expect(history).toBe('"remember me"\n"/usage"\n');
  });

  it("--fake-responses replays a recorded script with no credential and says when it runs out", async () => {
    const script = join(harness.sandbox.root, "script.ndjson");
    await writeFile(
      script,
      [{ type: "response.output_text.delta", delta: "# Replayed\n`ok`" }, { type: "response.completed", response: {} }]
        .map((e) => JSON.stringify(e)).join("\n"),
    );
    const result = await chat(["--fake-responses", script], "first\nsecond\n", {
      OPENAI_API_KEY: undefined,
      SCV_BASE_URL: undefined,
    });
    expect(result.code).toBe(0);
    const lines = result.stdout.split("\n");
    expect(lines).toContain("Replayed");
    expect(lines).toContain("`ok`");
    expect(result.stdout.replace(/\n\s*/g, " ")).toContain(
      "✗ turn failed (provider_error): provider returned HTTP 400 Bad Request: replay script has no response left (it holds 1)",
    );
    expect(harness.provider.requests).toHaveLength(0);
  });

  it("leaves cleanly on SIGTERM (143) and SIGHUP (129) during a running turn", async () => {
    for (const [signal, code] of [["SIGTERM", 143], ["SIGHUP", 129]] as const) {
      harness.provider.push({ events: [sse.textDelta("thinking\n")], mode: "chunked", end: "hang" });
      const { child, stdout } = harness.start(["chat"], { stdin: null });
      child.stdin!.write("long turn\n");
      await waitFor(() => stdout().includes("thinking"), { what: "the streamed text" });
      child.kill(signal);
      // The provider holds the stream open: only the signal can end chat.
      const exit = await within(
        new Promise<number | null>((resolve) => child.once("exit", resolve)),
        `chat to exit on ${signal}`,
      );
      expect(exit).toBe(code);
    }
  });

  it("reports a session that cannot start and exits 1", async () => {
    const result = await chat([], "hi\n", { OPENAI_API_KEY: undefined });
    expect(result.code).toBe(1);
    // One line says what failed and what to do (the engine's refusal), not a second copy of it.
    expect(result.stdout.match(/provider credential is not configured/g)).toHaveLength(1);
    expect(result.stdout).toContain("error (invalid_request): provider credential is not configured");
    expect(result.stdout.replace(/\s+/g, " ")).toContain("set OPENAI_API_KEY, or configure a provider in");
  });
});

describe("the offline demo", () => {
  it("plays examples/demo in line mode with no key or network, exits 0 and leaves the checkout alone", async () => {
    const result = await chat(["--demo"], "", {
      OPENAI_API_KEY: undefined,
      SCV_BASE_URL: undefined,
      HOME: harness.sandbox.userHome,
    }, ROOT);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const out = result.stdout;
    expect(out).not.toContain(ESC);
    expect(out).toContain("offline demo (recorded responses, no network)");
    expect(out).toContain("› What is this project? Read the README.");
    expect(out).toContain("⏺ read README.md");
    expect(out).toContain("  ┌─ js");
    expect(out).toContain("? Approve bash (process risk)");
    expect(out).toContain("[demo] approved automatically");
    expect(out).toContain("ok 3 - README present");
    expect(out).toContain("[demo] finished");
    // This build has the exec tool: the code cell runs and its nested calls sit under the cell.
    expect(out).toContain("⏺ exec 252 bytes of JavaScript");
    expect(out).toContain("\n    ⏺ read README.md\n");
    // The cell's nested `echo` is on the read-only list: it runs under on-risk without a question.
    expect(out).toContain("checked from a cell");
    expect(out.match(/\[demo\] approved automatically/g)).toHaveLength(1);
    expect(out).toContain("README.md: 6 lines");
    expect(out).not.toContain("This build has no `exec` code-mode tool yet");
    expect(harness.provider.requests).toHaveLength(0);
    const workspace = /workspace (\S+)/.exec(out)![1]!;
    expect(workspace.startsWith(ROOT)).toBe(false);
    expect(existsSync(workspace)).toBe(false);
    expect(existsSync(join(ROOT, "examples", "demo", "workspace", ".scv"))).toBe(false);
  });
});
