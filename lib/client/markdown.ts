// A small line-by-line Markdown renderer for the terminal: headings, lists, block quotes, rules,
// fenced code blocks with their language, inline code, emphasis and links. It is fed one complete
// source line at a time, so streamed text can be rendered as soon as each line ends.
// Without colour it emits no escape codes: inline code keeps its backticks, links show their URL.
import { displayWidth, type Paint, splitAtWidth, type Style } from "./style.ts";

type Segment = { text: string; paint: Paint };

const FENCE = /^(\s*)(`{3,}|~{3,})\s*([^`\s]*)?.*$/;
const HEADING = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const RULE = /^\s{0,3}([-*_])(\s*\1){2,}\s*$/;
const BULLET = /^(\s*)([-*+])\s+(.*)$/;
const ORDERED = /^(\s*)(\d{1,9})([.)])\s+(.*)$/;
const QUOTE = /^\s{0,3}>\s?(.*)$/;

export class MarkdownRenderer {
  #style: Style;
  #width: number;
  #fence: { marker: string; indent: number } | undefined;

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

  /** Rendered rows for one source line (without its newline). */
  line(source: string): string[] {
    const s = this.#style;
    const fence = FENCE.exec(source);
    if (this.#fence) {
      const closing = fence && fence[2]!.startsWith(this.#fence.marker[0]!) &&
        fence[2]!.length >= this.#fence.marker.length && !fence[3];
      if (closing) {
        this.#fence = undefined;
        return [s.dim("  └─")];
      }
      const code = source.slice(Math.min(this.#fence.indent, leadingSpaces(source))).replace(/\t/g, "    ");
      // A line wider than the terminal is cut into rows here (the terminal would wrap it under the gutter);
      // continuation rows get a dotted gutter so they are not mistaken for new lines.
      const rows: string[] = [];
      let rest = code;
      do {
        const [head, tail] = splitAtWidth(rest, Math.max(1, this.#width - 4));
        rows.push(`${s.dim(rows.length === 0 ? "  │ " : "  ┆ ")}${s.cyan(head)}`);
        rest = tail;
      } while (rest !== "");
      return rows;
    }
    if (fence) {
      this.#fence = { marker: fence[2]!, indent: fence[1]!.length };
      const language = fence[3] ?? "";
      return [s.dim(`  ┌─${language ? ` ${language}` : ""}`)];
    }
    if (source.trim() === "") return [""];
    const heading = HEADING.exec(source);
    if (heading) {
      const level = heading[1]!.length;
      const text = plainInline(heading[2]!);
      const paint: Paint = level === 1 ? (t) => s.bold(s.underline(t)) : s.bold;
      const rows = this.#wrap(
        parseInline(heading[2]!, s).map((seg) => ({ text: seg.text, paint: (t: string) => paint(seg.paint(t)) })),
        "",
        "",
      );
      if (level <= 2)
        rows.push(s.dim((level === 1 ? "═" : "─").repeat(Math.min(this.#width, Math.max(3, displayWidth(text))))));
      return rows;
    }
    if (RULE.test(source)) return [s.dim("─".repeat(Math.min(this.#width, 40)))];
    const quote = QUOTE.exec(source);
    if (quote)
      return this.#wrap(
        parseInline(quote[1]!, s).map((seg) => ({ text: seg.text, paint: (t: string) => s.dim(seg.paint(t)) })),
        s.dim("│ "),
        s.dim("│ "),
      );
    const bullet = BULLET.exec(source);
    if (bullet) {
      const depth = Math.floor(bullet[1]!.replace(/\t/g, "  ").length / 2);
      const indent = "  ".repeat(depth);
      const marker = depth % 2 === 0 ? "•" : "◦";
      return this.#wrap(parseInline(bullet[3]!, s), `${indent}  ${s.yellow(marker)} `, `${indent}    `);
    }
    const ordered = ORDERED.exec(source);
    if (ordered) {
      const depth = Math.floor(ordered[1]!.replace(/\t/g, "  ").length / 2);
      const indent = "  ".repeat(depth);
      const marker = `${ordered[2]}${ordered[3]}`;
      return this.#wrap(
        parseInline(ordered[4]!, s),
        `${indent}  ${s.yellow(marker)} `,
        `${indent}  ${" ".repeat(marker.length + 1)}`,
      );
    }
    return this.#wrap(parseInline(source.trim(), s), "", "");
  }

  /** Rows that close whatever block is still open at the end of a message. */
  finish(): string[] {
    if (!this.#fence) return [];
    this.#fence = undefined;
    return [this.#style.dim("  └─")];
  }

  // Word-wraps styled segments to the width, painting each word piece separately so that
  // every row is self-contained (no style spans across a line break).
  #wrap(segments: Segment[], first: string, rest: string): string[] {
    const rows: string[] = [];
    let prefix = first;
    let row = "";
    let width = displayWidth(prefix);
    let pendingSpace: Segment | undefined;
    const flush = () => {
      rows.push(prefix + row);
      prefix = rest;
      row = "";
      width = displayWidth(prefix);
      pendingSpace = undefined;
    };
    for (const segment of segments) {
      for (const token of segment.text.split(/(\s+)/)) {
        if (token === "") continue;
        if (/^\s+$/.test(token)) {
          if (row !== "") pendingSpace = { text: " ", paint: segment.paint };
          continue;
        }
        const tokenWidth = displayWidth(token);
        const spaceWidth = pendingSpace ? 1 : 0;
        if (row !== "" && width + spaceWidth + tokenWidth > this.#width) flush();
        if (pendingSpace) {
          row += pendingSpace.paint(pendingSpace.text);
          width += 1;
          pendingSpace = undefined;
        }
        let piece = token;
        // A word longer than the rest of the row is hard-split.
        while (width + displayWidth(piece) > this.#width) {
          if (row !== "") {
            flush();
            continue;
          }
          const [head, tail] = splitAtWidth(piece, Math.max(1, this.#width - width), true);
          row += segment.paint(head);
          flush();
          piece = tail;
        }
        row += segment.paint(piece);
        width += displayWidth(piece);
      }
    }
    if (row !== "" || rows.length === 0) rows.push(prefix + row);
    return rows;
  }
}

function leadingSpaces(text: string): number {
  return text.length - text.trimStart().length;
}

const INLINE =
  /(`+)([\s\S]*?[^`])\1(?!`)|\*\*([^*]+)\*\*|__([^_]+)__|\*([^*\s][^*]*)\*|(?<![\w])_([^_\s][^_]*)_(?![\w])|\[([^\]]+)\]\(([^)\s]+)(?:\s+"[^"]*")?\)|<(https?:\/\/[^>\s]+)>/g;

/** Splits one line of Markdown into painted segments. */
export function parseInline(text: string, s: Style): Segment[] {
  const segments: Segment[] = [];
  const plainPaint: Paint = (t) => t;
  let last = 0;
  for (const match of text.matchAll(INLINE)) {
    const index = match.index ?? 0;
    if (index > last) segments.push({ text: text.slice(last, index), paint: plainPaint });
    if (match[2] !== undefined) {
      const code = match[2].replace(/^ (.*) $/, "$1");
      segments.push(s.color ? { text: code, paint: s.cyan } : { text: `\`${code}\``, paint: plainPaint });
    } else if (match[3] !== undefined || match[4] !== undefined) {
      segments.push({ text: (match[3] ?? match[4])!, paint: s.bold });
    } else if (match[5] !== undefined || match[6] !== undefined) {
      segments.push({ text: (match[5] ?? match[6])!, paint: s.italic });
    } else if (match[7] !== undefined) {
      const label = match[7];
      const url = match[8]!;
      segments.push({ text: label, paint: (t) => s.underline(s.blue(t)) });
      if (label !== url) segments.push({ text: ` (${url})`, paint: s.dim });
    } else if (match[9] !== undefined) {
      segments.push({ text: match[9], paint: (t) => s.underline(s.blue(t)) });
    }
    last = index + match[0].length;
  }
  if (last < text.length) segments.push({ text: text.slice(last), paint: plainPaint });
  return segments;
}

function plainInline(text: string): string {
  return text.replace(/`([^`]*)`/g, "$1").replace(/\*\*([^*]+)\*\*/g, "$1");
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
