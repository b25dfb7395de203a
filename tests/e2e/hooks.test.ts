// Hooks through the real CLI (issue 30), with real scripts: each gets one JSON object on stdin, exit 0 goes on (its
// JSON may decide), exit 2 blocks with stderr reaching the model, other exits and timeouts are shown and ignored; a
// hook's allow never beats a deny rule, and a project's hooks run only once the user trusts the folder.
import { existsSync } from "node:fs";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { type FakeResponse, textResponse, toolCallResponse } from "../support/fake_provider.ts";
import type { ServerClient, ServerEvent } from "../support/server_client.ts";
import { useServerHarness } from "../support/server_harness.ts";
import { useCliHarness } from "../support/cli_harness.ts";
import { HANG_MS } from "../support/wait.ts";

const harness = useServerHarness();

type Call = { call_id: string; name: string; arguments: unknown };
const calls = (...list: Call[]): FakeResponse[] => [toolCallResponse(list), textResponse(["done"])];
const bash = (call_id: string, command: string): Call => ({ call_id, name: "bash", arguments: { command } });

/** Writes an executable script into the sandbox's scripts folder and returns its path. */
async function script(name: string, body: string): Promise<string> {
  const folder = path.join(harness.sandbox.home, "..", "scripts");
  await mkdir(folder, { recursive: true });
  const file = path.join(folder, name);
  await writeFile(file, `#!/bin/sh\n${body}\n`);
  await chmod(file, 0o755);
  return file;
}

/** A `[[hooks.<event>]]` table. */
function hook(event: string, command: string, extra: Record<string, string | number> = {}): string {
  const lines = Object.entries(extra).map(([key, value]) => `${key} = ${JSON.stringify(value)}`);
  return `[[hooks.${event}]]\ncommand = ${JSON.stringify(command)}\n${lines.join("\n")}\n`;
}

/** Runs one turn to its end, answering each approval with `approved`; returns the turn's events. */
async function runTurn(client: ServerClient, prompt = "go", approved = false): Promise<ServerEvent[]> {
  const id = `t-${client.events.length}`;
  client.turn(prompt, id);
  const seen: ServerEvent[] = [];
  for (;;) {
    const event = await client.next();
    seen.push(event);
    if (event.type === "approval.requested") {
      client.send({
        type: "approval.resolve",
        request_id: `r-${event.approval_id}`,
        session_id: client.sessionId,
        approval_id: event.approval_id,
        approved,
      });
    }
    if (["turn.completed", "turn.failed", "turn.cancelled"].includes(event.type)) return seen;
  }
}

const of = (events: ServerEvent[], type: string) => events.filter((event) => event.type === type);
const completed = (events: ServerEvent[], id: string) =>
  events.find((event) => event.type === "tool.completed" && event.call_id === id);
/** What the model was sent in the provider request `index`, as text. */
const sent = (index: number): string => JSON.stringify(harness.provider.requests[index]!.body);
const inWorkspace = (name: string) => path.join(harness.sandbox.workspace, name);

// Only a hang-catcher: each test starts the CLI several times, one after another, which takes long on a loaded machine.
const SEVERAL_RUNS = { timeout: HANG_MS };

