// `scv chat` in a real pseudo-terminal (tmux, 80×24): streaming, Markdown, approvals, cancellation, history,
// slash commands and colour rules, against the fake SSE provider.
import { spawn } from "node:child_process";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sse, textResponse, toolCallResponse } from "../support/fake_provider.ts";
import { HAS_TMUX, useTmuxChat } from "../support/tmux_chat.ts";
import { waitFor as waitUntil } from "../support/wait.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const chat = useTmuxChat();
const { tmux, killServerAndWait, launch, screen, scrollback, waitFor, shows, keys, typeText } = chat;
const promptRows = (text: string) => text.split("\n").filter((row) => row.startsWith("› "));
/** The live prompt: the last row starting with the prompt marker. */
const promptIs = (text: string) =>
  waitFor(
    (screenText) => screenText.split("\n").filter((row) => row.startsWith("›")).at(-1) === `› ${text}`.trimEnd(),
    `prompt ${JSON.stringify(text)}`,
  );

describe.skipIf(!HAS_TMUX)(`scv chat in a terminal${HAS_TMUX ? "" : " (skipped: tmux is not installed)"}`, () => {
  it("streams the answer, renders Markdown when lines complete, and answers an approval prompt", async () => {
    chat.provider.push(
      {
        events: [
          sse.textDelta("Streaming partial"),
          sse.textDelta(" words\n## Result\n- item `code`\n"),
          sse.completed({ input_tokens: 7, output_tokens: 3 }),
        ],
        mode: "chunked",
        delayMs: 150,
      },
      toolCallResponse([{ call_id: "c1", name: "bash", arguments: { command: "echo pty-ok 1>&2" } }]),
      textResponse(["all finished"]),
    );
    await launch();
    await shows("fake-model · ready");
    typeText("line a");
    keys("C-j");
    typeText("line b");
    keys("Enter");
    // The partial line is on screen before the response completes.
    let text = await shows("Streaming partial");
    expect(text).toMatch(/working \d+s \(Esc or Ctrl-C cancels\)/);
    text = await shows("  • item code");
    expect(text).toContain("Result\n──────");
    text = await shows("· done in 1 step");
    // The context in use (7 + 3 of the default 128k window) and the session's usage.
    expect(text).toContain("fake-model · ready · context 10 / 128k tokens · session 7 in / 3 out");
    expect(chat.provider.requests[0]!.body.input[0].content).toBe("line a\nline b");

    typeText("run it");
    keys("Enter");
    text = await shows("this session");
    expect(text).toContain("? Approve bash (process risk)");
    expect(text).toContain("Run: echo pty-ok 1>&2");
    expect(text).toContain("waiting for approval");
    // The question replaces the prompt row until it is answered.
    // A command with a redirection is not one simple command: "always" covers only this exact call.
    expect(text.trimEnd().split("\n").at(-2)).toBe("? Allow bash? [y]es / [n]o / [a]lways for this session");
    typeText("y");
    keys("Enter");
    text = await shows("all finished");
    expect(text).toContain("  approved");
    expect(text).toContain("✓ pty-ok");
    // Colour is on in a terminal without NO_COLOR.
    expect(screen(true)).toContain("\x1b[");
  });

  it("cancels turns with Ctrl-C and Esc, recalls history, and exits on a second Ctrl-C", async () => {
    chat.provider.push(
      { events: [sse.textDelta("thinking hard")], mode: "chunked", end: "hang" },
      { events: [sse.textDelta("still thinking")], mode: "chunked", end: "hang" },
    );
    await launch();
    await shows("ready");
    typeText("long task");
    keys("Enter");
    await shows("thinking hard");
    keys("C-c");
    await shows("⊘ turn cancelled");
    typeText("second");
    keys("Enter");
    await shows("still thinking");
    keys("Escape");
    await waitFor((text) => text.split("⊘ turn cancelled").length === 3, "two cancellations");
    await shows("ready");
    keys("Up");
    await promptIs("second");
    keys("Up");
    await promptIs("long task");
    keys("Down");
    await promptIs("second");
    keys("C-c");
    await promptIs("");
    keys("C-c");
    await shows("Press Ctrl-C again to exit");
    keys("C-c");
    await shows("EXITED 0");
    expect(await readFile(join(chat.sandbox.home, "chat_history"), "utf8")).toBe('"long task"\n"second"\n');
  });

  it("answers slash commands, keeps NO_COLOR output free of escape codes, and takes bracketed pastes", async () => {
    chat.provider.push(textResponse(["**plain** answer"], { input_tokens: 1, output_tokens: 1 }));
    await launch({ NO_COLOR: "1" });
    await shows("ready");
    typeText("hi");
    keys("Enter");
    await shows("plain answer");
    for (const command of ["/usage", "/bogus", "/approvals", "/clear", "/model next-model", "/help"]) {
      typeText(command);
      keys("Enter");
    }
    await shows("Keys: Enter sends");
    // Each command is echoed into the transcript, so the answers go beyond one screen: read the scrollback.
    const text = scrollback();
    expect(text).toContain("this session: 1 in / 1 out");
    expect(text).toContain("unknown command /bogus");
    expect(text).toContain("approval policy: on-risk (default)");
    expect(text).toContain("(conversation cleared)");
    expect(text).toContain("switched to model next-model; the conversation continues");
    expect(screen(true)).not.toContain("\x1b[");
    // A bracketed paste keeps its line breaks in the prompt instead of sending each line.
    chat.provider.push(textResponse(["pasted ok"]));
    tmux("set-buffer", "paste one\npaste two");
    tmux("paste-buffer", "-p");
    await promptIs("paste one");
    keys("Enter");
    await shows("pasted ok");
    expect(chat.provider.requests[1]!.body.input.at(-1)).toEqual({ role: "user", content: "paste one\npaste two" });
    typeText("/exit");
    keys("Enter");
    await shows("EXITED 0");
  });

  it("keeps a 60×20 terminal tidy: no row wider than the terminal in the demo, Ctrl-C stops it cleanly", async () => {
    await launch({ OPENAI_API_KEY: "", SCV_DEMO_PACING: "off" }, {
      args: ["--demo"],
      width: 60,
      height: 20,
      cwd: ROOT,
    });
    await shows("[demo] finished");
    await shows("EXITED 0");
    const all = scrollback();
    expect(all).toContain("[demo] approved automatically");
    expect(all).toContain("ok 3 - README present");
    // Soft-wrapped rows would differ once tmux joins them back.
    expect(scrollback(true)).toBe(all);
    // The bash progress line is not repeated above the output preview.
    expect(all).not.toContain("… ok 1 - greet is exported");
    await killServerAndWait();

    await launch({ OPENAI_API_KEY: "" }, { args: ["--demo"], width: 60, height: 20, cwd: ROOT });
    await shows("› What is this project? Read the README.");
    await shows("Let me read");
    typeText("typed keys");
    keys("C-c");
    const text = await shows("EXITED 130");
    expect(text).toContain("[demo] stopped");
    expect(scrollback()).not.toContain("typed keys");
    expect(scrollback()).not.toContain("Run the tests.");
  });

  it("redraws the prompt cleanly when the terminal is resized", async () => {
    await launch();
    await shows("ready");
    typeText("a long prompt that goes on and on and on and on and on for quite a while longer");
    await shows("for quite");
    // A window dragged: five sizes in one go (one tmux command list, so no output of the chat is drawn between
    // them). The terminal re-wraps the prompt at each; the chat redraws once, at the size the terminal ends with.
    const widths = [50, 70, 100, 45, 30];
    tmux(...widths.flatMap((width, index) => [...(index > 0 ? [";"] : []), "resize-window", "-x", String(width)]));
    // A key typed now is drawn at the new width, from where the terminal's re-wrap left the prompt.
    typeText(" end");
    await waitFor(() => scrollback(true).includes("while longer end"), "the prompt redrawn after resizing");
    await waitFor((text) => text.includes("ready"), "status after resizing");
    const all = scrollback(true);
    expect(promptRows(all)).toEqual([
      "› a long prompt that goes on and on and on and on and on for quite a while longer end",
    ]);
    expect(all.split("\n").filter((row) => row.includes("fake-model · ready"))).toHaveLength(1);
  });

  it("cancels a turn waiting for approval with Ctrl-C, shows provider failures, and keeps long answers whole in scrollback", async () => {
    const long = Array.from({ length: 60 }, (_, index) => `line ${index + 1} of the long answer`);
    const code = [
      "```ts",
      ...Array.from({ length: 30 }, (_, index) => `const value${index} = ${"x".repeat(90)};`),
      "```",
    ];
    chat.provider.push(
      toolCallResponse([{ call_id: "c1", name: "bash", arguments: { command: "echo never; true" } }]),
      { events: [sse.error("model exploded")] },
      { events: [...[...long, ...code].map((row) => sse.textDelta(`${row}\n`)), sse.completed()], mode: "chunked" },
    );
    await launch();
    await shows("ready");
    typeText("needs approval");
    keys("Enter");
    await shows("[a]lways for this session");
    keys("C-c");
    let text = await shows("⊘ turn cancelled");
    expect(text).not.toContain("✓ never");
    await shows("ready");
    typeText("fail please");
    keys("Enter");
    text = await shows("✗ turn failed");
    expect(text).toContain("model exploded");
    await shows("ready");
    typeText("long one");
    keys("Enter");
    await shows("· done in 1 step");
    const all = scrollback();
    const rows = all.split("\n");
    const positions = long.map((row) => rows.indexOf(row));
    expect(
      positions.every((position, index) => position >= 0 && (index === 0 || position === positions[index - 1]! + 1)),
    ).toBe(true);
    expect(all).toContain("  ┌─ ts");
    // Long code lines are cut to the width, never wrapped into the next row.
    expect(rows.filter((row) => row.startsWith("  │ const value")).length).toBe(30);
    expect(scrollback(true)).toBe(all);
  });

  it("queues a prompt typed during a turn and echoes it when its own turn starts", async () => {
    chat.provider.push(
      { events: [sse.textDelta("first "), sse.textDelta("answer\n"), sse.completed()], mode: "chunked", delayMs: 300 },
      textResponse(["second answer"]),
    );
    await launch();
    await shows("ready");
    typeText("one");
    keys("Enter");
    await shows("working");
    typeText("two");
    keys("Enter");
    await shows("(queued at position 1: two)");
    await shows("second answer");
    await shows("ready");
    const rows = scrollback().split("\n");
    const order = ["› one", "first answer", "› two", "second answer"].map((row) => rows.indexOf(row));
    expect(order.every((position, index) => position >= 0 && (index === 0 || position > order[index - 1]!))).toBe(true);
    expect(rows.filter((row) => row === "› two")).toHaveLength(1);
  });

  it("closing the terminal (SIGHUP) ends the chat cleanly: no error, temporary files removed", async () => {
    const tmp = join(chat.sandbox.root, "tmp");
    await mkdir(tmp);
    const script = join(chat.sandbox.root, "script.ndjson");
    await writeFile(
      script,
      [sse.textDelta("never asked"), sse.completed()].map((event) => JSON.stringify(event)).join("\n"),
    );
    await launch({ TMPDIR: tmp }, { args: ["--fake-responses", script] });
    await shows("ready");
    expect((await readdir(tmp)).length).toBeGreaterThan(0);
    tmux("kill-server");
    await waitUntil(async () => (await readdir(tmp)).length === 0, {
      intervalMs: 50,
      what: "the temporary files to go",
    });
    expect(await readdir(tmp)).toEqual([]);
    expect(await readFile(join(chat.sandbox.root, "stderr.txt"), "utf8")).toBe("");
  });

  it("suspends on Ctrl-Z and comes back on fg with the prompt as it was", async () => {
    // An interactive shell with job control runs the launcher script.
    await launch({}, { shell: true });
    keys(`sh '${join(chat.sandbox.root, "run.sh")}'`, "Enter");
    await shows("fake-model · ready");
    typeText("half typed");
    keys("C-z");
    await shows("Stopped");
    keys("echo shell-is-back", "Enter");
    await shows("\nshell-is-back");
    keys("fg", "Enter");
    await promptIs("half typed");
    await shows("fake-model · ready");
  });

  it("--resume without an id offers stored sessions newest first and redraws the one picked", async () => {
    chat.provider.push(
      textResponse(["older answer"]),
      textResponse(["newer answer"]),
      textResponse(["picked up again"]),
    );
    const env = chat.sandbox.env({
      OPENAI_API_KEY: "test-key",
      SCV_BASE_URL: chat.provider.url,
      SCV_MODEL: "fake-model",
    });
    // Spawned asynchronously: the fake provider answers from this process.
    for (const prompt of ["older session", "newer session"]) {
      const child = spawn(process.execPath, [join(ROOT, "main.ts"), "exec", prompt], {
        cwd: chat.sandbox.workspace,
        env,
        stdio: "ignore",
      });
      expect(await new Promise((resolve) => child.once("exit", resolve))).toBe(0);
    }
    await launch({}, { args: ["--resume"] });
    let text = await shows("Type a number to resume it");
    const rows = text.split("\n");
    const newer = rows.findIndex((row) =>
      /^ {2}1 {2}newer session {2}(just now|\dm ago) · 1 turn$/.test(row.trimEnd())
    );
    const older = rows.findIndex((row) =>
      /^ {2}2 {2}older session {2}(just now|\dm ago) · 1 turn$/.test(row.trimEnd())
    );
    expect(newer).toBeGreaterThan(-1);
    expect(older).toBe(newer + 1);
    typeText("2");
    keys("Enter");
    text = await shows("session resumed");
    expect(text).toContain("› older session");
    expect(text).toContain("older answer");
    expect(text).not.toContain("newer answer");
    typeText("and now?");
    keys("Enter");
    await shows("picked up again");
    const input = JSON.stringify(chat.provider.requests[2]!.body.input);
    expect(input).toContain("older answer");
    expect(input).not.toContain("newer session");
  });
});
