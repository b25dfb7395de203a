// Issue 29 through the real CLI (`scv server --stdio`, the scripted fake provider) and the real sandbox, once per
// Linux back end (bubblewrap, and util-linux unshare with the same layout made by hand): under `auto` with
// `workspace-write` a command that writes inside the workspace runs unasked, one that writes anywhere else is
// stopped by the operating system, the model is told what was denied and the user is asked whether to run it
// outside; `.git` and `.scv` stay read-only, a symbolic link out of the workspace cannot be written through, the
// user's secrets and scv's home cannot be read, there is no network unless `network_access`, and no signal reaches a
// process outside. No mocks: where bwrap is missing the bwrap runs fail and say so.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type FakeResponse, textResponse, toolCallResponse } from "../support/fake_provider.ts";
import { type ServerClient, type ServerEvent, spawnServer } from "../support/server_client.ts";
import { useServerHarness } from "../support/server_harness.ts";
import { waitFor } from "../support/wait.ts";
import { livePids } from "../support/live_processes.ts";
import { userHome as makeUserHome } from "../support/user_home.ts";
import { freshBinary } from "../support/binary.ts";
import { UNDER_DENO } from "../support/cli_command.ts";

const harness = useServerHarness();
// A hang guard only: the unshare back end remounts every mount of the host per command, slow on a loaded machine.
vi.setConfig({ testTimeout: 180_000 });

const BWRAP = "/usr/bin/bwrap";
const SECRET = "ssh-private-key-material-7c1f";

type Call = { call_id: string; name: string; arguments: unknown };
const bash = (call_id: string, command: string): Call => ({ call_id, name: "bash", arguments: { command } });
const script = (...list: Call[]): FakeResponse[] => [toolCallResponse(list), textResponse(["done"])];

/** Runs one turn to its end, answering each approval with `approve(event)`; returns the turn's events. */
async function runTurn(client: ServerClient, approve: (event: ServerEvent) => boolean = () => false) {
  client.turn("go", `t-${Math.random()}`);
  const seen: ServerEvent[] = [];
  for (;;) {
    // A hang guard only: the first command waits for the back end's self-test, slow on a loaded machine.
    const event = await client.next(undefined, 120_000);
    seen.push(event);
    if (event.type === "approval.requested") {
      client.send({
        type: "approval.resolve",
        request_id: `r-${event.approval_id}`,
        session_id: client.sessionId,
        approval_id: event.approval_id,
        approved: approve(event),
      });
    }
    if (["turn.completed", "turn.failed", "turn.cancelled"].includes(event.type)) return seen;
  }
}

const asked = (events: ServerEvent[]) => events.filter((event) => event.type === "approval.requested");
const completed = (events: ServerEvent[], id: string) =>
  events.find((event) => event.type === "tool.completed" && event.call_id === id) as
    | (ServerEvent & { success: boolean; output: string })
    | undefined;
const result = (events: ServerEvent[], id: string) =>
  JSON.parse(completed(events, id)!.output) as Record<string, unknown>;

/** A folder outside /tmp (the sandbox's /tmp is its own), as the user's home and a place outside the workspace. */
let outside: string;
let listener: Server;
let port: number;
let connections = 0;

beforeAll(async () => {
  outside = mkdtempSync("/var/tmp/scv-sandbox-e2e-");
  listener = createServer((socket) => {
    connections += 1;
    socket.end("hello from outside\n");
  });
  port = await new Promise<number>((resolve) =>
    listener.listen(0, "127.0.0.1", () => resolve((listener.address() as { port: number }).port))
  );
});

afterAll(() => {
  listener.close();
  rmSync(outside, { recursive: true, force: true });
});

const userHome = () => makeUserHome(outside, SECRET);

/** Host pids of live processes with `marker` as one argument (a sandboxed process's own pids are not the host's). */
const processesWith = (marker: string) => livePids((args) => args.includes(marker));

const AUTO = '[tools]\napproval_policy = "auto"\n';

