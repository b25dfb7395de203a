// `scv` with no subcommand: the chat on an interactive terminal, the help when piped; `-v` prints the version.
import { execFileSync, spawnSync } from "node:child_process";
import { chmod, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { VERSION } from "../../lib/version.ts";
import { type ConfigSandbox, createConfigSandbox } from "../support/config_files.ts";
import { type FakeProvider, startFakeProvider } from "../support/fake_provider.ts";
import { cliCommand, cliEnv, cliShellCommand, ROOT } from "../support/cli_command.ts";
import { HANG_MS, waitFor } from "../support/wait.ts";

/** `[command, args]` of `scv …args` (main.ts relative to ROOT), for spawnSync. */
const scv = (...args: string[]): [string, string[]] => {
  const { command, args: argv } = cliCommand(args, "main.ts");
  return [command, argv];
};
const socket = `scv-default-${process.pid}`;
let sandbox: ConfigSandbox;
let provider: FakeProvider;

beforeEach(async () => {
  sandbox = await createConfigSandbox();
  provider = await startFakeProvider();
});
afterEach(async () => {
  spawnSync("tmux", ["-L", socket, "kill-server"]);
  await provider.close();
  await sandbox.cleanup();
});

it.skipIf(spawnSync("tmux", ["-V"]).status !== 0)("on a terminal, `scv` alone starts the chat", async () => {
  const vars = cliEnv(
    sandbox.env({
      OPENAI_API_KEY: "test-key",
      SCV_BASE_URL: provider.url,
      SCV_MODEL: "fake-model",
      TERM: "xterm-256color",
    }),
  );
  const exports = Object.entries(vars)
    .filter(([key]) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(key))
    .map(([key, value]) => `export ${key}='${value!.replace(/'/g, "'\\''")}'`)
    .join("\n");
  const script = join(sandbox.root, "run.sh");
  await writeFile(
    script,
    `#!/bin/sh\n${exports}\ncd '${sandbox.workspace}'\n${cliShellCommand([])}\necho "EXITED $?"\nsleep 1000\n`,
  );
  await chmod(script, 0o755);
  execFileSync("tmux", ["-L", socket, "new-session", "-d", "-x", "80", "-y", "24", script]);
  const screen = () => execFileSync("tmux", ["-L", socket, "capture-pane", "-p"], { encoding: "utf8" });
  await waitFor(() => screen().split("\n").some((row) => row.startsWith("›")), {
    intervalMs: 50,
    what: "the chat prompt",
  });
  expect(screen()).toMatch(/^›/m);
  execFileSync("tmux", ["-L", socket, "send-keys", "C-d"]);
  await waitFor(() => screen().includes("EXITED"), { intervalMs: 50, what: "chat to exit" });
  expect(screen()).toContain("EXITED 0");
});

it("piped, `scv` alone prints the help on stdout and exits 0; -v prints the version", () => {
  const alone = spawnSync(...scv(), {
    cwd: ROOT,
    env: cliEnv(process.env),
    encoding: "utf8",
    input: "",
    timeout: HANG_MS,
  });
  expect(alone.status).toBe(0);
  expect(alone.stdout).toMatch(/^Usage: scv /);
  const short = spawnSync(...scv("-v"), { cwd: ROOT, env: cliEnv(process.env), encoding: "utf8", timeout: HANG_MS });
  expect(short.status).toBe(0);
  expect(short.stdout.trim()).toBe(VERSION);
});

it("`--yes` with `--approval-policy never` warns that it has no effect", () => {
  const result = spawnSync(
    ...scv("exec", "--yes", "--approval-policy", "never", "--fake-responses", "/nonexistent", "hi"),
    {
      cwd: ROOT,
      env: cliEnv(process.env),
      encoding: "utf8",
      timeout: HANG_MS,
    },
  );
  expect(result.stderr).toContain("--yes has no effect with --approval-policy never");
});