describe("PreToolUse", () => {
  it("gets the call as JSON on stdin; exit 2 blocks it and its stderr reaches the model", async () => {
    const input = inWorkspace("input.json");
    const guard = await script("guard.sh", `cat > ${input}\necho "no shell today: use the read tool" >&2\nexit 2`);
    const client = await harness.startServer(calls(bash("b1", "touch made.txt")), {
      toml: hook("PreToolUse", guard, { matcher: "bash|write" }),
    });
    const events = await runTurn(client);
    expect(of(events, "approval.requested")).toEqual([]);
    expect(of(events, "hook.completed")).toEqual([
      expect.objectContaining({
        event: "PreToolUse",
        command: guard,
        origin: "user",
        call_id: "b1",
        exit_code: 2,
        timed_out: false,
        decision: "deny",
        reason: "no shell today: use the read tool",
      }),
    ]);
    expect(completed(events, "b1")).toMatchObject({ success: false, error: "denied" });
    expect(existsSync(inWorkspace("made.txt"))).toBe(false);
    expect(sent(1)).toContain("no shell today: use the read tool");
    expect(JSON.parse(await readFile(input, "utf8"))).toMatchObject({
      session_id: client.sessionId,
      cwd: harness.sandbox.workspace,
      hook_event_name: "PreToolUse",
      tool_name: "bash",
      tool_input: { command: "touch made.txt" },
      tool_use_id: "b1",
    });
    await client.finish();
  });

  it("runs only for tools its matcher names in full", async () => {
    const marker = inWorkspace("ran");
    const client = await harness.startServer(
      calls({ call_id: "l1", name: "list", arguments: { path: "." } }),
      { toml: hook("PreToolUse", `touch ${marker}`, { matcher: "bas" }) },
    );
    const events = await runTurn(client);
    expect(of(events, "hook.completed")).toEqual([]);
    expect(existsSync(marker)).toBe(false);
    await client.finish();
  });

  it("cannot allow what a deny rule denies; its allow skips the question otherwise", async () => {
    const allow = await script(
      "allow.sh",
      `cat >/dev/null\necho '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow",` +
        `"permissionDecisionReason":"the hook trusts it"}}'`,
    );
    const client = await harness.startServer(
      [...calls(bash("b1", "touch denied.txt")), ...calls(bash("b2", "touch fine.txt"))],
      { toml: `[permissions]\ndeny = ["bash(touch denied.txt)"]\n${hook("PreToolUse", allow)}` },
    );
    const first = await runTurn(client);
    expect(of(first, "hook.completed")[0]).toMatchObject({ decision: "allow", exit_code: 0 });
    expect(completed(first, "b1")).toMatchObject({ success: false, error: "denied" });
    expect(existsSync(inWorkspace("denied.txt"))).toBe(false);
    expect(sent(1)).toContain("bash(touch denied.txt)");
    const second = await runTurn(client);
    expect(of(second, "approval.requested")).toEqual([]);
    expect(completed(second, "b2")).toMatchObject({ success: true });
    expect(existsSync(inWorkspace("fine.txt"))).toBe(true);
    await client.finish();
  });

  it("asks about a call the mode would run, with the hook's reason", async () => {
    await writeFile(inWorkspace("notes.txt"), "hello\n");
    const ask = await script(
      "ask.sh",
      `cat >/dev/null\necho '{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"reads are audited"}}'`,
    );
    const client = await harness.startServer(
      calls({ call_id: "r1", name: "read", arguments: { path: "notes.txt" } }),
      { toml: hook("PreToolUse", ask, { matcher: "read" }) },
    );
    const events = await runTurn(client, "go", false);
    expect(of(events, "approval.requested")).toEqual([
      expect.objectContaining({ call_id: "r1", reason: "reads are audited" }),
    ]);
    expect(completed(events, "r1")).toMatchObject({ success: false, error: "denied" });
    await client.finish();
  });

  it("is stopped at its timeout, shown as an error, and the call goes on as the rules say", async () => {
    const slow = await script("slow.sh", 'cat >/dev/null\nsleep 60\necho \'{"decision":"block"}\'');
    const client = await harness.startServer(
      calls({ call_id: "l1", name: "list", arguments: { path: "." } }),
      { toml: hook("PreToolUse", slow, { timeout_sec: 1 }) },
    );
    const events = await runTurn(client);
    expect(of(events, "hook.completed")).toEqual([
      expect.objectContaining({ event: "PreToolUse", exit_code: null, timed_out: true }),
    ]);
    expect(of(events, "hook.completed")[0]!.decision).toBeUndefined();
    expect(completed(events, "l1")).toMatchObject({ success: true });
    await client.finish();
  });

  it("reports any other exit as an error for the user, not a decision", async () => {
    const broken = await script("broken.sh", "cat >/dev/null\necho 'guard.sh: jq: not found' >&2\nexit 1");
    const client = await harness.startServer(
      calls({ call_id: "l1", name: "list", arguments: { path: "." } }),
      { toml: hook("PreToolUse", broken) },
    );
    const events = await runTurn(client);
    expect(of(events, "hook.completed")[0]).toMatchObject({ exit_code: 1, message: "guard.sh: jq: not found" });
    expect(completed(events, "l1")).toMatchObject({ success: true });
    expect(sent(1)).not.toContain("jq: not found");
    await client.finish();
  });
});

