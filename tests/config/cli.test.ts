// Spec §11 item 17 against the real CLI: configuration errors are `invalid_request` replies to
// `session.start` with the exact §7 messages, no session is created (the client retries on the same
// connection after fixing the files), the home is created 0700, and no network I/O happens.
import { chmod, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { type ConfigSandbox, createConfigSandbox, fakeProfileToml } from "../support/config_files.ts";
import { type FakeProvider, startFakeProvider } from "../support/fake_provider.ts";
import { killAllServers, type ServerClient, spawnServer } from "../support/server_client.ts";

let sandbox: ConfigSandbox;
let provider: FakeProvider;

beforeEach(async () => {
  sandbox = await createConfigSandbox();
  provider = await startFakeProvider();
});

afterEach(async () => {
  killAllServers();
  await provider.close();
  await sandbox.cleanup();
});

let attempt = 0;
async function startFails(client: ServerClient, fields: Record<string, unknown> = {}): Promise<string> {
  const requestId = `start-${++attempt}`;
  client.send({ type: "session.start", request_id: requestId, cwd: sandbox.workspace, ...fields });
  const reply = await client.next(["error", "session.started"]);
  expect(reply).toMatchObject({ type: "error", request_id: requestId, code: "invalid_request", fatal: false });
  return reply.message as string;
}

it("reports each configuration error on session.start, then starts once the files are fixed", async () => {
  const home = join(sandbox.root, "fresh-home");
  const explicit = join(sandbox.root, "explicit.toml");
  const userFile = join(home, "config.toml");
  const client = spawnServer({
    args: ["--stdio", "--scv-home", home],
    env: sandbox.env({ SCV_HOME: undefined, SCV_CONFIG: explicit, OPENAI_API_KEY: undefined }),
  });
  await client.initialize();

  // Layer 4 must exist.
  expect((await startFails(client)).startsWith(`read configuration ${explicit}`)).toBe(true);
  // Step 2 ran before configuration: the home now exists, private.
  expect((await stat(home)).mode & 0o777).toBe(0o700);

  await sandbox.writeExplicitConfig("[context]\nmax_tokens = 64000\n[tui]\nmax_prompt_history_items = 50\n", 0o644);
  expect(await startFails(client)).toBe(
    `explicit configuration is readable by group or others; run chmod 600 ${explicit}`,
  );
  await chmod(explicit, 0o600);

  await sandbox.writeConfigFileAt(userFile, "[agent]\nmax_steps = 5\n", 0o644);
  expect(await startFails(client)).toBe(`user configuration is readable by group or others; run chmod 600 ${userFile}`);

  await sandbox.writeConfigFileAt(userFile, "[tools]\nmax_reads = 3\n", 0o600);
  expect(await startFails(client)).toBe(`parse configuration ${userFile}: unknown key tools.max_reads`);

  // No api_key and OPENAI_API_KEY unset.
  await sandbox.writeConfigFileAt(userFile, '[provider]\nmodel = "fake-model"\n', 0o600);
  expect(await startFails(client)).toBe(
    `provider credential is not configured; set provider.api_key or provider.api_key_env (set OPENAI_API_KEY, or configure a provider in ${userFile}; see docs/configuration.md)`,
  );

  await sandbox.writeConfigFileAt(userFile, fakeProfileToml({ baseUrl: provider.url }), 0o600);
  expect(await startFails(client, { provider: "missing" })).toBe('active provider profile "missing" was not found');

  const projectFile = await sandbox.writeProjectConfig('[provider]\nbase_url = "http://127.0.0.1:1/v1"\n');
  expect(await startFails(client)).toMatch(`project configuration ${projectFile} cannot set [provider]: `);

  await sandbox.writeConfigFileAt(
    userFile,
    `${fakeProfileToml({ baseUrl: provider.url })}[tools]\napproval_policy = "always"\n`,
    0o600,
  );
  await sandbox.writeProjectConfig('[tools]\napproval_policy = "on-risk"\n');
  expect(await startFails(client)).toBe("project configuration cannot weaken tools.approval_policy");

  await rm(join(sandbox.workspace, ".scv"), { recursive: true });
  client.send({ type: "session.start", request_id: "ok", cwd: sandbox.workspace });
  const started = await client.next(["session.started", "error"]);
  expect(started).toMatchObject({
    type: "session.started",
    request_id: "ok",
    cwd: sandbox.workspace,
    model: "fake-model",
    context_max_tokens: 64000,
    max_server_frame_bytes: 8388608,
    max_prompt_history_items: 50,
    max_transcript_items: 10000,
  });
  expect(await client.next("queue.snapshot")).toMatchObject({ seq: 1, entries: [], paused: false });

  expect(provider.connections()).toBe(0);
  await client.finish();
});

it("flags and session.start fields override the files (layer 6)", async () => {
  await sandbox.writeUserConfig(fakeProfileToml({ baseUrl: provider.url, model: "file-model" }));
  const client = spawnServer({ args: ["--stdio", "--model", "flag-model"], env: sandbox.env() });
  const fromFlag = await client.start({ cwd: sandbox.workspace });
  expect(fromFlag.model).toBe("flag-model");
  await client.finish();

  const second = spawnServer({
    args: ["--stdio", "--model", "flag-model"],
    env: sandbox.env({ SCV_MODEL: "env-model" }),
  });
  const fromRequest = await second.start({ cwd: sandbox.workspace, model: "request-model" });
  expect(fromRequest.model).toBe("request-model");
  expect(provider.connections()).toBe(0);
  await second.finish();
});