/** Host pids of the standby shells (lib/tools/standby_shell.ts) waiting for a command, of the session with `home`. */
const standbysOf = (home: string) =>
  livePids((args) => args[0] === "/bin/sh" && args[1] === "-c" && args[3] === "scv-standby").filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/environ`, "latin1").split("\0").includes(`HOME=${home}`);
    } catch {
      return false;
    }
  });

/** Seconds since boot, the clock /proc/<pid>/stat counts a process's start in. */
const uptimeSeconds = () => Number(readFileSync("/proc/uptime", "latin1").split(" ")[0]);

/**
 * Runs the turn with the `first` command, waits for the standby it leaves, then runs the next turn, whose `started`
 * command prints its shell's start time: checked to be before the turn was asked for (the shell was the standby's).
 */
async function secondTurnInStandby(client: ServerClient, home: string): Promise<ServerEvent[]> {
  expect(completed(await runTurn(client), "first")).toMatchObject({ success: true });
  await waitFor(() => standbysOf(home).length === 1, { what: "a standby sandbox to wait for the next command" });
  const asked = uptimeSeconds();
  const events = await runTurn(client, () => false);
  const [ticks, perSecond] = String(result(events, "started").output).trim().split(" ").map(Number);
  expect(ticks! / perSecond!).toBeLessThan(asked);
  return events;
}

describe.skipIf(process.platform !== "linux").each(["bwrap", "unshare"] as const)("the %s back end", (backend) => {
  const env = (home: string) => ({ SCV_SANDBOX_BACKEND: backend, HOME: home });

  it("is installed here", () => {
    if (backend === "bwrap" && !existsSync(BWRAP)) {
      throw new Error(`${BWRAP} is missing: install Debian's bubblewrap package (.ci/run does) to test this back end`);
    }
  });

  it("runs a write inside the workspace unasked, and stops one outside with the denial named and a question", async () => {
    const { home, target } = userHome();
    const client = await harness.startServer(
      [
        ...script(bash("in", "touch ./made-inside && echo ok"), bash("out", `touch ${target}/escaped`)),
        ...script(bash("out2", `touch ${target}/escaped-approved`)),
      ],
      { toml: AUTO, env: env(home) },
    );
    const events = await runTurn(client, () => false);
    expect(completed(events, "in")).toMatchObject({ success: true });
    expect(existsSync(path.join(harness.sandbox.workspace, "made-inside"))).toBe(true);

    const questions = asked(events);
    expect(questions.map((event) => event.call_id)).toEqual(["out"]);
    expect(questions[0]).toMatchObject({ summary: expect.stringContaining("outside the sandbox") });
    expect(String(questions[0]!.reason)).toContain(`a write to ${target}/escaped`);
    const denied = result(events, "out");
    expect(denied.sandbox_denied).toEqual([`a write to ${target}/escaped`]);
    expect(String(denied.outside_sandbox)).toContain("not run");
    expect(existsSync(path.join(target, "escaped"))).toBe(false);
    // The model saw it too: the tool result it is sent names the denial.
    expect(JSON.stringify(harness.provider.requests.at(-1)!.body)).toContain("sandbox_denied");

    const approved = await runTurn(client, () => true);
    expect(asked(approved).map((event) => event.call_id)).toEqual(["out2"]);
    expect(completed(approved, "out2")).toMatchObject({ success: true });
    expect(existsSync(path.join(target, "escaped-approved"))).toBe(true);
    await client.finish();
  });

  it("asks before running outside when the model asks for it, with its justification, and needs one", async () => {
    const { home, target } = userHome();
    const escalated = (call_id: string, justification?: string): Call => ({
      call_id,
      name: "bash",
      arguments: {
        command: `touch ${target}/asked-first`,
        sandbox_permissions: "require_escalated",
        ...(justification === undefined ? {} : { justification }),
      },
    });
    const client = await harness.startServer(
      script(escalated("bare"), escalated("why", "the build writes its cache there")),
      { toml: AUTO, env: env(home) },
    );
    const events = await runTurn(client, () => false);
    expect(completed(events, "bare")).toMatchObject({ success: false, error: "invalid_arguments" });
    const questions = asked(events);
    expect(questions.map((event) => event.call_id)).toEqual(["why"]);
    expect(String(questions[0]!.reason)).toContain("the model asks: the build writes its cache there");
    expect(completed(events, "why")).toMatchObject({ success: false, error: "denied" });
    expect(existsSync(path.join(target, "asked-first"))).toBe(false);
    await client.finish();
  });

  it("keeps .git and .scv read-only and a symbolic link out of the workspace unwritable", async () => {
    const { home, target } = userHome();
    const workspace = harness.sandbox.workspace;
    mkdirSync(path.join(workspace, ".git", "hooks"), { recursive: true });
    mkdirSync(path.join(workspace, ".scv"), { recursive: true });
    symlinkSync(target, path.join(workspace, "link-out"));
    symlinkSync(path.join(target, "file"), path.join(workspace, "file-link"));
    const client = await harness.startServer(
      script(
        bash("hook", "printf '#!/bin/sh\\necho pwned\\n' > .git/hooks/pre-commit"),
        bash("config", "echo '[tools]' >> .git/config"),
        bash("scv", "echo 'approval_policy = \"never\"' > .scv/config.toml"),
        bash("dir-link", "echo x > link-out/through-dir"),
        bash("file-link", "echo x > file-link"),
      ),
      { toml: AUTO, env: env(home) },
    );
    const events = await runTurn(client, () => false);
    for (const id of ["hook", "config", "scv", "dir-link", "file-link"]) {
      expect(completed(events, id), id).toMatchObject({ success: false });
      expect(String(result(events, id).output), id).toMatch(/read-only file system/i);
    }
    expect(existsSync(path.join(workspace, ".git", "hooks", "pre-commit"))).toBe(false);
    expect(existsSync(path.join(workspace, ".git", "config"))).toBe(false);
    expect(existsSync(path.join(workspace, ".scv", "config.toml"))).toBe(false);
    expect(existsSync(path.join(target, "through-dir"))).toBe(false);
    expect(existsSync(path.join(target, "file"))).toBe(false);
    await client.finish();
  });

  it("hides the user's secrets, scv's home and the workspace's secret-like files", async () => {
    const { home } = userHome();
    writeFileSync(path.join(harness.sandbox.workspace, ".env"), "API_TOKEN=workspace-dotenv-secret\n");
    const client = await harness.startServer(
      script(
        bash("ssh", "cat ~/.ssh/id_ed25519"),
        bash("scv-home", `cat ${harness.sandbox.home}/config.toml`),
        bash("dotenv", "cat .env"),
      ),
      { toml: AUTO, env: env(home) },
    );
    const events = await runTurn(client, () => false);
    for (const id of ["ssh", "scv-home", "dotenv"]) {
      expect(completed(events, id), id).toMatchObject({ success: false });
    }
    const everything = JSON.stringify(events);
    expect(everything).not.toContain(SECRET);
    expect(everything).not.toContain("workspace-dotenv-secret");
    expect(everything).not.toContain("approval_policy");
    await client.finish();
  });

  it("has no network unless network_access, and no signal reaches a process outside", async () => {
    const { home } = userHome();
    const connect = `exec 3<>/dev/tcp/127.0.0.1/${port} && head -n1 <&3`;
    const before = connections;
    const client = await harness.startServer(
      script(bash("net", connect), bash("signal", `kill -0 ${process.pid}`)),
      { toml: AUTO, env: env(home) },
    );
    const events = await runTurn(client, () => false);
    expect(completed(events, "net")).toMatchObject({ success: false });
    expect(completed(events, "signal")).toMatchObject({ success: false });
    expect(connections).toBe(before);
    await client.finish();

    const open = await harness.startServer(script(bash("net", connect)), {
      toml: `${AUTO}[sandbox_workspace_write]\nnetwork_access = true\n`,
      env: env(home),
    });
    const allowed = await runTurn(open, () => false);
    expect(asked(allowed)).toEqual([]);
    expect(completed(allowed, "net")).toMatchObject({ success: true });
    expect(String(result(allowed, "net").output)).toContain("hello from outside");
    await open.finish();
  });

  it("under read-only writes nothing, and the question offers to run it outside", async () => {
    const { home } = userHome();
    const client = await harness.startServer(script(bash("w", "touch ./not-even-here")), {
      toml: `sandbox_mode = "read-only"\n${AUTO}`,
      env: env(home),
    });
    const events = await runTurn(client, () => false);
    expect(asked(events).map((event) => event.call_id)).toEqual(["w"]);
    expect(existsSync(path.join(harness.sandbox.workspace, "not-even-here"))).toBe(false);
    await client.finish();
  });

  it("runs the next command in a sandbox set up while the model reads the last, as confined as any", async () => {
    const { home, target } = userHome();
    writeFileSync(path.join(harness.sandbox.workspace, ".env"), "API_TOKEN=standby-dotenv-secret\n");
    const client = await harness.startServer(
      [
        ...script(bash("first", "true")),
        ...script(
          bash("started", "echo $(cut -d' ' -f22 /proc/$$/stat) $(getconf CLK_TCK)"),
          bash("exact", "echo a \\\n"),
          bash("out", `touch ${target}/escaped-from-standby`),
          bash("dotenv", "cat .env"),
        ),
      ],
      { toml: AUTO, env: env(home) },
    );
    const events = await secondTurnInStandby(client, home);
    // The command arrives byte for byte: a final line break after a backslash continues the line.
    expect(result(events, "exact").output).toBe("a\n");
    expect(result(events, "out").sandbox_denied).toEqual([`a write to ${target}/escaped-from-standby`]);
    expect(existsSync(path.join(target, "escaped-from-standby"))).toBe(false);
    expect(completed(events, "dotenv")).toMatchObject({ success: false });
    expect(JSON.stringify(events)).not.toContain("standby-dotenv-secret");
    await client.finish();
    await waitFor(() => standbysOf(home).length === 0, { what: "the standby to go with the session" });
  });

  it("throws a standby away when a hidden file was replaced after it was set up", async () => {
    const { home } = userHome();
    const dotenv = path.join(harness.sandbox.workspace, ".env");
    writeFileSync(dotenv, "API_TOKEN=first-dotenv-secret\n");
    const client = await harness.startServer(
      [...script(bash("first", "true")), ...script(bash("dotenv", "cat .env"))],
      { toml: AUTO, env: env(home) },
    );
    await runTurn(client);
    await waitFor(() => standbysOf(home).length === 1, { what: "a standby sandbox to wait for the next command" });
    // As an editor saves: a new file renamed over the old one. The standby's mount stays on the old file.
    writeFileSync(`${dotenv}.saving`, "API_TOKEN=replaced-dotenv-secret\n");
    renameSync(`${dotenv}.saving`, dotenv);
    const events = await runTurn(client, () => false);
    expect(completed(events, "dotenv")).toMatchObject({ success: false });
    expect(JSON.stringify(events)).not.toContain("replaced-dotenv-secret");
    await client.finish();
  });

  it("runs the command in a sandbox set up afresh when the standby died while waiting", async () => {
    const { home } = userHome();
    const client = await harness.startServer(
      [...script(bash("first", "true")), ...script(bash("second", "echo ran; touch ./second-ran"))],
      { toml: AUTO, env: env(home) },
    );
    await runTurn(client);
    await waitFor(() => standbysOf(home).length === 1, { what: "a standby sandbox to wait for the next command" });
    for (const pid of standbysOf(home)) process.kill(pid, "SIGKILL");
    const events = await runTurn(client, () => false);
    expect(result(events, "second")).toMatchObject({ exit_code: 0, output: "ran\n" });
    expect(existsSync(path.join(harness.sandbox.workspace, "second-ran"))).toBe(true);
    await client.finish();
  });

  it("takes a command's children with it when the server goes", async () => {
    const { home } = userHome();
    // A duration no other process uses, so that the host's /proc finds exactly these sleeps.
    const marker = String(86_400 + Math.floor(Math.random() * 10_000));
    const client = await harness.startServer(
      script(bash("long", `sleep ${marker} & sleep ${marker} & echo started; wait`)),
      { toml: AUTO, env: env(home), spawned: true },
    );
    client.turn("go", "t-long");
    await client.next("tool.started");
    await waitFor(() => processesWith(marker).length === 2, { timeoutMs: 30_000, what: "both sleeps to start" });
    client.child.kill("SIGKILL");
    await waitFor(() => processesWith(marker).length === 0, {
      timeoutMs: 30_000,
      what: `the sandboxed sleeps (${processesWith(marker).join(", ")}) to die with the server`,
    });
  });

  it("confines an MCP stdio server with sandbox set, and leaves one without it as is", async () => {
    const { home, target } = userHome();
    const filesystem = path.join(
      import.meta.dirname,
      "../../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js",
    );
    const server = (extra: string) =>
      `command = ${JSON.stringify(process.execPath)}\nargs = ${JSON.stringify([filesystem, target])}\n${extra}`;
    const write = (call_id: string, name: string, file: string): Call => ({
      call_id,
      name: `mcp__${name}__write_file`,
      arguments: { path: path.join(target, file), content: "written\n" },
    });
    const client = await harness.startServer(
      script(write("boxed", "boxed", "by-boxed"), write("free", "free", "by-free")),
      {
        toml: `${AUTO}[mcp_servers.boxed]\n${
          server('sandbox = "workspace-write"\nstartup_timeout_sec = 120')
        }\n[mcp_servers.free]\n${server("startup_timeout_sec = 120")}\n`,
        env: env(home),
      },
    );
    const events = await runTurn(client, () => true);
    expect(completed(events, "boxed")).toMatchObject({ success: false });
    expect(completed(events, "boxed")!.output).toMatch(/read-only file system|EROFS/i);
    expect(existsSync(path.join(target, "by-boxed"))).toBe(false);
    expect(completed(events, "free")).toMatchObject({ success: true });
    expect(existsSync(path.join(target, "by-free"))).toBe(true);
    await client.finish();
  });
});

