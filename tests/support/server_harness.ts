// The shared per-test setup of the server e2e tests: a fresh config sandbox (temp SCV_HOME, empty HOME, SCV_*
// variables unset), an optional scripted fake provider on 127.0.0.1, and `node main.ts server --stdio` clients,
// all torn down after each test (servers killed, provider closed, sandbox removed).
import { afterEach, beforeEach } from "vitest";
import { type ConfigSandbox, createConfigSandbox } from "./config_files.ts";
import { type FakeProvider, type FakeResponse, startFakeProvider } from "./fake_provider.ts";
import { UNDER_DENO } from "./cli_command.ts";
import {
  killAllServers,
  type ServerClient,
  type ServerEvent,
  type SpawnOptions,
  spawnServer,
  startInProcessServer,
} from "./server_client.ts";

export type StartOptions = {
  /** Arguments after `--stdio --model fake-model --base-url <provider>` (ignored when `args` is given). */
  extraArgs?: string[];
  /** The whole argument list after `server`, replacing the default flags. */
  args?: string[];
  /** Written as `<home>/config.toml` (0600) before the server starts. */
  toml?: string;
  /** Extra `session.start` fields (`cwd` defaults to the sandbox workspace). */
  start?: Record<string, unknown>;
  /** Environment changes on top of `OPENAI_API_KEY=test-only`. */
  env?: Record<string, string | undefined>;
  /** Spawn the CLI even in an in-process harness (for the process-level tests of an otherwise in-process file). */
  spawned?: boolean;
};

export type ServerHarness = {
  /** This test's sandbox. */
  readonly sandbox: ConfigSandbox;
  /** This test's provider; throws if none was started. */
  readonly provider: FakeProvider;
  /** The sandbox environment with `OPENAI_API_KEY=test-only`, plus `extra`. */
  env(extra?: Record<string, string | undefined>): Record<string, string>;
  /** The default server flags pointing at `url`. */
  flags(url: string): string[];
  /** Starts this test's provider (closing the one already running, if any). */
  startProvider(script?: FakeResponse[]): Promise<FakeProvider>;
  /** Starts the provider with `script`, then a server that is initialized and has a session. */
  startServer(script: FakeResponse[], options?: StartOptions): Promise<ServerClient>;
  /** A server with these arguments and environment, not yet initialized: in-process or spawned, as the harness says. */
  server(options: SpawnOptions): ServerClient;
  /** Runs `cleanup` after this test, before the sandbox is removed. */
  defer(cleanup: () => void | Promise<void>): void;
};

export type HarnessOptions = {
  /**
   * `startServer` runs the server in this process (serveStdio over in-memory streams) instead of spawning the
   * CLI: for files about protocol rules. Under SCV_TEST_RUNTIME=deno they spawn anyway, so that the Deno run
   * still covers them through the real CLI.
   */
  inProcess?: boolean;
};

/** Registers beforeEach/afterEach in the calling test file and returns the per-test harness. */
export function useServerHarness(
  setup?: (harness: ServerHarness) => Promise<void>,
  options: HarnessOptions = {},
): ServerHarness {
  const inProcess = options.inProcess === true && !UNDER_DENO;
  let sandbox: ConfigSandbox | undefined;
  let provider: FakeProvider | undefined;
  let deferred: Array<() => void | Promise<void>> = [];

  const harness: ServerHarness = {
    get sandbox() {
      if (!sandbox) throw new Error("the harness sandbox exists only inside a test");
      return sandbox;
    },
    get provider() {
      if (!provider) throw new Error("no fake provider was started in this test");
      return provider;
    },
    env: (extra = {}) => harness.sandbox.env({ OPENAI_API_KEY: "test-only", ...extra }),
    flags: (url) => ["--stdio", "--model", "fake-model", "--base-url", url],
    async startProvider(script = []) {
      // A test may swap the provider its setup started for one with its own script.
      await provider?.close();
      provider = await startFakeProvider(script);
      return provider;
    },
    async startServer(script, options = {}) {
      const fake = await harness.startProvider(script);
      if (options.toml) await harness.sandbox.writeUserConfig(options.toml);
      const client = (options.spawned ? spawnServer : harness.server)({
        args: options.args ?? [...harness.flags(fake.url), ...(options.extraArgs ?? [])],
        env: harness.env(options.env),
      });
      await client.start({ cwd: harness.sandbox.workspace, ...options.start });
      return client;
    },
    server: (spawnOptions) => (inProcess ? startInProcessServer : spawnServer)(spawnOptions),
    defer(cleanup) {
      deferred.push(cleanup);
    },
  };

  beforeEach(async () => {
    sandbox = await createConfigSandbox();
    await setup?.(harness);
  });

  afterEach(async () => {
    killAllServers();
    for (const cleanup of deferred.splice(0).reverse()) await cleanup();
    deferred = [];
    await provider?.close();
    provider = undefined;
    await sandbox?.cleanup();
    sandbox = undefined;
  });

  return harness;
}

/** The turn's terminal event: completed, failed or cancelled. */
export function terminal(client: ServerClient, timeoutMs?: number): Promise<ServerEvent> {
  return client.next(["turn.completed", "turn.failed", "turn.cancelled"], timeoutMs);
}

/** Answers an approval request. */
export function resolveApproval(
  client: ServerClient,
  approvalId: string,
  approved: boolean,
  requestId = `r-${approvalId}`,
): void {
  client.send({
    type: "approval.resolve",
    request_id: requestId,
    session_id: client.sessionId,
    approval_id: approvalId,
    approved,
  });
}
