// End-to-end harness for the client subcommands (`scv exec`, `scv chat`): a fresh config sandbox and fake
// provider per test, and `scv <subcommand>` (cli_command.ts: under Node or Deno) started as a real child process against them, killed afterwards.
import { type ChildProcess, spawn } from "node:child_process";
import { afterEach, beforeEach } from "vitest";
import { cliCommand, cliEnv } from "./cli_command.ts";
import { type ConfigSandbox, createConfigSandbox } from "./config_files.ts";
import { type FakeProvider, startFakeProvider } from "./fake_provider.ts";

export type CliRun = { code: number | null; stdout: string; stderr: string };

export type CliProcess = {
  child: ChildProcess;
  /** Resolves at exit with everything the process printed. */
  done: Promise<CliRun>;
  stdout(): string;
};

export type CliHarness = {
  readonly sandbox: ConfigSandbox;
  readonly provider: FakeProvider;
  /**
   * Starts `scv <args>` in the workspace with the provider configured. `stdin` is written and closed;
   * `null` leaves stdin open for the test to write.
   */
  start(
    args: string[],
    options?: { stdin?: string | null; env?: Record<string, string | undefined>; cwd?: string },
  ): CliProcess;
};

export function useCliHarness(): CliHarness {
  let sandbox: ConfigSandbox | undefined;
  let provider: FakeProvider | undefined;
  const children = new Set<ChildProcess>();

  beforeEach(async () => {
    sandbox = await createConfigSandbox();
    provider = await startFakeProvider();
  });

  afterEach(async () => {
    for (const child of children) child.kill("SIGKILL");
    children.clear();
    await provider?.close();
    await sandbox?.cleanup();
  });

  const harness: CliHarness = {
    get sandbox() {
      if (sandbox === undefined) throw new Error("the CLI harness is only ready inside a test");
      return sandbox;
    },
    get provider() {
      if (provider === undefined) throw new Error("the CLI harness is only ready inside a test");
      return provider;
    },
    start(args, options = {}) {
      const { command, args: argv } = cliCommand(args);
      const child = spawn(command, argv, {
        cwd: options.cwd ?? harness.sandbox.workspace,
        env: cliEnv(
          harness.sandbox.env({
            OPENAI_API_KEY: "test-key",
            SCV_BASE_URL: harness.provider.url,
            SCV_MODEL: "fake-model",
            ...options.env,
          }),
        ),
        stdio: ["pipe", "pipe", "pipe"],
      });
      children.add(child);
      let stdout = "";
      let stderr = "";
      child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
      child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
      if (options.stdin !== null) child.stdin!.end(options.stdin ?? "");
      const done = new Promise<CliRun>((resolve) => child.once("exit", (code) => resolve({ code, stdout, stderr })));
      return { child, done, stdout: () => stdout };
    },
  };
  return harness;
}
