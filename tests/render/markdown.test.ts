import { describe, expect, it } from "vitest";
import { MarkdownRenderer, renderMarkdown } from "../../lib/render/markdown.ts";
import { createStyle, displayWidth, stripAnsi } from "../../lib/render/style.ts";

const plain = createStyle(false);
const color = createStyle(true);
const ESC = "\x1b";

describe("Markdown renderer", () => {
  it("renders headings with an underline for levels 1 and 2 and no hashes", () => {
    const rows = renderMarkdown("# Title\n## Sub\n### Small", plain, 80);
    expect(rows).toEqual(["Title", "═════", "Sub", "───", "Small"]);
  });

  it("renders bullet and ordered lists, nested bullets indented", () => {
    const rows = renderMarkdown("- one\n  - inner\n* two\n1. first\n2) second", plain, 80);
    expect(rows).toEqual(["  • one", "    ◦ inner", "  • two", "  1. first", "  2) second"]);
  });

  it("renders fenced code blocks with their language and keeps code verbatim", () => {
    const rows = renderMarkdown("```ts\nconst a = `x` **y**;\n  indented\n```\nafter", plain, 80);
    expect(rows).toEqual(["  ┌─ ts", "  │ const a = `x` **y**;", "  │   indented", "  └─", "after"]);
  });

  it("closes a code block left open at the end of a message", () => {
    expect(renderMarkdown("~~~\ncode", plain, 80)).toEqual(["  ┌─", "  │ code", "  └─"]);
  });

  it("keeps inline code backticks and shows link URLs without colour", () => {
    const [row] = renderMarkdown(
      "Use `npm test`, **bold**, *it* and [docs](https://example.org/a) or <https://b.example>",
      plain,
      120,
    );
    expect(row).toBe("Use `npm test`, bold, it and docs (https://example.org/a) or https://b.example");
  });

  it("emits no escape codes at all without colour", () => {
    const text = "# H\n- `a` [l](u)\n> quote\n---\n```py\nx\n```";
    for (const row of renderMarkdown(text, plain, 80)) expect(row).not.toContain(ESC);
  });

  it("styles inline code, bold and links with ANSI codes when colour is on", () => {
    const [row] = renderMarkdown("Run `ls` **now** [site](https://s.example)", color, 80);
    expect(row).toContain(`${ESC}[36mls${ESC}[39m`);
    expect(row).toContain(`${ESC}[1mnow${ESC}[22m`);
    expect(row).toContain(`${ESC}[4m`);
    expect(stripAnsi(row!)).toBe("Run ls now site (https://s.example)");
  });

  it("word-wraps paragraphs and list items to the width with a hanging indent", () => {
    const text = "- " + "word ".repeat(30).trim();
    const rows = renderMarkdown(text, plain, 40);
    expect(rows.length).toBeGreaterThan(1);
    for (const row of rows) expect(displayWidth(row)).toBeLessThanOrEqual(40);
    expect(rows[0]!.startsWith("  • word")).toBe(true);
    expect(rows[1]!.startsWith("    word")).toBe(true);
    expect(rows.join(" ").replace(/[•\s]+/g, " ").trim()).toBe("word ".repeat(30).trim());
  });

  it("cuts code lines wider than the terminal into rows with a dotted gutter", () => {
    const rows = renderMarkdown("```\n" + "y".repeat(40) + "\n```", plain, 20);
    expect(rows).toEqual(["  ┌─", "  │ " + "y".repeat(16), "  ┆ " + "y".repeat(16), "  ┆ " + "y".repeat(8), "  └─"]);
    for (const row of rows) expect(displayWidth(row)).toBeLessThanOrEqual(20);
  });

  it("hard-splits a word longer than the row", () => {
    const rows = renderMarkdown("x".repeat(50), plain, 20);
    expect(rows).toEqual(["x".repeat(20), "x".repeat(20), "x".repeat(10)]);
  });

  it("renders quotes and rules", () => {
    expect(renderMarkdown("> said\n***", plain, 80)).toEqual(["│ said", "─".repeat(40)]);
  });

  it("is fed line by line while streaming and tracks open code blocks", () => {
    const renderer = new MarkdownRenderer(plain, 80);
    expect(renderer.line("```sh")).toEqual(["  ┌─ sh"]);
    expect(renderer.inCodeBlock).toBe(true);
    expect(renderer.line("# not a heading")).toEqual(["  │ # not a heading"]);
    expect(renderer.line("```")).toEqual(["  └─"]);
    expect(renderer.inCodeBlock).toBe(false);
    expect(renderer.finish()).toEqual([]);
  });
});
