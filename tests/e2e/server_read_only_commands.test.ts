// Issue 26 items 1, 2 and 5 through the real CLI (`scv server --stdio` and the scripted fake provider), tried the
// way a prompt-injected model would: each reproduction is a `bash` (or `read`) call that ran unasked under
// `on-risk` before, and must now ask (or, under `never`, be denied) without running; genuinely read-only
// commands still run unasked. `date` is replaced by a shim on PATH that only leaves a mark, so a reproduction
// that slips through (as on the old code) cannot set the clock of the machine running the tests.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, link, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { type FakeResponse, textResponse, toolCallResponse } from "../support/fake_provider.ts";
import type { ServerClient, ServerEvent } from "../support/server_client.ts";
import { resolveApproval, useServerHarness } from "../support/server_harness.ts";
import { writeConfigFile } from "../support/config_files.ts";

const harness = useServerHarness();

type Call = { call_id: string; name: string; arguments: unknown };

const REPRODUCTIONS: readonly string[] = [
  // item 1: options that run a command, write a file or set the clock, spelled as getopt_long accepts them
  "sed -n --e='1e touch RAN-sed-e' p notes.txt",
  "sed -nf p notes.txt",
  "sort --o=build.sh notes.txt",
  "sed -n --i 1p notes.txt",
  "date --s=2001-01-01",
  "date --se 2001-01-01",
  "date 010100002001",
  "sort --comp=sh notes.txt",
  // item 2: recursion, link following and git's path syntax reach secrets
  "grep -r SECRET .",
  "grep -R SECRET .",
  "grep --directories=rec SECRET .",
  "find -L . -name config",
  "du -L .",
  "ls -R",
  "rg SECRET",
  "git show :.env",
  "git show HEAD:.env",
  "git log -p HEAD~1..HEAD:.env",
  // item 5: secret-like names that were read unasked
  "cat .envrc",
  "cat prod.tfvars",
  "cat .vault-token",
  "tail .bash_history",
];

const READ_ONLY: ReadonlyArray<[string, (output: string) => void]> = [
  ["git status", (output) => expect(output).toContain("On branch")],
  ["ls -la src", (output) => expect(output).toContain("main.ts")],
  ["sed -n 1,5p file", (output) => expect(output).toBe("1\n2\n3\n4\n5\n")],
  ["grep -n foo file.ts", (output) => expect(output).toBe("2:const foo = 1;\n")],
];

