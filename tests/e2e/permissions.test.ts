// Issue 28 through the real CLI (`scv server --stdio` and the scripted fake provider): permission rules users keep,
// deny > ask > allow > the mode, rules matched on parsed commands the way an injected model would try to slip past
// them, the workspace file's limits, "always" answers written to the user file, and the plan and accept-edits
// modes.
import { existsSync } from "node:fs";
import { readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { type FakeResponse, textResponse, toolCallResponse } from "../support/fake_provider.ts";
import type { ServerClient, ServerEvent } from "../support/server_client.ts";
import { useServerHarness } from "../support/server_harness.ts";
import { useCliHarness } from "../support/cli_harness.ts";

const harness = useServerHarness();

type Call = { call_id: string; name: string; arguments: unknown };
const calls = (...list: Call[]): FakeResponse[] => [toolCallResponse(list), textResponse(["done"])];
const bash = (call_id: string, command: string): Call => ({ call_id, name: "bash", arguments: { command } });

type Answer = { approved: boolean; remember?: "session" | "always" };

/** Runs one turn to its end, answering each approval with `answer(event)`; returns the turn's events. */
async function runTurn(
  client: ServerClient,
  answer: (event: ServerEvent) => Answer = () => ({ approved: false }),
): Promise<ServerEvent[]> {
  client.turn("go", `t-${Math.random()}`);
  const seen: ServerEvent[] = [];
  for (;;) {
    const event = await client.next();
    seen.push(event);
    if (event.type === "approval.requested") {
      const { approved, remember } = answer(event);
      client.send({
        type: "approval.resolve",
        request_id: `r-${event.approval_id}`,
        session_id: client.sessionId,
        approval_id: event.approval_id,
        approved,
        ...(remember === undefined ? {} : { remember }),
      });
    }
    if (["turn.completed", "turn.failed", "turn.cancelled"].includes(event.type)) return seen;
  }
}

const asked = (events: ServerEvent[]) => events.filter((event) => event.type === "approval.requested");
const completed = (events: ServerEvent[], id: string) =>
  events.find((event) => event.type === "tool.completed" && event.call_id === id);
const inWorkspace = (name: string) => path.join(harness.sandbox.workspace, name);

describe("allow rules and compound commands", () => {
  it("runs an allowed command unasked; a compound command with one part not allowed asks for that part", async () => {
    const client = await harness.startServer(
      [
        ...calls(bash("b1", "touch allowed.txt")),
        ...calls(bash("b2", "touch allowed.txt && touch other.txt")),
      ],
      { toml: '[permissions]\nallow = ["bash(touch allowed.txt)"]\n' },
    );
    const first = await runTurn(client);
    expect(asked(first)).toEqual([]);
    expect(completed(first, "b1")).toMatchObject({ success: true });
    expect(existsSync(inWorkspace("allowed.txt"))).toBe(true);

    const second = await runTurn(client);
    expect(asked(second)).toHaveLength(1);
    expect(asked(second)[0]).toMatchObject({ call_id: "b2", rule: "bash(touch other.txt)" });
    expect(completed(second, "b2")).toMatchObject({ success: false, error: "denied" });
    expect(existsSync(inWorkspace("other.txt"))).toBe(false);
    await client.finish();
  });

  it("never lets a substitution, a redirection or an assignment ride on an allow rule", async () => {
    const client = await harness.startServer(
      calls(
        bash("s1", "echo $(touch pwned1.txt)"),
        bash("s2", "echo `touch pwned2.txt`"),
        bash("s3", "echo hi > pwned3.txt"),
        bash("s4", "BASH_ENV=./evil.sh echo hi"),
      ),
      { toml: '[permissions]\nallow = ["bash(echo:*)"]\n' },
    );
    const events = await runTurn(client);
    expect(asked(events).map((event) => event.call_id)).toEqual(["s1", "s2", "s3", "s4"]);
    // Nothing that can hide a command is offered as a rule to keep.
    expect(asked(events).map((event) => event.rule)).toEqual([undefined, undefined, undefined, undefined]);
    for (const name of ["pwned1.txt", "pwned2.txt", "pwned3.txt"]) expect(existsSync(inWorkspace(name))).toBe(false);
    await client.finish();
  });
});

describe("deny rules", () => {
  it("wins over allow, without asking, and the denial names the rule and its file", async () => {
    await writeFile(inWorkspace("keep.txt"), "precious\n");
    const client = await harness.startServer(
      calls(
        bash("d1", "rm -f keep.txt"),
        bash("d2", "true && sudo -n rm -f keep.txt"),
        bash("d3", "bash -c 'rm -f keep.txt'"),
        bash("ok", "touch fine.txt"),
      ),
      { toml: '[permissions]\nallow = ["bash"]\ndeny = ["bash(rm:*)"]\n' },
    );
    const events = await runTurn(client, () => ({ approved: true }));
    expect(asked(events)).toEqual([]);
    const userFile = path.join(harness.sandbox.home, "config.toml");
    for (const id of ["d1", "d2", "d3"]) {
      const done = completed(events, id)!;
      expect(done).toMatchObject({ success: false, error: "denied" });
      expect(done.output).toContain(`the rule bash(rm:*) in permissions.deny (user file ${userFile}) denies it`);
    }
    expect(await readFile(inWorkspace("keep.txt"), "utf8")).toBe("precious\n");
    expect(completed(events, "ok")).toMatchObject({ success: true });
    await client.finish();
  });

  it("takes deny and ask rules from the workspace file, and reports every rule with its origin", async () => {
    const project = await harness.sandbox.writeProjectConfig('[permissions]\ndeny = ["edit(secrets/**)"]\n');
    const client = await harness.startProvider(
      calls({
        call_id: "w1",
        name: "write",
        arguments: { path: "secrets/token.txt", content: "x", mode: "create" },
      }),
    ).then(async (provider) => {
      await harness.sandbox.writeUserConfig('[permissions]\nallow = ["write"]\n');
      const server = harness.server({ args: harness.flags(provider.url), env: harness.env() });
      const started = await server.start({ cwd: harness.sandbox.workspace });
      expect(started).toMatchObject({
        type: "session.started",
        approval_policy: "on-risk",
        policy: {
          mode: "on-risk",
          mode_origin: "default",
          rules: [
            { list: "allow", rule: "write", origin: `user file ${path.join(harness.sandbox.home, "config.toml")}` },
            { list: "deny", rule: "edit(secrets/**)", origin: `project file ${project}` },
          ],
        },
      });
      return server;
    });
    const events = await runTurn(client, () => ({ approved: true }));
    expect(asked(events)).toEqual([]);
    expect(completed(events, "w1")!.output).toContain(`the rule edit(secrets/**) in permissions.deny (project file`);
    expect(existsSync(inWorkspace("secrets/token.txt"))).toBe(false);
    await client.finish();
  });

  it("keeps a denied folder out of searches of the whole workspace", async () => {
    const { mkdir } = await import("node:fs/promises");
    await mkdir(inWorkspace("private"));
    await writeFile(inWorkspace("private/key.txt"), "token-4f2a in private\n");
    await writeFile(inWorkspace("notes.txt"), "token-4f2a in notes\n");
    const client = await harness.startServer(
      calls(
        { call_id: "g1", name: "grep", arguments: { pattern: "token-4f2a" } },
        { call_id: "l1", name: "list", arguments: {} },
        { call_id: "f1", name: "glob", arguments: { pattern: "**/*.txt" } },
        { call_id: "r1", name: "read", arguments: { path: "private/key.txt" } },
      ),
      { toml: '[permissions]\ndeny = ["read(private)"]\n' },
    );
    const events = await runTurn(client);
    expect(asked(events)).toEqual([]);
    expect(completed(events, "g1")!.output).toContain("notes.txt");
    for (const id of ["g1", "l1", "f1"]) expect(completed(events, id)!.output).not.toContain("private");
    expect(completed(events, "r1")).toMatchObject({ success: false, error: "denied" });
    await client.finish();
  });

  it("refuses a workspace file that tries to allow, naming the file", async () => {
    const project = await harness.sandbox.writeProjectConfig('[permissions]\nallow = ["bash"]\n');
    const provider = await harness.startProvider([]);
    const client = harness.server({ args: harness.flags(provider.url), env: harness.env() });
    await client.initialize();
    client.send({ type: "session.start", request_id: "s", cwd: harness.sandbox.workspace });
    const refused = await client.next(["error"]);
    expect(refused.code).toBe("invalid_request");
    expect(refused.message).toContain(`project configuration ${project} cannot set permissions.allow`);
    await client.finish();
  });

  it("refuses a bad rule, naming the rule and the file", async () => {
    const provider = await harness.startProvider([]);
    const user = await harness.sandbox.writeUserConfig('[permissions]\ndeny = ["bahs(rm:*)"]\n');
    const client = harness.server({ args: harness.flags(provider.url), env: harness.env() });
    await client.initialize();
    client.send({ type: "session.start", request_id: "s", cwd: harness.sandbox.workspace });
    const refused = await client.next(["error"]);
    expect(refused.message).toBe(
      `parse configuration ${user}: permissions.deny rule "bahs(rm:*)": unknown tool bahs; did you mean bash? ` +
        "(MCP tools: mcp__<server>)",
    );
    await client.finish();
  });
});

describe("remembered answers", () => {
  it('"always" adds the rule to the user file, keeping its comments and mode, and a new process honours it', async () => {
    const user = await harness.sandbox.writeUserConfig(
      '# my settings\n[tools]\napproval_policy = "on-risk" # keep asking\n',
    );
    const client = await harness.startServer([
      ...calls(bash("a1", "touch kept.txt")),
      ...calls(bash("a2", "touch kept.txt")),
    ]);
    const first = await runTurn(client, () => ({ approved: true, remember: "always" }));
    expect(asked(first)).toMatchObject([{ call_id: "a1", rule: "bash(touch kept.txt)" }]);
    expect(completed(first, "a1")).toMatchObject({ success: true });
    expect(await readFile(user, "utf8")).toBe(
      '# my settings\n[tools]\napproval_policy = "on-risk" # keep asking\n\n' +
        '[permissions]\nallow = ["bash(touch kept.txt)"]\n',
    );
    expect((await stat(user)).mode & 0o777).toBe(0o600);
    // In force at once, in the same session.
    const second = await runTurn(client);
    expect(asked(second)).toEqual([]);
    await client.finish();

    // A new process reads it from the file.
    const again = await harness.startServer(calls(bash("a3", "touch kept.txt")));
    const third = await runTurn(again);
    expect(asked(third)).toEqual([]);
    expect(completed(third, "a3")).toMatchObject({ success: true });
    await again.finish();
  });

  it('"session" keeps the rule for the session only; "always" creates a missing user file 0600', async () => {
    const user = path.join(harness.sandbox.home, "config.toml");
    const client = await harness.startServer([
      // Not `git init` twice: the second writes into .git, which the command sandbox keeps read-only (and leaving the
      // sandbox always asks, whatever was remembered).
      ...calls(bash("s1", "git stash list")),
      ...calls(bash("s2", "git stash list")),
      ...calls(bash("k1", "touch made.txt")),
    ]);
    const first = await runTurn(client, () => ({ approved: true, remember: "session" }));
    expect(asked(first)).toMatchObject([{ rule: "bash(git stash:*)" }]);
    expect(asked(await runTurn(client))).toEqual([]);
    expect(existsSync(user)).toBe(false);
    await runTurn(client, () => ({ approved: true, remember: "always" }));
    expect(await readFile(user, "utf8")).toBe('[permissions]\nallow = ["bash(touch made.txt)"]\n');
    expect((await stat(user)).mode & 0o777).toBe(0o600);
    await client.finish();
  });
});

describe("modes", () => {
  it("plan refuses a write and a command, saying plan mode is on, runs reads, and tells the model", async () => {
    await writeFile(inWorkspace("notes.txt"), "the plan so far\n");
    const client = await harness.startServer(
      calls(
        { call_id: "r1", name: "read", arguments: { path: "notes.txt" } },
        { call_id: "w1", name: "write", arguments: { path: "new.txt", content: "x", mode: "create" } },
        bash("b1", "touch ran.txt"),
      ),
      { extraArgs: ["--approval-policy", "plan"], toml: '[permissions]\nallow = ["bash(touch ran.txt)"]\n' },
    );
    const events = await runTurn(client, () => ({ approved: true }));
    expect(asked(events)).toEqual([]);
    expect(completed(events, "r1")).toMatchObject({ success: true });
    expect(completed(events, "r1")!.output).toContain("the plan so far");
    for (const id of ["w1", "b1"]) {
      expect(completed(events, id)).toMatchObject({ success: false, error: "denied" });
      expect(completed(events, id)!.output).toContain("plan mode is on");
    }
    expect(existsSync(inWorkspace("new.txt"))).toBe(false);
    expect(existsSync(inWorkspace("ran.txt"))).toBe(false);
    expect(harness.provider.requests[0]!.rawBody).toContain("Plan mode is on: you are planning");
    await client.finish();
  });

  it("accept-edits runs an edit unasked and asks for bash; session.configure switches modes", async () => {
    await writeFile(inWorkspace("a.txt"), "old text\n");
    const client = await harness.startServer([
      ...calls(
        { call_id: "e1", name: "edit", arguments: { path: "a.txt", old_string: "old", new_string: "new" } },
        bash("b1", "touch b.txt"),
      ),
      ...calls({ call_id: "e2", name: "edit", arguments: { path: "a.txt", old_string: "new", new_string: "newer" } }),
    ]);
    client.send({
      type: "session.configure",
      request_id: "c",
      session_id: client.sessionId,
      approval_policy: "accept-edits",
    });
    const configured = await client.next(["session.configured"]);
    expect(configured).toMatchObject({
      approval_policy: "accept-edits",
      policy: { mode: "accept-edits", mode_origin: "session.configure" },
    });
    const events = await runTurn(client);
    expect(completed(events, "e1")).toMatchObject({ success: true });
    expect(await readFile(inWorkspace("a.txt"), "utf8")).toBe("new text\n");
    expect(asked(events).map((event) => event.call_id)).toEqual(["b1"]);
    client.send({ type: "session.configure", request_id: "c2", session_id: client.sessionId, approval_policy: "plan" });
    await client.next(["session.configured"]);
    const planned = await runTurn(client);
    expect(completed(planned, "e2")!.output).toContain("plan mode is on");
    expect(await readFile(inWorkspace("a.txt"), "utf8")).toBe("new text\n");
    client.send({ type: "session.configure", request_id: "c3", session_id: client.sessionId, approval_policy: "yolo" });
    expect((await client.next(["error"])).message).toContain('unknown approval_policy "yolo"');
    await client.finish();
  });
});

describe("scv exec", () => {
  const cli = useCliHarness();

  it("runs what a rule allows without --yes, and denies what would ask", async () => {
    await cli.sandbox.writeUserConfig('[permissions]\nallow = ["bash(touch allowed.txt)"]\n');
    cli.provider.push(
      toolCallResponse([
        { call_id: "b1", name: "bash", arguments: { command: "touch allowed.txt" } },
        { call_id: "b2", name: "bash", arguments: { command: "touch other.txt" } },
      ]),
      textResponse(["done"]),
    );
    const result = await cli.start(["exec", "make them"]).done;
    expect(result.code).toBe(0);
    expect(existsSync(path.join(cli.sandbox.workspace, "allowed.txt"))).toBe(true);
    expect(existsSync(path.join(cli.sandbox.workspace, "other.txt"))).toBe(false);
    // Only the call no rule allows reached exec as a question (which it cannot ask, so denies).
    const questions = result.stderr.split("\n").filter((line) => line.startsWith("denied (no --yes"));
    expect(questions).toHaveLength(1);
    expect(questions[0]).toContain("touch other.txt");
  });
});
