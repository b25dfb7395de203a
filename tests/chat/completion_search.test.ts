// Tab completes slash commands and Ctrl-R searches the prompt history: the editor's rules, then the real chat on a
// fake terminal with a history file.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { KeyReader, parseKeys } from "../../lib/chat/keys.ts";
import { LineEditor } from "../../lib/chat/line_editor.ts";
import { SLASH_COMMANDS } from "../../lib/chat/slash.ts";
import { type ConfigSandbox, createConfigSandbox } from "../support/config_files.ts";
import { type FakeProvider, startFakeProvider, textResponse } from "../support/fake_provider.ts";
import { fakeTerminal, startChat } from "./fake_terminal.ts";

const COMMANDS = SLASH_COMMANDS.map((command) => command.name);

function type(editor: LineEditor, data: string) {
  return parseKeys(data).map((key) => editor.handle(key));
}

describe("Tab completion", () => {
  it("completes a unique prefix with a space for the argument", () => {
    const editor = new LineEditor([], COMMANDS);
    type(editor, "/mo\t");
    expect(editor.text).toBe("/model ");
    expect(editor.cursor).toBe(editor.text.length);
    const upper = new LineEditor([], COMMANDS);
    type(upper, "/AP\t");
    expect(upper.text).toBe("/approvals ");
  });

  it("lists the candidates of an ambiguous prefix and completes what they share", () => {
    const editor = new LineEditor([], ["resume", "reset", "help"]);
    expect(type(editor, "/r\t").at(-1)).toEqual({ type: "candidates", names: ["resume", "reset"] });
    expect(editor.text).toBe("/res");
    const all = new LineEditor([], COMMANDS);
    expect(type(all, "/\t").at(-1)).toEqual({ type: "candidates", names: COMMANDS });
  });

  it("does nothing for an unknown prefix and types spaces outside a command name", () => {
    const editor = new LineEditor([], COMMANDS);
    expect(type(editor, "/zz\t").at(-1)).toEqual({ type: "none" });
    expect(editor.text).toBe("/zz");
    const prose = new LineEditor([], COMMANDS);
    type(prose, "a\tb");
    expect(prose.text).toBe("a  b");
    const argument = new LineEditor([], COMMANDS);
    type(argument, "/model gp\t");
    expect(argument.text).toBe("/model gp  ");
    // A typed Tab is a key; in a bracketed paste a tab stays text and never completes.
    expect(parseKeys("\t")).toEqual([{ name: "tab" }]);
    expect(new KeyReader().feed("\x1b[200~/mo\tx\x1b[201~")).toEqual([{ name: "text", text: "/mo  x" }]);
  });
});

describe("Ctrl-R history search", () => {
  const history = ["fix the parser", "run the tests", "fix the tests", "deploy"];

  it("finds the newest entry containing the query, older ones on Ctrl-R, and Enter takes it", () => {
    const editor = new LineEditor(history);
    type(editor, "draft\x12");
    expect(editor.search).toEqual({ query: "", match: undefined });
    type(editor, "fix");
    expect(editor.search).toEqual({ query: "fix", match: "fix the tests" });
    type(editor, "\x12");
    expect(editor.search?.match).toBe("fix the parser");
    // No older match: it stays on the last one found.
    type(editor, "\x12");
    expect(editor.search?.match).toBe("fix the parser");
    // Enter takes the match into the prompt; it is not sent.
    const [action] = type(editor, "\r");
    expect(action).toEqual({ type: "changed" });
    expect(editor.search).toBeUndefined();
    expect(editor.text).toBe("fix the parser");
    expect(type(editor, "\r")).toEqual([{ type: "submit", text: "fix the parser" }]);
  });

  it("is incremental: more letters narrow, backspace widens, case is ignored", () => {
    const editor = new LineEditor(history);
    type(editor, "\x12TESTS");
    expect(editor.search?.match).toBe("fix the tests");
    type(editor, " x");
    expect(editor.search).toEqual({ query: "TESTS x", match: undefined });
    type(editor, "\x7f\x7f");
    expect(editor.search?.match).toBe("fix the tests");
  });

  it("Esc and Ctrl-G cancel and give back what was typed", () => {
    for (const cancel of ["\x1b", "\x07"]) {
      const editor = new LineEditor(history);
      type(editor, "my draft\x12dep");
      expect(editor.search?.match).toBe("deploy");
      type(editor, cancel);
      expect(editor.search).toBeUndefined();
      expect(editor.text).toBe("my draft");
    }
  });

  it("any other key takes the match and then acts in the prompt", () => {
    const editor = new LineEditor(history);
    type(editor, "\x12run\x1b[D");
    expect(editor.text).toBe("run the tests");
    expect(editor.cursor).toBe("run the test".length);
  });
});

describe("completion and search in the chat", () => {
  let sandbox: ConfigSandbox;
  let provider: FakeProvider;
  let dir = "";
  beforeEach(async () => {
    sandbox = await createConfigSandbox();
    provider = await startFakeProvider();
    dir = await mkdtemp(join(tmpdir(), "scv-search-"));
  });
  afterEach(async () => {
    await provider.close();
    await sandbox.cleanup();
    await rm(dir, { recursive: true, force: true });
  });

  it("Tab shows the candidates and completes; Ctrl-R recalls a stored prompt that Enter then sends", async () => {
    const historyPath = join(dir, "chat_history");
    await writeFile(historyPath, '"explain the build script"\n"list the tests"\n');
    provider.push(textResponse(["explained"]));
    const term = fakeTerminal();
    const { app, running } = startChat(term, sandbox, provider, { historyPath, color: false });
    await term.seen("ready");
    term.input.write("/");
    await term.settle();
    term.input.write("\t");
    await term.seen("/help  /model  /clear");
    term.input.write("\x15/us");
    await term.settle();
    term.input.write("\t");
    await term.seen("› /usage ");
    term.input.write("\r");
    await term.seen("last turn: no turn yet");
    term.input.write("\x12");
    await term.settle();
    term.input.write("build");
    await term.seen("search history: build  → explain the build script");
    term.input.write("\r");
    await term.seen("› explain the build script");
    term.input.write("\r");
    await term.seen("explained");
    expect(provider.requests[0]!.body.input.at(-1)).toEqual({ role: "user", content: "explain the build script" });
    app.stop(0);
    expect(await running).toBe(0);
  });
  it("Tab completes the session's custom commands too, and Enter runs one (issue 30)", async () => {
    const commands = join(sandbox.workspace, ".scv", "commands");
    await mkdir(commands, { recursive: true });
    await writeFile(join(commands, "review-pr.md"), "Review pull request $1 carefully.\n");
    provider.push(textResponse(["reviewed"]));
    const term = fakeTerminal();
    const { app, running } = startChat(term, sandbox, provider, { color: false });
    await term.seen("ready");
    term.input.write("/review");
    await term.settle();
    term.input.write("\t");
    await term.seen("› /review-pr ");
    term.input.write("42\r");
    await term.seen("reviewed");
    expect(provider.requests[0]!.body.input.at(-1)).toEqual({
      role: "user",
      content: "Review pull request 42 carefully.\n",
    });
    app.stop(0);
    expect(await running).toBe(0);
  });
});
