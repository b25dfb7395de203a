// Inline Markdown (code spans, emphasis, links) as painted segments, and the two ways segments become rows:
// word wrapping (prose, table cells) and hard cutting (code, whose spacing is meaning).
import { displayWidth, type Paint, splitAtWidth, type Style } from "./style.ts";

export type Segment = { text: string; paint: Paint };

const INLINE =
  /(`+)([\s\S]*?[^`])\1(?!`)|\*\*([^*]+)\*\*|__([^_]+)__|\*([^*\s][^*]*)\*|(?<![\w])_([^_\s][^_]*)_(?![\w])|\[([^\]]+)\]\(([^)\s]+)(?:\s+"[^"]*")?\)|<(https?:\/\/[^>\s]+)>/g;

const plainPaint: Paint = (t) => t;

/** Splits one line of Markdown into painted segments. */
export function parseInline(text: string, s: Style): Segment[] {
  const segments: Segment[] = [];
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

/**
 * How much of `text` parses the same whatever follows it: up to the first marker that may still open or close
 * a span (an unmatched backtick, `*`, `_`, `[` or `<`), or a span that ends at the very end (more text could
 * extend it). A streamed line's rows before that point are final.
 */
export function stableInlineEnd(text: string): number {
  let last = 0;
  for (const match of text.matchAll(INLINE)) {
    const index = match.index ?? 0;
    const opener = text.slice(last, index).search(/[`*_[<]/);
    if (opener >= 0) return last + opener;
    if (index + match[0].length >= text.length) return index;
    // A code span opened by part of a longer backtick run may still close differently once the run's own
    // closing arrives.
    if (match[1] !== undefined && /^`*/.exec(text.slice(index))![0].length !== match[1].length) return index;
    last = index + match[0].length;
  }
  const opener = text.slice(last).search(/[`*_[<]/);
  return opener >= 0 ? last + opener : text.length;
}

/** The same segments with `outer` painted over each one's own paint. */
export function repaint(segments: Segment[], outer: Paint): Segment[] {
  return segments.map((segment) => ({ text: segment.text, paint: (t: string) => outer(segment.paint(t)) }));
}

/** Columns the segments take on one row. */
export function segmentsWidth(segments: Segment[]): number {
  return segments.reduce((sum, segment) => sum + displayWidth(segment.text), 0);
}

/**
 * Word-wraps styled segments to `width`, painting each word piece separately so that every row is self-contained
 * (no style spans across a line break). `first` and `rest` prefix the first and the following rows.
 */
export function wrapSegments(segments: Segment[], width: number, first = "", rest = ""): string[] {
  const rows: string[] = [];
  let prefix = first;
  let row = "";
  let used = displayWidth(prefix);
  let pendingSpace: Segment | undefined;
  const flush = () => {
    rows.push(prefix + row);
    prefix = rest;
    row = "";
    used = displayWidth(prefix);
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
      if (row !== "" && used + spaceWidth + tokenWidth > width) flush();
      if (pendingSpace) {
        row += pendingSpace.paint(pendingSpace.text);
        used += 1;
        pendingSpace = undefined;
      }
      let piece = token;
      // A word longer than the rest of the row is hard-split.
      while (used + displayWidth(piece) > width) {
        if (row !== "") {
          flush();
          continue;
        }
        const [head, tail] = splitAtWidth(piece, Math.max(1, width - used), true);
        row += segment.paint(head);
        flush();
        piece = tail;
      }
      if (piece === "") continue;
      row += segment.paint(piece);
      used += displayWidth(piece);
    }
  }
  if (row !== "" || rows.length === 0) rows.push(prefix + row);
  return rows;
}

/** Cuts styled segments into rows of at most `width` columns, keeping every space (for code). */
export function cutSegments(segments: Segment[], width: number): Array<{ text: string; width: number }> {
  const rows: Array<{ text: string; width: number }> = [];
  let row = "";
  let used = 0;
  for (const segment of segments) {
    let rest = segment.text;
    while (rest !== "") {
      const [head, tail] = splitAtWidth(rest, Math.max(0, width - used), used === 0);
      if (head !== "") {
        row += segment.paint(head);
        used += displayWidth(head);
      }
      rest = tail;
      if (rest !== "") {
        rows.push({ text: row, width: used });
        row = "";
        used = 0;
      }
    }
  }
  rows.push({ text: row, width: used });
  return rows;
}
