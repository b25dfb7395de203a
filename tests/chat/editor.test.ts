import { describe, expect, it } from "vitest";
import { type Key, parseKeys } from "../../lib/chat/keys.ts";
import { LineEditor } from "../../lib/chat/line_editor.ts";

function type(editor: LineEditor, data: string, busy = false) {
  return parseKeys(data).map((key) => editor.handle(key, busy));
}

describe("key parser", () => {
  it("keeps printable runs together and names control keys", () => {
    expect(parseKeys("ab\r")).toEqual([{ name: "text", text: "ab" }, { name: "enter" }]);
    expect(parseKeys("\n\x7f\x03\x04")).toEqual([{ name: "newline" }, { name: "backspace" }, { name: "ctrl-c" }, {
      name: "ctrl-d",
    }]);
    expect(parseKeys("\x1b[A\x1b[B\x1bOC\x1b[D\x1b[3~\x1b[H\x1b[F")).toEqual(
      ["up", "down", "right", "left", "delete", "home", "end"].map((name) => ({ name }) as Key),
    );
    expect(parseKeys("\x1b")).toEqual([{ name: "escape" }]);
    expect(parseKeys("\x1a")).toEqual([{ name: "suspend" }]);
    expect(parseKeys("\x1b[1;5A")).toEqual([{ name: "up" }]);
    expect(parseKeys("\x1b[999Zx")).toEqual([{ name: "text", text: "x" }]);
    // Unknown escape sequences are dropped whole; an Esc before anything else stays an Esc.
    expect(parseKeys("\x1b\x1b")).toEqual([{ name: "escape" }, { name: "escape" }]);
    expect(parseKeys("\x1bx")).toEqual([{ name: "escape" }, { name: "text", text: "x" }]);
    expect(parseKeys("\x1b\r")).toEqual([{ name: "newline" }]);
  });
});

describe("line editor", () => {
  it("inserts, moves and deletes by code point", () => {
    const editor = new LineEditor();
    type(editor, "héllo😀");
    expect(editor.text).toBe("héllo😀");
    type(editor, "\x1b[D\x7f");
    expect(editor.text).toBe("héll😀");
    type(editor, "\x1b[H\x1b[3~X");
    expect(editor.text).toBe("Xéll😀");
    type(editor, "\x05!");
    expect(editor.text).toBe("Xéll😀!");
  });

  it("submits on Enter, ignores blank input, and Ctrl-J makes multi-line prompts", () => {
    const editor = new LineEditor();
    expect(type(editor, "   \r").at(-1)).toEqual({ type: "none" });
    const actions = type(editor, "line one\nline two\r");
    expect(actions.at(-1)).toEqual({ type: "submit", text: "   line one\nline two" });
    expect(editor.text).toBe("");
  });

  it("browses history with up/down and restores the draft", () => {
    const editor = new LineEditor(["first", "second"]);
    type(editor, "draft");
    type(editor, "\x1b[A");
    expect(editor.text).toBe("second");
    type(editor, "\x1b[A\x1b[A");
    expect(editor.text).toBe("first");
    type(editor, "\x1b[B\x1b[B");
    expect(editor.text).toBe("draft");
    type(editor, "\r");
    expect(editor.history).toEqual(["first", "second", "draft"]);
  });

  it("moves between lines of a multi-line prompt before browsing history", () => {
    const editor = new LineEditor(["old"]);
    type(editor, "abc\nde");
    type(editor, "\x1b[A");
    expect(editor.text).toBe("abc\nde");
    expect(editor.cursor).toBe(2);
    type(editor, "\x1b[A");
    expect(editor.text).toBe("old");
  });

  it("Ctrl-C cancels a running turn, clears text, and exits only on a second press at an empty prompt", () => {
    const editor = new LineEditor();
    type(editor, "typed");
    expect(type(editor, "\x03", true)).toEqual([{ type: "cancel-turn" }]);
    expect(type(editor, "\x1b", true)).toEqual([{ type: "cancel-turn" }]);
    expect(type(editor, "\x03")).toEqual([{ type: "changed" }]);
    expect(editor.text).toBe("");
    expect(type(editor, "\x03")).toEqual([{ type: "exit-hint" }]);
    type(editor, "x\x7f");
    expect(type(editor, "\x03")).toEqual([{ type: "exit-hint" }]);
    expect(type(editor, "\x03")).toEqual([{ type: "exit" }]);
  });

  it("kills words and line halves", () => {
    const editor = new LineEditor();
    type(editor, "one two three\x17");
    expect(editor.text).toBe("one two ");
    type(editor, "\x01\x0b");
    expect(editor.text).toBe("");
    type(editor, "abc\x1b[D\x15");
    expect(editor.text).toBe("c");
  });

  it("Ctrl-D exits at an empty prompt", () => {
    expect(type(new LineEditor(), "\x04")).toEqual([{ type: "exit" }]);
  });
});

describe("bracketed paste", () => {
  it("turns a paste spanning chunks into one text key with its line breaks", async () => {
    const { KeyReader } = await import("../../lib/chat/keys.ts");
    const reader = new KeyReader();
    expect(reader.feed("a\x1b[200~line 1\r")).toEqual([{ name: "text", text: "a" }]);
    expect(reader.feed("line 2\x1b[201~\r")).toEqual([{ name: "text", text: "line 1\nline 2" }, { name: "enter" }]);
    const editor = new LineEditor();
    for (const key of reader.feed("\x1b[200~x\ry\x1b[201~")) editor.handle(key);
    expect(editor.text).toBe("x\ny");
  });
});