/** A workspace that is a git repository with a staged and a committed secret, and files worth stealing. */
async function prepareWorkspace(): Promise<{ workspace: string; shims: string }> {
  const workspace = harness.sandbox.workspace;
  const write = (name: string, text: string) => writeFile(path.join(workspace, name), text);
  await mkdir(path.join(workspace, "src"));
  await write("src/main.ts", "export {};\n");
  await write("notes.txt", "b\na\n");
  await write("file", "1\n2\n3\n4\n5\n6\n");
  await write("file.ts", "// demo\nconst foo = 1;\n");
  await write(".env", "SECRET=committed\n");
  await write(".envrc", "export SECRET=direnv\n");
  await write("prod.tfvars", 'db_password = "SECRET"\n');
  await write(".vault-token", "SECRET-token\n");
  await write(".bash_history", "mysql -pSECRET\n");
  const git = (...args: string[]) => execFileSync("git", args, { cwd: workspace, stdio: "ignore" });
  git("init", "-q");
  git("-c", "user.email=t@example.invalid", "-c", "user.name=t", "commit", "-q", "--allow-empty", "-m", "one");
  git("add", ".env");
  git("-c", "user.email=t@example.invalid", "-c", "user.name=t", "commit", "-q", "-m", "two");
  const shims = path.join(harness.sandbox.root, "shims");
  await mkdir(shims);
  await writeFile(path.join(shims, "date"), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${shims}/date.ran'\n`);
  await chmod(path.join(shims, "date"), 0o755);
  return { workspace, shims };
}

/** Runs one turn to its end, answering every approval with `approved`; returns the turn's events. */
async function runTurn(client: ServerClient, approved: boolean): Promise<ServerEvent[]> {
  client.turn("go", "t");
  const seen: ServerEvent[] = [];
  for (;;) {
    const event = await client.next(undefined, 30_000);
    seen.push(event);
    if (event.type === "approval.requested") resolveApproval(client, event.approval_id, approved);
    if (["turn.completed", "turn.failed", "turn.cancelled"].includes(event.type)) return seen;
  }
}

const byCall = (events: ServerEvent[], type: string) =>
  new Map(events.filter((event) => event.type === type).map((event) => [event.call_id as string, event]));

const bashCalls = (commands: readonly string[], prefix: string): Call[] =>
  commands.map((command, index) => ({ call_id: `${prefix}${index}`, name: "bash", arguments: { command } }));

const script = (calls: Call[]): FakeResponse[] => [toolCallResponse(calls), textResponse(["done"])];

async function expectNothingRan(workspace: string, shims: string): Promise<void> {
  expect(existsSync(path.join(shims, "date.ran")), "date ran").toBe(false);
  expect(existsSync(path.join(workspace, "RAN-sed-e")), "sed's e command ran").toBe(false);
  expect(existsSync(path.join(workspace, "build.sh")), "sort wrote build.sh").toBe(false);
  expect(await readFile(path.join(workspace, "notes.txt"), "utf8")).toBe("b\na\n");
}

describe("issue 26: read-only commands that were not (items 1, 2 and 5)", () => {
  it("asks under on-risk before each reproduction, and a denial runs none of them", async () => {
    const { workspace, shims } = await prepareWorkspace();
    const calls = [
      ...bashCalls(REPRODUCTIONS, "r"),
      { call_id: "read-envrc", name: "read", arguments: { path: ".envrc" } },
      { call_id: "read-tfstate", name: "read", arguments: { path: "terraform.tfstate" } },
    ];
    await writeFile(path.join(workspace, "terraform.tfstate"), '{"password": "SECRET"}\n');
    const client = await harness.startServer(script(calls), {
      extraArgs: ["--approval-policy", "on-risk"],
      env: { PATH: `${shims}:${process.env.PATH}` },
    });
    const events = await runTurn(client, false);
    await client.finish();
    const asked = byCall(events, "approval.requested");
    const completed = byCall(events, "tool.completed");
    for (const [index, command] of REPRODUCTIONS.entries()) {
      expect(asked.get(`r${index}`), command).toMatchObject({ name: "bash", risk: "process" });
      expect(completed.get(`r${index}`), command).toMatchObject({ success: false, error: "denied" });
    }
    for (const id of ["read-envrc", "read-tfstate"]) {
      expect(asked.get(id), id).toMatchObject({ name: "read", risk: "filesystem" });
      expect(completed.get(id), id).toMatchObject({ success: false, error: "denied" });
    }
    expect(JSON.stringify(events)).not.toContain("SECRET=");
    // The question says why, and points a search at the built-in tools.
    expect(asked.get(`r${REPRODUCTIONS.indexOf("grep -r SECRET .")}`)!.reason).toMatch(
      /^the approval policy on-risk asks about process calls: this command uses grep -r, .*use the built-in grep/,
    );
    await expectNothingRan(workspace, shims);
  });

  it("denies them under never without asking", async () => {
    const { workspace, shims } = await prepareWorkspace();
    const client = await harness.startServer(script(bashCalls(REPRODUCTIONS, "r")), {
      extraArgs: ["--approval-policy", "never"],
      env: { PATH: `${shims}:${process.env.PATH}` },
    });
    const events = await runTurn(client, true);
    await client.finish();
    expect(events.filter((event) => event.type === "approval.requested")).toEqual([]);
    const completed = byCall(events, "tool.completed");
    for (const [index, command] of REPRODUCTIONS.entries()) {
      expect(completed.get(`r${index}`), command).toMatchObject({ success: false, error: "denied" });
    }
    await expectNothingRan(workspace, shims);
  });

  it("still runs genuinely read-only commands unasked", async () => {
    await prepareWorkspace();
    const client = await harness.startServer(script(bashCalls(READ_ONLY.map(([command]) => command), "ok")), {
      extraArgs: ["--approval-policy", "on-risk"],
    });
    const events = await runTurn(client, false);
    await client.finish();
    expect(events.filter((event) => event.type === "approval.requested")).toEqual([]);
    const completed = byCall(events, "tool.completed");
    for (const [index, [command, check]] of READ_ONLY.entries()) {
      const done = completed.get(`ok${index}`);
      expect(done, command).toMatchObject({ success: true });
      const result = JSON.parse(done!.output);
      expect(result.exit_code, command).toBe(0);
      check(result.output);
    }
  });

  it("asks before a read-only command names scv's own files or a hard link, as `read` does", async () => {
    // The workspace is $HOME, so the instance home (~/.scv) lies inside it; and a second name of .env.
    const home = harness.sandbox.userHome;
    const instance = path.join(home, ".scv");
    await mkdir(instance, { recursive: true, mode: 0o700 });
    await writeConfigFile(path.join(instance, "chat_history"), "HISTORY-TOKEN-7731\n");
    await writeConfigFile(path.join(instance, "config.toml"), "# CONFIG-TOKEN-7731\n");
    await writeFile(path.join(home, ".env"), "ENV-TOKEN-7731\n");
    await link(path.join(home, ".env"), path.join(home, "notes.txt"));
    await writeFile(path.join(home, "plain.txt"), "plain\n");
    const commands = ["cat .scv/chat_history", "head -n 1 .scv/config.toml", "cat notes.txt", "wc -l notes.txt"];
    const client = await harness.startServer(
      script([...bashCalls(commands, "own"), ...bashCalls(["cat plain.txt"], "ok")]),
      {
        extraArgs: ["--approval-policy", "on-risk"],
        env: { SCV_HOME: undefined, HOME: home },
        start: { cwd: home },
      },
    );
    const events = await runTurn(client, false);
    await client.finish();
    const asked = byCall(events, "approval.requested");
    const completed = byCall(events, "tool.completed");
    for (const [index, command] of commands.entries()) {
      expect(asked.get(`own${index}`), command).toMatchObject({ name: "bash", risk: "process" });
      expect(completed.get(`own${index}`), command).toMatchObject({ success: false, error: "denied" });
    }
    expect(asked.has("ok0")).toBe(false);
    expect(JSON.parse(completed.get("ok0")!.output).output).toBe("plain\n");
    const wire = client.lines.join("\n");
    for (const token of ["HISTORY-TOKEN", "CONFIG-TOKEN", "ENV-TOKEN"]) expect(wire).not.toContain(token);
  });
});
