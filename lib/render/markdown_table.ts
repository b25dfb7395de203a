// GitHub-flavoured Markdown tables: recognising the header, delimiter and body rows, and drawing the table in a
// box whose columns share the terminal width, with cells word-wrapped and aligned as the delimiter row says.
import { repaint, type Segment, segmentsWidth, wrapSegments } from "./markdown_inline.ts";
import { displayWidth, type Paint, type Style } from "./style.ts";

export type Align = "left" | "center" | "right";

/** The cells of a table row (pipes escaped as `\|` stay in their cell), or undefined when it has no pipe. */
export function tableCells(line: string): string[] | undefined {
  const text = line.trim();
  const cells: string[] = [];
  let cell = "";
  let pipes = 0;
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i]!;
    if (char === "\\" && text[i + 1] === "|") {
      cell += "|";
      i += 1;
    } else if (char === "|") {
      pipes += 1;
      cells.push(cell);
      cell = "";
    } else {
      cell += char;
    }
  }
  if (pipes === 0) return undefined;
  cells.push(cell);
  // The outer pipes are optional: `| a | b |` and `a | b` are the same two cells.
  if (text.startsWith("|")) cells.shift();
  if (text.endsWith("|") && !text.endsWith("\\|")) cells.pop();
  return cells.map((value) => value.trim());
}

/** The alignment of each column from a delimiter row such as `|:---|:--:|--:|`, or undefined. */
export function delimiterRow(line: string): Align[] | undefined {
  const cells = tableCells(line);
  if (!cells || cells.length === 0) return undefined;
  const aligns: Align[] = [];
  for (const cell of cells) {
    const match = /^(:?)-+(:?)$/.exec(cell);
    if (!match) return undefined;
    aligns.push(match[1] && match[2] ? "center" : match[2] ? "right" : "left");
  }
  return aligns;
}

/** How many columns each table column gets: its natural width, or a fair share of `available` when too wide. */
export function columnWidths(natural: number[], available: number): number[] {
  const widths = natural.map((width) => Math.max(1, width));
  const total = widths.reduce((sum, width) => sum + width, 0);
  if (total <= available) return widths;
  // Narrow columns keep their width; the rest split what remains evenly.
  const result = new Array<number>(widths.length).fill(0);
  const order = widths.map((width, index) => ({ width, index })).sort((a, b) => a.width - b.width);
  let left = Math.max(available, widths.length);
  order.forEach(({ width, index }, position) => {
    const share = Math.floor(left / (order.length - position));
    result[index] = Math.max(1, Math.min(width, share));
    left -= result[index]!;
  });
  return result;
}

function pad(text: string, width: number, align: Align): string {
  const room = Math.max(0, width - displayWidth(text));
  if (align === "right") return " ".repeat(room) + text;
  if (align === "center") return " ".repeat(Math.floor(room / 2)) + text + " ".repeat(room - Math.floor(room / 2));
  return text + " ".repeat(room);
}

/**
 * A table drawn in a box no wider than `width`: `rows[0]` is the header (bold), cells are already parsed inline
 * segments. Rows with fewer cells than the header get empty ones; extra cells are dropped, as GitHub does.
 */
export function renderTable(rows: Segment[][][], aligns: Align[], style: Style, width: number): string[] {
  const columns = aligns.length;
  const cell = (row: Segment[][], column: number): Segment[] => row[column] ?? [];
  // Too many columns for the terminal (under three columns of text each): one "header: value" row per cell.
  if (width - (3 * columns + 1) < 3 * columns) return stacked(rows, columns, style, width);
  const natural = aligns.map((_, column) => Math.max(...rows.map((row) => segmentsWidth(cell(row, column)))));
  const widths = columnWidths(natural, width - (3 * columns + 1));
  const border: Paint = style.dim;
  const line = (left: string, middle: string, right: string) =>
    border(`${left}${widths.map((w) => "─".repeat(w + 2)).join(middle)}${right}`);
  const out: string[] = [line("┌", "┬", "┐")];
  rows.forEach((row, index) => {
    const header = index === 0;
    const wrapped = widths.map((w, column) => {
      const segments = cell(row, column);
      const painted = header ? repaint(segments, style.bold) : segments;
      return segments.length === 0 ? [""] : wrapSegments(painted, w);
    });
    const height = Math.max(...wrapped.map((lines) => lines.length));
    for (let k = 0; k < height; k += 1) {
      const cells = widths.map((w, column) => pad(wrapped[column]![k] ?? "", w, aligns[column]!));
      out.push(`${border("│")} ${cells.join(` ${border("│")} `)} ${border("│")}`);
    }
    if (header) out.push(line("├", "┼", "┤"));
  });
  out.push(line("└", "┴", "┘"));
  return out;
}

function stacked(rows: Segment[][][], columns: number, style: Style, width: number): string[] {
  const [header = [], ...body] = rows;
  const name = (column: number) => repaint(header[column] ?? [], style.bold);
  if (body.length === 0) {
    const names = Array.from({ length: columns }, (_, column) => name(column));
    return wrapSegments(names.flatMap((segments, index) => index === 0 ? segments : [SEPARATOR, ...segments]), width);
  }
  const out: string[] = [];
  body.forEach((row, index) => {
    if (index > 0) out.push(style.dim("─".repeat(Math.min(width, 20))));
    for (let column = 0; column < columns; column += 1) {
      const value = row[column] ?? [];
      out.push(...wrapSegments([...name(column), { text: ": ", paint: (t) => t }, ...value], width, "", "  "));
    }
  });
  return out;
}

const SEPARATOR: Segment = { text: " · ", paint: (t) => t };