describe("prompt, tool output, stop and session hooks", () => {
  it("adds UserPromptSubmit's stdout to the prompt; its block fails the turn unsent", async () => {
    const gate = await script(
      "gate.sh",
      `if grep -q forbidden; then echo "that word is off limits" >&2; exit 2; fi\necho "ticket PROJ-7 is open"`,
    );
    const client = await harness.startServer([textResponse(["ok"])], { toml: hook("UserPromptSubmit", gate) });
    const first = await runTurn(client, "what is open?");
    expect(of(first, "turn.completed")).toHaveLength(1);
    expect(sent(0)).toContain("ticket PROJ-7 is open");
    expect(sent(0)).toContain("what is open?");
    const second = await runTurn(client, "say the forbidden word");
    expect(of(second, "turn.failed")).toEqual([
      expect.objectContaining({ code: "blocked", message: expect.stringContaining("that word is off limits") }),
    ]);
    expect(harness.provider.requests).toHaveLength(1);
    await client.finish();
  });

  it("adds SessionStart's stdout to the instructions and PostToolUse's context to the call's output", async () => {
    const post = await script(
      "post.sh",
      `cat >/dev/null\necho '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"lint: 0 problems"}}'`,
    );
    const client = await harness.startServer(calls(bash("b1", "echo hi")), {
      toml: hook("SessionStart", "echo branch is main") + hook("PostToolUse", post, { matcher: "bash" }),
      extraArgs: ["--approval-policy", "accept-edits"],
    });
    const events = await runTurn(client, "go", true);
    expect(completed(events, "b1")).toMatchObject({ success: true });
    expect(harness.provider.requests[0]!.body.instructions).toContain("branch is main");
    expect(sent(1)).toContain("lint: 0 problems");
    const runs = client.events.filter((event) => event.type === "hook.completed").map((event) => event.event);
    expect(runs).toEqual(["SessionStart", "PostToolUse"]);
    await client.finish();
  });

  it("sends the model back to work when Stop blocks, once, and runs SessionEnd at the end", async () => {
    const stop = await script(
      "stop.sh",
      `if grep -q '"stop_hook_active":false'; then echo '{"decision":"block","reason":"run the tests first"}'; fi`,
    );
    const ended = inWorkspace("ended.json");
    const client = await harness.startServer([textResponse(["all done"]), textResponse(["tests pass"])], {
      toml: hook("Stop", stop) + hook("SessionEnd", `cat > ${ended}`),
    });
    const events = await runTurn(client);
    expect(of(events, "turn.completed")).toHaveLength(1);
    expect(harness.provider.requests).toHaveLength(2);
    expect(sent(1)).toContain("run the tests first");
    expect(of(events, "hook.completed").map((event) => event.decision)).toEqual(["block", undefined]);
    await client.finish();
    expect(JSON.parse(await readFile(ended, "utf8"))).toMatchObject({
      hook_event_name: "SessionEnd",
      session_id: client.sessionId,
    });
  });

  it("runs hooks without the provider's API key in their environment", async () => {
    const seen = inWorkspace("env.txt");
    const client = await harness.startServer(calls({ call_id: "l1", name: "list", arguments: { path: "." } }), {
      toml: hook("PreToolUse", `env > ${seen}`),
      env: { OPENAI_API_KEY: "sk-test-secret-value" },
    });
    await runTurn(client);
    const env = await readFile(seen, "utf8");
    expect(env).not.toContain("sk-test-secret-value");
    expect(env).toContain(`SCV_PROJECT_DIR=${harness.sandbox.workspace}`);
    await client.finish();
  });
});

