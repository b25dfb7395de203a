// A small line-by-line Markdown renderer for the terminal: headings, lists, block quotes, rules, tables, fenced
// code blocks with their language (highlighted when it is a known one), inline code, emphasis and links. It is fed
// one complete source line at a time, so streamed text can be rendered as soon as each line ends; a table is
// drawn once its last row has arrived (its column widths depend on every row).
// Without colour it emits no escape codes: inline code keeps its backticks, links show their URL.
import { highlighterFor, type LineHighlighter, type TokenKind } from "./highlight.ts";
import { cutSegments, parseInline, repaint, type Segment, stableInlineEnd, wrapSegments } from "./markdown_inline.ts";
import { type Align, delimiterRow, renderTable, tableCells } from "./markdown_table.ts";
import { displayWidth, type Paint, type Style } from "./style.ts";

export { parseInline } from "./markdown_inline.ts";

const FENCE = /^(\s*)(`{3,}|~{3,})\s*([^`\s]*)?.*$/;
const HEADING = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const RULE = /^\s{0,3}([-*_])(\s*\1){2,}\s*$/;
const BULLET = /^(\s*)([-*+])\s+(.*)$/;
const ORDERED = /^(\s*)(\d{1,9})([.)])\s+(.*)$/;
const QUOTE = /^\s{0,3}>\s?(.*)$/;

type Fence = { marker: string; indent: number; highlighter: LineHighlighter | undefined };
type Table = { aligns: Align[]; rows: Segment[][][]; source: string[] };

export class MarkdownRenderer {
  #style: Style;
  #width: number;
  #fence: Fence | undefined;
  /** A line that may be a table's header: it is one if the next line is a delimiter row. */
  #header: string | undefined;
  #table: Table | undefined;

  constructor(style: Style, width: number) {
    this.#style = style;
    this.#width = Math.max(20, width);
  }

  /** Rows rendered from now on fit `width` (after a terminal resize). */
  setWidth(width: number): void {
    this.#width = Math.max(20, width);
  }

  get inCodeBlock(): boolean {
    return this.#fence !== undefined;
  }

