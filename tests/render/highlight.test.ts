// Syntax highlighting of fenced code: the token kinds per language, state carried across lines, and code blocks
// that keep their text exactly (with or without colour).
import { describe, expect, it } from "vitest";
import { highlighterFor, type Token } from "../../lib/render/highlight.ts";
import { renderMarkdown } from "../../lib/render/markdown.ts";
import { createStyle, stripAnsi } from "../../lib/render/style.ts";

const kinds = (tokens: Token[]) => tokens.filter((t) => t.kind !== "plain").map((t) => [t.kind, t.text]);

describe("syntax highlighting", () => {
  it("finds keywords, types, strings, numbers and comments in TypeScript", () => {
    const h = highlighterFor("ts")!;
    expect(kinds(h.line('const n: number = 0x1f; // note "x"'))).toEqual([
      ["keyword", "const"],
      ["type", "number"],
      ["number", "0x1f"],
      ["comment", '// note "x"'],
    ]);
    expect(kinds(h.line('return "a\\"b" + obj.return;'))).toEqual([["keyword", "return"], ["string", '"a\\"b"']]);
  });

  it("carries block comments and multi-line strings from line to line", () => {
    const ts = highlighterFor("typescript")!;
    expect(kinds(ts.line("x /* start"))).toEqual([["comment", "/* start"]]);
    expect(kinds(ts.line("if still */ if"))).toEqual([["comment", "if still */"], ["keyword", "if"]]);
    const py = highlighterFor("python")!;
    expect(kinds(py.line('doc = """first'))).toEqual([["string", '"""first']]);
    // A preview of an unfinished line leaves the state alone.
    expect(kinds(py.line("def not_code", false))).toEqual([["string", "def not_code"]]);
    expect(kinds(py.line('end""" and None'))).toEqual([["string", 'end"""'], ["keyword", "and"], ["constant", "None"]]);
  });

  it("knows Python, Rust, Go, shell and JSON", () => {
    expect(kinds(highlighterFor("py")!.line("def f(x): return True  # c"))).toEqual([
      ["keyword", "def"],
      ["keyword", "return"],
      ["constant", "True"],
      ["comment", "# c"],
    ]);
    expect(kinds(highlighterFor("rust")!.line("fn main() -> Result<u8, Error> { let s = 1.5; }"))).toEqual([
      ["keyword", "fn"],
      ["type", "Result"],
      ["type", "u8"],
      ["type", "Error"],
      ["keyword", "let"],
      ["number", "1.5"],
    ]);
    expect(kinds(highlighterFor("go")!.line("func main() { var err error = nil }"))).toEqual([
      ["keyword", "func"],
      ["keyword", "var"],
      ["type", "error"],
      ["constant", "nil"],
    ]);
    expect(kinds(highlighterFor("bash")!.line('if [ -n "$HOME" ]; then echo ${#x} $1; fi # done'))).toEqual([
      ["keyword", "if"],
      ["string", '"$HOME"'],
      ["keyword", "then"],
      ["variable", "${#x}"],
      ["variable", "$1"],
      ["keyword", "fi"],
      ["comment", "# done"],
    ]);
    expect(kinds(highlighterFor("json")!.line('{"key": "value", "n": -1.5e3, "ok": true}'))).toEqual([
      ["key", '"key"'],
      ["string", '"value"'],
      ["key", '"n"'],
      ["number", "1.5e3"],
      ["key", '"ok"'],
      ["constant", "true"],
    ]);
  });

  it("colours diff lines by their first character", () => {
    const d = highlighterFor("diff")!;
    expect(["--- a", "+++ b", "@@ -1 +1 @@", "-old", "+new", " same"].map((l) => d.line(l)[0]!.kind)).toEqual([
      "header",
      "header",
      "hunk",
      "removed",
      "added",
      "plain",
    ]);
  });

  it("has no highlighter for unknown languages", () => {
    expect(highlighterFor("brainfuck")).toBeUndefined();
    expect(highlighterFor("")).toBeUndefined();
  });

  it("paints code blocks in colour and keeps their text exactly; no escape codes without colour", () => {
    const source = '```ts\nconst a = "x"; // c\n  if (a) return 1;\n```';
    const colored = renderMarkdown(source, createStyle(true), 80);
    expect(colored[1]).toContain("\x1b[35mconst\x1b[39m");
    expect(colored[1]).toContain('\x1b[32m"x"\x1b[39m');
    const plainRows = renderMarkdown(source, createStyle(false), 80);
    expect(plainRows).toEqual(["  ┌─ ts", '  │ const a = "x"; // c', "  │   if (a) return 1;", "  └─"]);
    expect(colored.map(stripAnsi)).toEqual(plainRows);
  });

  it("cuts a highlighted line wider than the terminal without losing a character", () => {
    const line = `const value = ${'"abcdefghij" + '.repeat(6)}1;`;
    const rows = renderMarkdown("```js\n" + line + "\n```", createStyle(true), 30).slice(1, -1);
    expect(rows.length).toBeGreaterThan(1);
    expect(rows.map((row) => stripAnsi(row).slice(4)).join("")).toBe(line);
  });
});
