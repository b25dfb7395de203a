// `scv chat` in a real pseudo-terminal: a tmux server per test runs the CLI (under the runtime the tests
// target, see cli_command.ts) against the fake provider, and the test reads the screen and types keys.
import { execFileSync, spawnSync } from "node:child_process";
import { chmod, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach } from "vitest";
import { cliEnv, cliShellCommand } from "./cli_command.ts";
import { type ConfigSandbox, createConfigSandbox } from "./config_files.ts";
import { type FakeProvider, startFakeProvider } from "./fake_provider.ts";
import { isRunning, processTree } from "./live_processes.ts";
import { HANG_MS, waitFor as waitUntil } from "./wait.ts";

const POLL_MS = 40;

/** CI installs tmux; a developer machine without it skips the terminal tests (and says so in their names). */
export const HAS_TMUX = spawnSync("tmux", ["-V"]).status === 0;

/** `shell`: start an interactive bash with job control instead, which can run the launcher script. */
export type LaunchOptions = { args?: string[]; width?: number; height?: number; cwd?: string; shell?: boolean };

let counter = 0;

/** A fresh sandbox, fake provider and tmux server for every test of the enclosing file (registers its hooks). */
export function useTmuxChat() {
  let socket = "";
  const state = {} as { sandbox: ConfigSandbox; provider: FakeProvider };
  const tmux = (...args: string[]): string => execFileSync("tmux", ["-L", socket, ...args], { encoding: "utf8" });

  beforeEach(async () => {
    state.sandbox = await createConfigSandbox();
    state.provider = await startFakeProvider();
  });

  afterEach(async () => {
    await killServerAndWait();
    await state.provider.close();
    await state.sandbox.cleanup();
  });

  /**
   * Ends the tmux server and waits until every process that ran in its panes has exited: `scv chat` writes its
   * session records into the test's home while it shuts down, and removing the home under it fails (ENOTEMPTY).
   */
  async function killServerAndWait(): Promise<void> {
    let panes: number[] = [];
    try {
      panes = tmux("list-panes", "-a", "-F", "#{pane_pid}").split("\n").filter(Boolean).map(Number);
    } catch {
      return; // No server: nothing runs.
    }
    const running = processTree(panes);
    try {
      tmux("kill-server");
    } catch {
      // Gone meanwhile.
    }
    await waitUntil(() => !running.some(isRunning), {
      intervalMs: 20,
      what: "the chat's processes to exit after kill-server",
    });
  }

  /** Starts `scv chat` (a script that exports the test's environment) in a new tmux session of the given size. */
  async function launch(env: Record<string, string> = {}, options: LaunchOptions = {}): Promise<void> {
    const { sandbox, provider } = state;
    const vars = cliEnv(
      sandbox.env({
        OPENAI_API_KEY: "test-key",
        SCV_BASE_URL: provider.url,
        SCV_MODEL: "fake-model",
        TERM: "xterm-256color",
        ...env,
      }),
    );
    const script = join(sandbox.root, "run.sh");
    const exports = Object.entries(vars)
      .filter(([key]) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(key))
      .map(([key, value]) => `export ${key}='${value.replace(/'/g, "'\\''")}'`)
      .join("\n");
    await writeFile(
      script,
      `#!/bin/sh\n${exports}\ncd '${options.cwd ?? sandbox.workspace}'\n${
        cliShellCommand(["chat", ...(options.args ?? [])])
      } 2>'${join(sandbox.root, "stderr.txt")}'\necho "EXITED $?"\nsleep 60\n`,
    );
    await chmod(script, 0o755);
    socket = `scv-chat-test-${process.pid}-${++counter}`;
    const command = options.shell ? "env -i PATH=/usr/bin:/bin HOME=/tmp bash --norc --noprofile -i" : script;
    tmux("new-session", "-d", "-x", String(options.width ?? 80), "-y", String(options.height ?? 24), command);
  }

  const screen = (escapes = false): string => tmux("capture-pane", "-p", ...(escapes ? ["-e"] : []));

  /** Everything printed so far: the scrollback and the screen. */
  const scrollback = (joinWrapped = false): string =>
    tmux("capture-pane", "-p", "-S", "-", ...(joinWrapped ? ["-J"] : []))
      .split("\n")
      .map((row) => row.trimEnd())
      .join("\n");

  async function waitFor(predicate: (text: string) => boolean, what: string): Promise<string> {
    const deadline = Date.now() + HANG_MS;
    let text = "";
    while (Date.now() < deadline) {
      text = screen();
      if (predicate(text)) return text;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    throw new Error(`timed out waiting for ${what}; screen:\n${text}`);
  }

  return {
    get sandbox(): ConfigSandbox {
      return state.sandbox;
    },
    get provider(): FakeProvider {
      return state.provider;
    },
    tmux,
    killServerAndWait,
    launch,
    screen,
    scrollback,
    waitFor,
    shows: (needle: string) => waitFor((text) => text.includes(needle), JSON.stringify(needle)),
    keys: (...list: string[]) => tmux("send-keys", ...list),
    typeText: (text: string) => tmux("send-keys", "-l", text),
  };
}