// The standby in what users run: the binary starts its sandboxes from its own parts (no dynamic import, no source
// files), so its bash tool is tested on its own.
describe.skipIf(UNDER_DENO || process.platform !== "linux")("the standby sandbox in the compiled binary", () => {
  it("runs the next command in a shell started before it was asked for, as confined as any", async () => {
    const binary = await freshBinary();
    const { home, target } = userHome();
    writeFileSync(path.join(harness.sandbox.workspace, ".env"), "API_TOKEN=binary-standby-secret\n");
    const fake = await harness.startProvider([
      ...script(bash("first", "true")),
      ...script(
        bash("started", "echo $(cut -d' ' -f22 /proc/$$/stat) $(getconf CLK_TCK)"),
        bash("out", `touch ${target}/escaped-from-binary-standby`),
        bash("dotenv", "cat .env"),
      ),
    ]);
    await harness.sandbox.writeUserConfig(AUTO);
    const client = spawnServer({
      command: binary,
      args: harness.flags(fake.url),
      env: harness.env({ SCV_SANDBOX_BACKEND: "bwrap", HOME: home }),
    });
    await client.start({ cwd: harness.sandbox.workspace });
    const events = await secondTurnInStandby(client, home);
    expect(result(events, "out").sandbox_denied).toEqual([`a write to ${target}/escaped-from-binary-standby`]);
    expect(existsSync(path.join(target, "escaped-from-binary-standby"))).toBe(false);
    expect(completed(events, "dotenv")).toMatchObject({ success: false });
    expect(JSON.stringify(events)).not.toContain("binary-standby-secret");
    await client.finish();
    await waitFor(() => standbysOf(home).length === 0, { what: "the standby to go with the binary's session" });
  }, 400_000);
});
