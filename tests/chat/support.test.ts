import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { capHistory, loadHistory, saveHistory } from "../../lib/chat/history_file.ts";
import { parseReplayScript, type ReplayServer, startReplayServer } from "../../lib/embed/replay.ts";
import { InlineScreen } from "../../lib/chat/screen.ts";
import { parseSlash } from "../../lib/chat/slash.ts";
import { colorEnabled } from "../../lib/render/style.ts";

describe("slash commands", () => {
  it("parses names and arguments; plain prompts are not commands", () => {
    expect(parseSlash("/model gpt-x")).toEqual({ name: "model", argument: "gpt-x" });
    expect(parseSlash("  /HELP ")).toEqual({ name: "help", argument: "" });
    expect(parseSlash("/quit")).toEqual({ name: "exit", argument: "" });
    expect(parseSlash("fix /tmp paths")).toBeUndefined();
    expect(parseSlash("//comment")).toBeUndefined();
    // A pasted absolute path is a prompt (or a staged image), never an unknown command.
    expect(parseSlash("/home/me/shot.png")).toBeUndefined();
    expect(parseSlash("/home/me/notes.txt what is this")).toBeUndefined();
    expect(parseSlash("/image /home/me/shot.png")).toEqual({ name: "image", argument: "/home/me/shot.png" });
  });
});

describe("colour decision", () => {
  it("honours NO_COLOR, TERM=dumb and non-TTY output", () => {
    expect(colorEnabled({}, true)).toBe(true);
    expect(colorEnabled({ NO_COLOR: "1" }, true)).toBe(false);
    expect(colorEnabled({ NO_COLOR: "" }, true)).toBe(true);
    expect(colorEnabled({ TERM: "dumb" }, true)).toBe(false);
    expect(colorEnabled({}, false)).toBe(false);
  });
});

describe("prompt history file", () => {
  let dir = "";
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("round-trips multi-line prompts, caps items and bytes, and is private", async () => {
    dir = await mkdtemp(join(tmpdir(), "scv-history-"));
    const path = join(dir, "home", "chat_history");
    await saveHistory(path, ["one", "two\nlines", "three"], { maxItems: 2, maxBytes: 1000 });
    expect(await loadHistory(path)).toEqual(["two\nlines", "three"]);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(await readFile(path, "utf8")).toBe('"two\\nlines"\n"three"\n');
    expect(capHistory(["aaaa", "bb"], { maxItems: 10, maxBytes: 6 })).toEqual(["bb"]);
    expect(await loadHistory(join(dir, "missing"))).toEqual([]);
  });
});

describe("replay scripts", () => {
  let server: ReplayServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("reads JSON objects, bare arrays and NDJSON split at terminal events", () => {
    const delta = { type: "response.output_text.delta", delta: "hi" };
    const done = { type: "response.completed", response: {} };
    expect(parseReplayScript(JSON.stringify({ prompts: ["p"], responses: [[delta, done]] }))).toEqual({
      prompts: ["p"],
      responses: [{ events: [delta, done] }],
      delayMs: undefined,
    });
    expect(parseReplayScript(JSON.stringify([{ events: [done], delay_ms: 5 }])).responses).toEqual([{
      events: [done],
      delayMs: 5,
    }]);
    const ndjson = [delta, done, { type: "error", error: { message: "x" } }].map((e) => JSON.stringify(e)).join("\n");
    expect(parseReplayScript(ndjson).responses.map((r) => r.events.length)).toEqual([2, 1]);
    expect(() => parseReplayScript('{"model":5,"responses":[]}')).toThrow('"model" must be a string');
    expect(() => parseReplayScript('{"responses":[[{"no":"type"}]]}')).toThrow(
      /response 1 must be a list of SSE event objects/,
    );
    expect(() => parseReplayScript("{bad\n")).toThrow(/line 1 is not JSON/);
  });

  it("serves one scripted response per request over real HTTP, skipping ones whose tool condition fails", async () => {
    const text = (
      t: string,
    ) => [{ type: "response.output_text.delta", delta: t }, { type: "response.completed", response: {} }];
    server = await startReplayServer({
      prompts: [],
      responses: [
        { events: text("needs exec"), requiresTool: "exec" },
        { events: text("no exec"), unlessTool: "exec" },
        { events: text("second") },
      ],
    });
    const post = (body: unknown) =>
      fetch(`${server!.url}/responses`, {
        method: "POST",
        body: JSON.stringify(body),
        headers: { "content-type": "application/json" },
      });
    const first = await post({ tools: [{ type: "function", name: "read" }] });
    expect(first.headers.get("content-type")).toBe("text/event-stream");
    const body = await first.text();
    expect(body).toContain(
      'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","delta":"no exec"}\n\n',
    );
    expect(await (await post({})).text()).toContain('"second"');
    const exhausted = await post({});
    expect(exhausted.status).toBe(400);
    expect(await exhausted.text()).toContain("replay script has no response left");
    expect((await fetch(`${server.url}/chat/completions`, { method: "POST", body: "{}" })).status).toBe(404);
  });
});

describe("inline screen", () => {
  it("redraws the live region in place: back to its top, clear below, then commits and the new region", () => {
    let written = "";
    const out = { write: (text: string) => ((written += text), true) } as unknown as NodeJS.WritableStream;
    const screen = new InlineScreen(out, () => 10);
    screen.draw([], { rows: ["› ab", "status"], cursorRow: 0, cursorColumn: 4 });
    expect(written).toBe("\x1b[?25l› ab\nstatus\x1b[1A\r\x1b[4C\x1b[?25h");
    written = "";
    // A 12-column row wraps in a 10-column terminal: the cursor on its second physical row is 2 rows down.
    screen.draw(["done"], { rows: ["x".repeat(12), "s"], cursorRow: 0, cursorColumn: 12 });
    expect(written).toBe(`\x1b[?25l\r\x1b[J` + `done\n${"x".repeat(12)}\ns\x1b[1A\r\x1b[2C\x1b[?25h`);
    written = "";
    screen.close();
    expect(written).toBe("\x1b[?25l\r\x1b[1A\x1b[J\x1b[?25h");
  });

  it("finds the top of the live region again after the terminal re-wraps it to a new width", () => {
    let written = "";
    let columns = 80;
    const out = { write: (text: string) => ((written += text), true) } as unknown as NodeJS.WritableStream;
    const screen = new InlineScreen(out, () => columns);
    const prompt = `› ${"x".repeat(70)}`;
    screen.draw([], { rows: [prompt, "status"], cursorRow: 0, cursorColumn: 72 });
    written = "";
    columns = 40;
    // At 40 columns the 72-column prompt takes two rows and the cursor sits on the second one.
    screen.draw([], { rows: [prompt, "status"], cursorRow: 0, cursorColumn: 72 });
    expect(written.startsWith("\x1b[?25l\r\x1b[1A\x1b[J")).toBe(true);
    written = "";
    columns = 100;
    screen.draw([], { rows: ["a", prompt, "status"], cursorRow: 2, cursorColumn: 6 });
    written = "";
    columns = 30;
    // "a" (1 row) + the prompt re-wrapped to 30 columns (3 rows) above the status row.
    screen.draw([], { rows: ["a"], cursorRow: 0, cursorColumn: 1 });
    expect(written.startsWith("\x1b[?25l\r\x1b[4A\x1b[J")).toBe(true);
  });
});
