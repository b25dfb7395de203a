// `scv chat` in a real pseudo-terminal (tmux): an edit's approval shows its diff coloured and pages a long one,
// reveals hidden characters in a command, and /approvals keeps the conversation (issue 15).
import { execFileSync, spawnSync } from "node:child_process";
import { chmod, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type ConfigSandbox, createConfigSandbox } from "../support/config_files.ts";
import { type FakeProvider, startFakeProvider, textResponse, toolCallResponse } from "../support/fake_provider.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const POLL_MS = 40;
const WAIT_MS = 8000;

let sandbox: ConfigSandbox;
let provider: FakeProvider;
let socket = "";
let counter = 0;

function tmux(...args: string[]): string {
  return execFileSync("tmux", ["-L", socket, ...args], { encoding: "utf8" });
}

/** `shell`: start an interactive bash with job control instead, which can run the launcher script. */
type LaunchOptions = { args?: string[]; width?: number; height?: number; cwd?: string; shell?: boolean };

async function launch(env: Record<string, string> = {}, options: LaunchOptions = {}): Promise<void> {
  const vars = sandbox.env({
    OPENAI_API_KEY: "test-key",
    SCV_BASE_URL: provider.url,
    SCV_MODEL: "fake-model",
    TERM: "xterm-256color",
    ...env,
  });
  const script = join(sandbox.root, "run.sh");
  const exports = Object.entries(vars)
    .filter(([key]) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(key))
    .map(([key, value]) => `export ${key}='${value.replace(/'/g, "'\\''")}'`)
    .join("\n");
  const args = ["chat", ...(options.args ?? [])].map((arg) => `'${arg}'`).join(" ");
  await writeFile(
    script,
    `#!/bin/sh\n${exports}\ncd '${options.cwd ?? sandbox.workspace}'\n'${process.execPath}' '${
      join(ROOT, "main.ts")
    }' ${args} 2>'${join(sandbox.root, "stderr.txt")}'\necho "EXITED $?"\nsleep 60\n`,
  );
  await chmod(script, 0o755);
  socket = `scv-chat-test-${process.pid}-${++counter}`;
  const command = options.shell ? "env -i PATH=/usr/bin:/bin HOME=/tmp bash --norc --noprofile -i" : script;
  tmux("new-session", "-d", "-x", String(options.width ?? 80), "-y", String(options.height ?? 24), command);
}

function screen(escapes = false): string {
  return tmux("capture-pane", "-p", ...(escapes ? ["-e"] : []));
}

/** Everything printed so far: the scrollback and the screen. */
function scrollback(joinWrapped = false): string {
  return tmux("capture-pane", "-p", "-S", "-", ...(joinWrapped ? ["-J"] : []))
    .split("\n")
    .map((row) => row.trimEnd())
    .join("\n");
}

async function waitFor(predicate: (text: string) => boolean, what: string): Promise<string> {
  const deadline = Date.now() + WAIT_MS;
  let text = "";
  while (Date.now() < deadline) {
    text = screen();
    if (predicate(text)) return text;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  throw new Error(`timed out waiting for ${what}; screen:\n${text}`);
}

const shows = (needle: string) => waitFor((text) => text.includes(needle), JSON.stringify(needle));
const keys = (...list: string[]) => tmux("send-keys", ...list);
const typeText = (text: string) => tmux("send-keys", "-l", text);

beforeEach(async () => {
  sandbox = await createConfigSandbox();
  provider = await startFakeProvider();
});

afterEach(async () => {
  try {
    tmux("kill-server");
  } catch {
    // Already gone.
  }
  await provider.close();
  await sandbox.cleanup();
});

// CI installs tmux; a developer machine without it skips these (and says so in the test name).
const HAS_TMUX = spawnSync("tmux", ["-V"]).status === 0;

describe.skipIf(!HAS_TMUX)(
  `scv chat approvals in a terminal${HAS_TMUX ? "" : " (skipped: tmux is not installed)"}`,
  () => {
    it("shows an edit's diff coloured, pages a long one with v, and reveals a bidi override in a command", async () => {
      const lines = Array.from({ length: 60 }, (_, index) => `row ${index + 1}`);
      await writeFile(join(sandbox.workspace, "long.txt"), `${lines.join("\n")}\n`);
      provider.push(
        toolCallResponse([{
          call_id: "c1",
          name: "write",
          arguments: {
            path: "long.txt",
            mode: "replace",
            content: lines.map((line) => `${line} changed`).join("\n") + "\n",
          },
        }]),
        toolCallResponse([{ call_id: "c2", name: "bash", arguments: { command: "echo safe \u202e txt.exe 1>&2" } }]),
        textResponse(["finished"]),
      );
      await launch({}, { height: 40 });
      await shows("fake-model · ready");
      typeText("go");
      keys("Enter");
      // 3 header rows and 120 changed rows: the first 20 inline, the other 103 a page of 20 per `v`.
      let text = await shows("103 more diff lines: press v to show the next 20");
      expect(text).toContain("--- a/long.txt");
      expect(text).toContain("-row 1");
      expect(text).not.toContain("+row 1 changed");
      for (const remaining of [83, 63, 43]) {
        typeText("v");
        await waitFor(
          () => scrollback().includes(`… ${remaining} more diff lines: press v to show more`),
          `${remaining} more`,
        );
      }
      const all = tmux("capture-pane", "-p", "-e", "-S", "-");
      expect(all).toContain("\x1b[31m-row 1");
      expect(all).toContain("\x1b[32m+row 1 changed");
      expect(all).not.toContain("+row 20 changed");
      typeText("y");
      keys("Enter");
      // The server's detail escapes the override; the chat shows it as written, never the raw character.
      text = await shows("Run: echo safe \\u202e txt.exe 1>&2");
      expect(text).not.toContain("\u202e");
      typeText("n");
      keys("Enter");
      await shows("finished");
      expect(await readFile(join(sandbox.workspace, "long.txt"), "utf8")).toContain("row 60 changed");
    });

    it("/approvals changes the policy without starting a new session", async () => {
      provider.push(textResponse(["first answer"]), textResponse(["second answer"]));
      await launch();
      await shows("fake-model · ready");
      typeText("hello there");
      keys("Enter");
      await shows("first answer");
      typeText("/approvals always");
      keys("Enter");
      const text = await shows("switched to approvals always; the conversation continues");
      expect(text).not.toContain("starts fresh");
      typeText("again");
      keys("Enter");
      await shows("second answer");
      expect(JSON.stringify(provider.requests[1]!.body.input)).toContain("hello there");
    });
  },
);
