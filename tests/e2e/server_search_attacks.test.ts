// grep, glob and list tried the way an attacker (or a prompt injection steering the model) would, through the real
// `scv server --stdio` and the fake provider: hard links to a file outside and to `.env`, a symlink out of the
// workspace, a workspace that is `$HOME` with the instance home inside it, a regular expression that backtracks
// without end, and globs and a .gitignore that made the old RegExp translation backtrack. None may print a secret,
// and none may stop the server from answering.
import { linkSync, symlinkSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { freshBinary } from "../support/binary.ts";
import { UNDER_DENO } from "../support/cli_command.ts";
import { writeConfigFile } from "../support/config_files.ts";
import { type FakeResponse, textResponse, toolCallResponse } from "../support/fake_provider.ts";
import { type ServerClient, type ServerEvent, spawnServer } from "../support/server_client.ts";
import { terminal, useServerHarness } from "../support/server_harness.ts";

const harness = useServerHarness();
const ws = (...parts: string[]) => path.join(harness.sandbox.workspace, ...parts);

type Call = { name: string; arguments: unknown };

/** One model reply calling `calls` in order, then a closing text. */
function script(calls: Call[]): FakeResponse[] {
  return [
    toolCallResponse(calls.map((call, index) => ({ call_id: `c${index}`, ...call }))),
    textResponse(["done"]),
  ];
}

/** Runs one turn of read-only calls; every call must complete without asking. Returns their completions. */
async function runCalls(client: ServerClient, count: number): Promise<ServerEvent[]> {
  client.turn("go");
  const completed: ServerEvent[] = [];
  while (completed.length < count) {
    const event = await client.next(["tool.completed", "approval.requested"]);
    expect(event.type).toBe("tool.completed");
    completed.push(event);
  }
  expect((await terminal(client)).type).toBe("turn.completed");
  return completed;
}

const outputLines = (event: ServerEvent) => String(event.output).split("\n");

/** A grep that backtracks without end, then (next turn) an ordinary one. */
const CATASTROPHIC_SCRIPT = (): FakeResponse[] => [
  toolCallResponse([{ call_id: "evil", name: "grep", arguments: { pattern: "^(a+)+$" } }]),
  toolCallResponse([{ call_id: "plain", name: "grep", arguments: { pattern: "a+b$" } }]),
  textResponse(["after"]),
];
/** No deadline can end the search first: only the cancel does. */
const NO_DEADLINE = "[tools]\nsearch_timeout_seconds = 86400\n";

/**
 * Runs CATASTROPHIC_SCRIPT: while the first grep runs, a session.list is answered and turn.cancel ends the turn
 * (shown by the order of events); the next turn's grep then works.
 */
async function cancelWhileSearching(client: ServerClient): Promise<void> {
  await writeFile(ws("evil.txt"), `${"a".repeat(40)}b\n`);
  client.turn("search");
  const turn = await client.next("turn.started");
  const started = await client.next("tool.started");
  expect(started.call_id).toBe("evil");
  client.send({ type: "session.list", request_id: "list" });
  // The listing comes while the search is still running (its completion has not been written).
  const listed = await client.next(["sessions.listed", "tool.completed"]);
  expect(listed.type).toBe("sessions.listed");
  client.send({ type: "turn.cancel", request_id: "cancel", session_id: client.sessionId, turn_id: turn.turn_id });
  expect((await terminal(client)).type).toBe("turn.cancelled");
  // Order of events: the search started, the listing was answered, then the cancel ended the turn; the search
  // itself never finished on its own.
  const order = client.events.map((event) => event.type);
  expect(order.indexOf("tool.started")).toBeLessThan(order.indexOf("sessions.listed"));
  expect(order.indexOf("sessions.listed")).toBeLessThan(order.indexOf("turn.cancelled"));
  expect(order).not.toContain("tool.completed");

  // The next search gets a fresh worker and works.
  client.turn("again", "turn-2");
  const plain = await client.next("tool.completed");
  expect(plain).toMatchObject({ call_id: "plain", success: true, output: `evil.txt:1:${"a".repeat(40)}b` });
  expect((await terminal(client)).type).toBe("turn.completed");
  await client.finish();
}

describe("grep, glob and list never show what read refuses or asks about", () => {
  it("leave out hard links to a file outside and to .env, a symlink out, and secret-like names", async () => {
    const outside = path.join(harness.sandbox.root, "outside-secret.txt");
    await writeFile(outside, "OUTSIDE-TOKEN-7731\n");
    await writeFile(ws(".env"), "ENV-TOKEN-7731\n");
    await writeFile(ws("ok.txt"), "PLAIN-TOKEN-7731\n");
    linkSync(outside, ws("notes.txt"));
    linkSync(ws(".env"), ws("env-copy.txt"));
    symlinkSync(outside, ws("link.txt"));
    await mkdir(ws("sub"));
    linkSync(ws(".env"), ws("sub", "deep.txt"));

    const client = await harness.startServer(
      script([
        { name: "grep", arguments: { pattern: "TOKEN-7731" } },
        { name: "glob", arguments: { pattern: "**/*" } },
        { name: "list", arguments: { depth: 3 } },
      ]),
    );
    const [grep, glob, list] = await runCalls(client, 3);
    expect(grep).toMatchObject({ name: "grep", success: true });
    expect(outputLines(grep!)[0]).toBe("ok.txt:1:PLAIN-TOKEN-7731");
    expect(outputLines(grep!)[1]).toMatch(/^\(4 files not searched: secret-like, hard-linked/);
    expect(outputLines(glob!)).toEqual(["ok.txt", expect.stringMatching(/^\(5 files not listed: secret-like/)]);
    expect(outputLines(list!)).toEqual([
      "ok.txt",
      "sub/",
      expect.stringMatching(/^\(5 entries not listed: secret-like/),
    ]);
    // Nothing of the secrets, nor the names that lead to them, anywhere on the wire.
    const wire = client.lines.join("\n");
    expect(wire).not.toContain("OUTSIDE-TOKEN");
    expect(wire).not.toContain("ENV-TOKEN");
    for (const name of ["notes.txt", "env-copy.txt", "link.txt", "deep.txt", ".env"]) {
      for (const event of [grep, glob, list]) expect(String(event!.output)).not.toContain(name);
    }
    await client.finish();
  });

  it("prune the instance home when the workspace is $HOME: no history, journals or configuration", async () => {
    const home = harness.sandbox.userHome;
    const instance = path.join(home, ".scv");
    await mkdir(path.join(instance, "sessions"), { recursive: true, mode: 0o700 });
    await writeConfigFile(path.join(instance, "chat_history"), "HISTORY-TOKEN-5521\n");
    await writeConfigFile(path.join(instance, "sessions", "other-workspace.ndjson"), '{"text":"JOURNAL-TOKEN-5521"}\n');
    await writeConfigFile(path.join(instance, "config.toml"), "# CONFIG-TOKEN-5521\n");
    await mkdir(path.join(home, "project"));
    await writeFile(path.join(home, "project", "readme.txt"), "PLAIN-TOKEN-5521\n");

    const client = await harness.startServer(
      script([
        { name: "grep", arguments: { pattern: "TOKEN-5521" } },
        { name: "glob", arguments: { pattern: "**/*" } },
        { name: "glob", arguments: { pattern: ".scv/**" } },
        { name: "list", arguments: { depth: 4 } },
      ]),
      { env: { SCV_HOME: undefined, HOME: home }, start: { cwd: home } },
    );
    const [grep, glob, globHome, list] = await runCalls(client, 4);
    expect(outputLines(grep!)[0]).toBe("project/readme.txt:1:PLAIN-TOKEN-5521");
    expect(outputLines(glob!)[0]).toBe("project/readme.txt");
    expect(outputLines(globHome!)[0]).toBe("No files matched.");
    expect(outputLines(list!).slice(0, 2)).toEqual(["project/", "project/readme.txt"]);
    for (const event of [grep, glob, globHome, list]) expect(String(event!.output)).not.toContain(".scv");
    const wire = client.lines.join("\n");
    for (const token of ["HISTORY-TOKEN", "JOURNAL-TOKEN", "CONFIG-TOKEN"]) expect(wire).not.toContain(token);
    await client.finish();
  });
});

describe("a regular expression that backtracks without end", () => {
  it("leaves the server answering: a list request and turn.cancel are served while it runs", async () => {
    const client = await harness.startServer(CATASTROPHIC_SCRIPT(), { toml: NO_DEADLINE });
    await cancelWhileSearching(client);
  });

  it("fails the call with a message that says why when the deadline passes", async () => {
    await writeFile(ws("evil.txt"), `${"a".repeat(40)}b\n`);
    const client = await harness.startServer(script([{ name: "grep", arguments: { pattern: "^(a+)+$" } }]), {
      toml: "[tools]\nsearch_timeout_seconds = 1\n",
    });
    const [completed] = await runCalls(client, 1);
    expect(completed).toMatchObject({ success: false, error: "limit" });
    expect(completed!.output).toContain("grep stopped: /^(a+)+$/ matched for over 1 s without finishing");
    expect(completed!.output).toContain("simplify the pattern");
    await client.finish();
  });
});

describe("globs and .gitignore rules that made the old matcher backtrack", () => {
  it("finish, with the answers the patterns call for", async () => {
    const longName = "a".repeat(200);
    await writeFile(ws(longName), "x\n");
    const deep = ws(...Array.from({ length: 40 }, () => "d"));
    await mkdir(deep, { recursive: true });
    await writeFile(path.join(deep, "y"), "y\n");
    await writeFile(ws(".gitignore"), "*a*a*a*a*a*a*a*a*b\n**/**/**/**/**/**/**/**/x\n");
    const client = await harness.startServer(
      script([
        { name: "glob", arguments: { pattern: "*a*a*a*a*a*a*a*a*b" } },
        { name: "glob", arguments: { pattern: "**/**/**/**/**/**/**/**/x" } },
        { name: "glob", arguments: { pattern: "**/**/**/**/**/**/**/**/y" } },
        { name: "list", arguments: { depth: 1 } },
        { name: "grep", arguments: { pattern: "x", glob: "*a*a*a*a*a*a*a*a*a" } },
      ]),
    );
    const [starA, deepX, deepY, list, grep] = await runCalls(client, 5);
    expect(starA!.output).toBe("No files matched.");
    expect(deepX!.output).toBe("No files matched.");
    expect(deepY!.output).toBe(`${Array.from({ length: 40 }, () => "d").join("/")}/y`);
    expect(outputLines(list!)).toEqual([".gitignore", longName, "d/"]);
    expect(grep!.output).toBe(`${longName}:1:x`);
    await client.finish();
  });
});

// The worker's code is source text made from functions (no worker file can be loaded from the binary): the
// standalone binary must run it too. Node only: the binary is a Node single-executable application.
describe.skipIf(UNDER_DENO)("the compiled binary", () => {
  it("runs grep's worker, and a catastrophic search there is cancelled like from source", async () => {
    const binary = await freshBinary();
    const fake = await harness.startProvider(CATASTROPHIC_SCRIPT());
    await harness.sandbox.writeUserConfig(NO_DEADLINE);
    const client = spawnServer({ command: binary, args: harness.flags(fake.url), env: harness.env() });
    await client.start({ cwd: harness.sandbox.workspace });
    await cancelWhileSearching(client);
  }, 300_000);
});