  /** Source lines held back until it is known whether (or how) they form a table. */
  get pending(): string[] {
    if (this.#table) return this.#table.source;
    return this.#header === undefined ? [] : [this.#header];
  }

  /**
   * Rendered rows for one source line (without its newline). `streamed`: rows of this line were already shown
   * from a preview, so it is rendered as the preview was and cannot start a table.
   */
  line(source: string, streamed = false): string[] {
    if (this.#fence) return this.#fenced(source, true);
    if (this.#header !== undefined) {
      const header = this.#header;
      this.#header = undefined;
      const cells = tableCells(header)!;
      const aligns = delimiterRow(source);
      if (aligns && aligns.length === cells.length) {
        this.#table = { aligns, rows: [this.#cells(cells)], source: [header, source] };
        return [];
      }
      return [...this.#block(header), ...this.line(source, streamed)];
    }
    if (this.#table) {
      const cells = source.trim() === "" ? undefined : tableCells(source);
      if (cells) {
        this.#table.rows.push(this.#cells(cells));
        this.#table.source.push(source);
        return [];
      }
      return [...this.#endTable(), ...this.line(source, streamed)];
    }
    const fence = FENCE.exec(source);
    if (fence) {
      const language = fence[3] ?? "";
      this.#fence = { marker: fence[2]!, indent: fence[1]!.length, highlighter: highlighterFor(language) };
      return [this.#style.dim(`  ┌─${language ? ` ${language}` : ""}`)];
    }
    if (!streamed && mayStartTable(source)) {
      this.#header = source;
      return [];
    }
    return this.#block(source);
  }

  /**
   * The rows `source` would render to if it were a whole line, without changing any state, and how many of them
   * are final (the rest of the line cannot change them); undefined when that cannot be known before the line
   * ends (a table, a fence line, a heading, a rule).
   */
  preview(source: string): { rows: string[]; final: number } | undefined {
    if (this.#header !== undefined || this.#table) return undefined;
    if (FENCE.test(source)) return undefined;
    if (this.#fence) {
      const rows = this.#fenced(source, false);
      return { rows, final: rows.length - 1 };
    }
    if (/^\s*(\||#)/.test(source) || RULE.test(source)) return undefined;
    const rows = this.#block(source);
    const match = QUOTE.exec(source) ?? BULLET.exec(source) ?? ORDERED.exec(source);
    const content = match ? source.length - match.at(-1)!.length : leadingSpaces(source);
    const cut = content + stableInlineEnd(source.slice(content));
    if (cut >= source.length) return { rows, final: rows.length - 1 };
    const stable = this.#block(source.slice(0, cut));
    return { rows, final: Math.max(0, Math.min(rows.length, stable.length) - 1) };
  }

  /** Rows that close whatever block is still open at the end of a message. */
  finish(): string[] {
    const rows: string[] = [];
    if (this.#header !== undefined) {
      const header = this.#header;
      this.#header = undefined;
      rows.push(...this.#block(header));
    }
    if (this.#table) rows.push(...this.#endTable());
    if (this.#fence) {
      this.#fence = undefined;
      rows.push(this.#style.dim("  └─"));
    }
    return rows;
  }

  #cells(cells: string[]): Segment[][] {
    return cells.map((cell) => parseInline(cell, this.#style));
  }

  #endTable(): string[] {
    const table = this.#table!;
    this.#table = undefined;
    return renderTable(table.rows, table.aligns, this.#style, this.#width);
  }

  #fenced(source: string, advance: boolean): string[] {
    const s = this.#style;
    const fence = this.#fence!;
    const marker = FENCE.exec(source);
    const closing = marker && marker[2]!.startsWith(fence.marker[0]!) && marker[2]!.length >= fence.marker.length &&
      !marker[3];
    if (closing) {
      if (advance) this.#fence = undefined;
      return [s.dim("  └─")];
    }
    const code = source.slice(Math.min(fence.indent, leadingSpaces(source))).replace(/\t/g, "    ");
    const segments: Segment[] = fence.highlighter
      ? fence.highlighter.line(code, advance).map((token) => ({ text: token.text, paint: tokenPaint(token.kind, s) }))
      : [{ text: code, paint: s.cyan }];
    // A line wider than the terminal is cut into rows here (the terminal would wrap it under the gutter);
    // continuation rows get a dotted gutter so they are not mistaken for new lines.
    return cutSegments(segments, Math.max(1, this.#width - 4)).map((row, index) =>
      `${s.dim(index === 0 ? "  │ " : "  ┆ ")}${row.text}`
    );
  }

  // Everything but fences and tables: one source line of prose.
  #block(source: string): string[] {
    const s = this.#style;
    if (source.trim() === "") return [""];
    const heading = HEADING.exec(source);
    if (heading) {
      const level = heading[1]!.length;
      const segments = parseInline(heading[2]!, s);
      const paint: Paint = level === 1 ? (t) => s.bold(s.underline(t)) : s.bold;
      const rows = wrapSegments(repaint(segments, paint), this.#width);
      const text = segments.map((segment) => segment.text).join("");
      if (level <= 2)
        rows.push(s.dim((level === 1 ? "═" : "─").repeat(Math.min(this.#width, Math.max(3, displayWidth(text))))));
      return rows;
    }
    if (RULE.test(source)) return [s.dim("─".repeat(Math.min(this.#width, 40)))];
    const quote = QUOTE.exec(source);
    if (quote) {
      const bar = s.dim("│ ");
      return wrapSegments(repaint(parseInline(quote[1]!, s), s.dim), this.#width, bar, bar);
    }
    const bullet = BULLET.exec(source);
    if (bullet) {
      const depth = Math.floor(bullet[1]!.replace(/\t/g, "  ").length / 2);
      const indent = "  ".repeat(depth);
      const marker = depth % 2 === 0 ? "•" : "◦";
      return wrapSegments(parseInline(bullet[3]!, s), this.#width, `${indent}  ${s.yellow(marker)} `, `${indent}    `);
    }
    const ordered = ORDERED.exec(source);
    if (ordered) {
      const depth = Math.floor(ordered[1]!.replace(/\t/g, "  ").length / 2);
      const indent = "  ".repeat(depth);
      const marker = `${ordered[2]}${ordered[3]}`;
      return wrapSegments(
        parseInline(ordered[4]!, s),
        this.#width,
        `${indent}  ${s.yellow(marker)} `,
        `${indent}  ${" ".repeat(marker.length + 1)}`,
      );
    }
    return wrapSegments(parseInline(source.trim(), s), this.#width);
  }
}

/** A line with a pipe that is not another block (a list item, a quote, a heading) may be a table's header. */
function mayStartTable(source: string): boolean {
  if (tableCells(source) === undefined) return false;
  return !(BULLET.test(source) || ORDERED.test(source) || QUOTE.test(source) || HEADING.test(source));
}

function tokenPaint(kind: TokenKind, s: Style): Paint {
  switch (kind) {
    case "keyword":
      return s.magenta;
    case "string":
    case "added":
      return s.green;
    case "removed":
      return s.red;
    case "comment":
      return (t) => s.dim(s.italic(t));
    case "number":
    case "constant":
      return s.yellow;
    case "type":
    case "hunk":
    case "variable":
      return s.cyan;
    case "key":
      return s.blue;
    case "header":
      return s.bold;
    case "plain":
      return (t) => t;
  }
}

function leadingSpaces(text: string): number {
  return text.length - text.trimStart().length;
}

/** Renders a whole message. */
export function renderMarkdown(text: string, style: Style, width: number): string[] {
  const renderer = new MarkdownRenderer(style, width);
  const rows: string[] = [];
  const lines = text.replace(/\r\n/g, "\n").split("\n");
  if (lines.length > 1 && lines.at(-1) === "") lines.pop();
  for (const line of lines) rows.push(...renderer.line(line));
  rows.push(...renderer.finish());
  return rows;
}