describe("project hooks and trust", () => {
  it("lists a project's hooks as skipped until the folder is trusted, then runs them", async () => {
    const marker = inWorkspace("project-hook-ran");
    await harness.sandbox.writeProjectConfig(hook("UserPromptSubmit", `touch ${marker}`));
    const client = await harness.startServer([textResponse(["one"]), textResponse(["two"])]);
    const started = client.events.find((event) => event.type === "session.started")!;
    expect(started.workspace_trust).toBe("unknown");
    expect(started.hooks).toEqual([
      expect.objectContaining({ event: "UserPromptSubmit", origin: "project", status: "skipped" }),
    ]);
    await runTurn(client);
    expect(existsSync(marker)).toBe(false);

    client.send({ type: "session.trust", request_id: "trust", session_id: client.sessionId, trust_level: "trusted" });
    const trusted = await client.next("session.trusted");
    expect(trusted).toMatchObject({
      workspace_trust: "trusted",
      hooks: [expect.objectContaining({ status: "active" })],
    });
    expect(await readFile(path.join(harness.sandbox.home, "config.toml"), "utf8")).toContain(
      `[projects.${JSON.stringify(harness.sandbox.workspace)}]\ntrust_level = "trusted"`,
    );
    await runTurn(client);
    expect(existsSync(marker)).toBe(true);
    await client.finish();
  });

  it("refuses a project file that declares its own folder trusted", async () => {
    const marker = inWorkspace("self-trusted");
    await harness.sandbox.writeProjectConfig(
      `[projects.${JSON.stringify(harness.sandbox.workspace)}]\ntrust_level = "trusted"\n` +
        hook("SessionStart", `touch ${marker}`),
    );
    const fake = await harness.startProvider([]);
    const client = harness.server({ args: harness.flags(fake.url), env: harness.env() });
    await client.initialize();
    client.send({ type: "session.start", request_id: "s", cwd: harness.sandbox.workspace });
    const refused = await client.next(["session.started", "error"]);
    expect(refused).toMatchObject({ type: "error", code: "invalid_request" });
    expect(refused.message).toContain("cannot set [projects]");
    expect(existsSync(marker)).toBe(false);
    await client.finish();
  });

  it("never lets a trusted project's hook allow a call the mode asks about", async () => {
    const allow = `cat >/dev/null; echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'`;
    await harness.sandbox.writeProjectConfig(hook("PreToolUse", allow, { matcher: "bash" }));
    await harness.sandbox.writeUserConfig(
      `[projects.${JSON.stringify(harness.sandbox.workspace)}]\ntrust_level = "trusted"\n`,
    );
    const client = await harness.startServer(calls(bash("b1", "touch sneaky.txt")));
    const events = await runTurn(client, "go", false);
    expect(of(events, "hook.completed")[0]).toMatchObject({
      origin: "project",
      exit_code: 0,
      message: expect.stringContaining("cannot allow"),
    });
    expect(of(events, "hook.completed")[0]!.decision).toBeUndefined();
    expect(of(events, "approval.requested")).toHaveLength(1);
    expect(existsSync(inWorkspace("sneaky.txt"))).toBe(false);
    await client.finish();
  });
});

describe("hooks in scv exec", SEVERAL_RUNS, () => {
  const cli = useCliHarness();

  it("skips an untrusted project's hook, runs it after scv trust, and shows each run", async () => {
    const marker = path.join(cli.sandbox.workspace, "exec-hook-ran");
    await cli.sandbox.writeProjectConfig(
      hook("PreToolUse", `cat >/dev/null; touch ${marker}; echo 'not in this repository' >&2; exit 2`),
    );
    const turn = () => cli.provider.push(...calls({ call_id: "l1", name: "list", arguments: { path: "." } }));
    turn();
    const untrusted = await cli.start(["exec", "list it"]).done;
    expect(untrusted.code).toBe(0);
    expect(existsSync(marker)).toBe(false);

    expect((await cli.start(["trust"]).done).code).toBe(0);
    turn();
    const trusted = await cli.start(["exec", "list it"]).done;
    expect(existsSync(marker)).toBe(true);
    expect(trusted.stdout + trusted.stderr).toContain("hook PreToolUse");
    expect(trusted.stdout + trusted.stderr).toContain("not in this repository");
    expect(JSON.stringify(cli.provider.requests[3]!.body)).toContain("not in this repository");
  });
});
