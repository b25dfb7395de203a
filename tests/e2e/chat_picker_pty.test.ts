// The session picker of `scv chat --resume` and `/resume` in a real terminal (tmux, issue 27 item 3): Enter alone
// starts a new session, Esc and Ctrl-C leave the picker (back to the running session; at start Esc starts a new
// session and Ctrl-C quits).
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { cliCommand, cliEnv } from "../support/cli_command.ts";
import { textResponse } from "../support/fake_provider.ts";
import { HAS_TMUX, useTmuxChat } from "../support/tmux_chat.ts";
import { waitFor } from "../support/wait.ts";

const chat = useTmuxChat();
const { launch, shows, keys, typeText, scrollback } = chat;
const PICKER = "Type a number to resume it";

/** Stores one session in the workspace through `scv exec` (spawned asynchronously: the fake provider is here). */
async function storeSession(prompt: string): Promise<void> {
  chat.provider.push(textResponse([`answer to ${prompt}`]));
  const { command, args } = cliCommand(["exec", prompt]);
  const env = cliEnv(chat.sandbox.env({
    OPENAI_API_KEY: "test-key",
    SCV_BASE_URL: chat.provider.url,
    SCV_MODEL: "fake-model",
  }));
  const child = spawn(command, args, { cwd: chat.sandbox.workspace, env, stdio: "ignore" });
  expect(await new Promise((resolve) => child.once("exit", resolve))).toBe(0);
}

/** Waits until the transcript says `times` times that the picker closed (the screen may have scrolled). */
async function closedTimes(times: number): Promise<void> {
  await waitFor(() => scrollback().split("picker closed; the current session goes on").length - 1 >= times, {
    intervalMs: 40,
    what: `the picker to close ${times} times`,
  });
}

/** The provider's input of its `index`-th request, as text. */
const input = (index: number) => JSON.stringify(chat.provider.requests[index]!.body.input);

describe.skipIf(!HAS_TMUX)(`the session picker${HAS_TMUX ? "" : " (skipped: tmux is not installed)"}`, () => {
  it("--resume: Enter alone starts a new session", async () => {
    await storeSession("stored one");
    await launch({}, { args: ["--resume"] });
    await shows(PICKER);
    keys("Enter");
    await shows("session started");
    chat.provider.push(textResponse(["fresh answer"]));
    typeText("a new question");
    keys("Enter");
    await shows("fresh answer");
    expect(input(1)).not.toContain("stored one");
  });

  it("--resume: Esc starts a new session, Ctrl-C quits", async () => {
    await storeSession("stored one");
    await launch({}, { args: ["--resume"] });
    await shows(PICKER);
    keys("Escape");
    await shows("session started");
    await chat.killServerAndWait();

    await launch({}, { args: ["--resume"] });
    await shows(PICKER);
    keys("C-c");
    await shows("EXITED 0");
    expect(scrollback()).not.toContain("session started");
  });

  it("/resume: Esc and Ctrl-C go back to the running session, Enter alone starts a new one", async () => {
    await storeSession("stored one");
    await launch();
    await shows("fake-model · ready");
    chat.provider.push(textResponse(["first answer"]));
    typeText("first question");
    keys("Enter");
    await shows("first answer");

    for (const key of ["Escape", "C-c"]) {
      typeText("/resume");
      keys("Enter");
      await shows(PICKER);
      keys(key);
      await closedTimes(key === "Escape" ? 1 : 2);
    }
    chat.provider.push(textResponse(["second answer"]));
    typeText("second question");
    keys("Enter");
    await shows("second answer");
    expect(input(2)).toContain("first answer");

    typeText("/resume");
    keys("Enter");
    await shows(PICKER);
    keys("Enter");
    await shows("session started");
    chat.provider.push(textResponse(["third answer"]));
    typeText("third question");
    keys("Enter");
    await shows("third answer");
    expect(input(3)).not.toContain("first answer");
  });

  it("/rewind: Esc leaves the list of turns; a number and a mode picks one", async () => {
    await launch();
    await shows("fake-model · ready");
    chat.provider.push(textResponse(["first answer"]));
    typeText("first question");
    keys("Enter");
    await shows("first answer");

    typeText("/rewind");
    keys("Enter");
    await shows("Turns of this conversation");
    keys("Escape");
    await shows("rewind cancelled");
    typeText("/rewind");
    keys("Enter");
    await shows("Enter or Esc cancels");
    typeText("1 conversation");
    keys("Enter");
    await shows("rewound 1 turn: the conversation");
    chat.provider.push(textResponse(["second answer"]));
    typeText("second question");
    keys("Enter");
    await shows("second answer");
    expect(input(1)).not.toContain("first question");
  });
});
