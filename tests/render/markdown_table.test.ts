// Markdown tables drawn as boxes: columns aligned by display width (CJK, emoji), cells wrapped to the terminal,
// the delimiter row's alignment honoured, inline markup inside cells, and lines that only look like tables.
import { describe, expect, it } from "vitest";
import { MarkdownRenderer, renderMarkdown } from "../../lib/render/markdown.ts";
import { columnWidths, delimiterRow, tableCells } from "../../lib/render/markdown_table.ts";
import { createStyle, displayWidth, stripAnsi } from "../../lib/render/style.ts";

const plain = createStyle(false);
const color = createStyle(true);

/** The text of each cell of a drawn table row. */
const cellsOf = (row: string) => row.split("│").slice(1, -1).map((cell) => cell.trim());

describe("Markdown tables", () => {
  it("draws header, rule and rows in a box with columns as wide as their widest cell", () => {
    const rows = renderMarkdown("| a | bb |\n|---|---|\n| ccc | d |", plain, 80);
    expect(rows).toEqual([
      "┌─────┬────┐",
      "│ a   │ bb │",
      "├─────┼────┤",
      "│ ccc │ d  │",
      "└─────┴────┘",
    ]);
  });

  it("honours left, center and right alignment from the delimiter row", () => {
    const rows = renderMarkdown("| l | c | r |\n|:--|:-:|--:|\n| x | y | z |\n| long | long | long |", plain, 80);
    const row = rows[3]!;
    expect(row).toBe("│ x    │  y   │    z │");
    expect(delimiterRow("|:--|:-:|--:|---|")).toEqual(["left", "center", "right", "left"]);
  });

  it("counts wide characters and emoji as two columns, so every row has the same width", () => {
    const rows = renderMarkdown(
      "| name | value |\n|---|---|\n| 日本語 | 😀 |\n| ascii | 👩‍💻 and ✅ |\n| 🇯🇵 flag | é |",
      plain,
      80,
    );
    const widths = rows.map((row) => displayWidth(row));
    expect(new Set(widths).size).toBe(1);
    // The border characters of every row line up under the header's.
    const bar = (row: string) => displayWidth(row.slice(0, row.indexOf("│", 1)));
    for (const row of rows.slice(1, -1).filter((row) => row.startsWith("│"))) expect(bar(row)).toBe(bar(rows[1]!));
  });

  it("wraps cells to fit the terminal width, keeping every word", () => {
    const long = "word ".repeat(40).trim();
    const rows = renderMarkdown(`| key | text |\n|---|---|\n| k | ${long} |`, plain, 40);
    for (const row of rows) expect(displayWidth(row)).toBeLessThanOrEqual(40);
    const text = rows.slice(3, -1).map((row) => cellsOf(row)[1]).join(" ").replace(/\s+/g, " ").trim();
    expect(text).toBe(long);
    expect(cellsOf(rows[3]!)[0]).toBe("k");
  });

  it("renders inline markup inside cells: bold and code painted, widths measured without escape codes", () => {
    const rows = renderMarkdown("| a | b |\n|---|---|\n| **bold** | `code` |", color, 80);
    expect(rows[3]).toContain("\x1b[1mbold\x1b[22m");
    expect(rows[3]).toContain("\x1b[36mcode\x1b[39m");
    expect(stripAnsi(rows[3]!)).toBe("│ bold │ code │");
    for (const row of renderMarkdown("| a | b |\n|---|---|\n| **bold** | `code` |", plain, 80))
      expect(row).not.toContain("\x1b");
  });

  it("keeps escaped pipes in their cell and fills short rows", () => {
    expect(tableCells("| a \\| b | c |")).toEqual(["a | b", "c"]);
    expect(tableCells("a | b")).toEqual(["a", "b"]);
    const rows = renderMarkdown("| a | b |\n|---|---|\n| only |", plain, 80);
    expect(cellsOf(rows[3]!)).toEqual(["only", ""]);
  });

  it("leaves a line with a pipe alone when no delimiter row follows", () => {
    expect(renderMarkdown("a | b is a pipe\nnext line", plain, 80)).toEqual(["a | b is a pipe", "next line"]);
    // A delimiter with the wrong number of columns is no table either.
    expect(renderMarkdown("| a | b |\n|---|\ntext", plain, 80)).toEqual(["| a | b |", "|---|", "text"]);
  });

  it("holds the table back while it streams and draws it when a line that is no row arrives", () => {
    const renderer = new MarkdownRenderer(plain, 80);
    expect(renderer.line("| a | b |")).toEqual([]);
    expect(renderer.line("|---|---|")).toEqual([]);
    expect(renderer.line("| 1 | 2 |")).toEqual([]);
    expect(renderer.pending).toEqual(["| a | b |", "|---|---|", "| 1 | 2 |"]);
    const rows = renderer.line("done");
    expect(rows.at(-1)).toBe("done");
    expect(rows.slice(0, -1).map(cellsOf).filter((cells) => cells.length > 0)).toEqual([["a", "b"], ["1", "2"]]);
    // A table left open at the end of a message is drawn by finish().
    expect(renderer.line("| x | y |")).toEqual([]);
    expect(renderer.line("|--|--|")).toEqual([]);
    expect(renderer.finish()).toHaveLength(4);
  });

  it("shares the width fairly: narrow columns keep theirs, wide ones split the rest", () => {
    expect(columnWidths([3, 50, 50], 43)).toEqual([3, 20, 20]);
    expect(columnWidths([3, 4], 43)).toEqual([3, 4]);
    const widths = columnWidths([10, 80, 5], 30);
    expect(widths.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(30);
    expect(widths[2]).toBe(5);
  });

  it("lists the cells as header: value rows when the columns cannot fit the terminal", () => {
    const header = Array.from({ length: 8 }, (_, index) => `h${index}`);
    const row = Array.from({ length: 8 }, (_, index) => `v${index}`);
    const source = `| ${header.join(" | ")} |\n|${"---|".repeat(8)}\n| ${row.join(" | ")} |\n| ${row.join(" | ")} |`;
    const rows = renderMarkdown(source, plain, 40);
    for (const line of rows) expect(displayWidth(line)).toBeLessThanOrEqual(40);
    expect(rows.slice(0, 8)).toEqual(header.map((name, index) => `${name}: v${index}`));
    expect(rows[8]).toBe("─".repeat(20));
    expect(rows).toHaveLength(17);
  });
});
