// ANSI styling that collapses to plain text when colour is off (NO_COLOR, TERM=dumb, or not a TTY),
// plus the display-width arithmetic the inline renderer needs to count terminal rows.

export type Paint = (text: string) => string;

export type Style = {
  color: boolean;
  bold: Paint;
  dim: Paint;
  italic: Paint;
  underline: Paint;
  red: Paint;
  green: Paint;
  yellow: Paint;
  blue: Paint;
  magenta: Paint;
  cyan: Paint;
};

const plain: Paint = (text) => text;

function sgr(open: number, close: number): Paint {
  return (text) => (text === "" ? "" : `\x1b[${open}m${text}\x1b[${close}m`);
}

export function createStyle(color: boolean): Style {
  if (!color) {
    return {
      color,
      bold: plain,
      dim: plain,
      italic: plain,
      underline: plain,
      red: plain,
      green: plain,
      yellow: plain,
      blue: plain,
      magenta: plain,
      cyan: plain,
    };
  }
  return {
    color,
    bold: sgr(1, 22),
    dim: sgr(2, 22),
    italic: sgr(3, 23),
    underline: sgr(4, 24),
    red: sgr(31, 39),
    green: sgr(32, 39),
    yellow: sgr(33, 39),
    blue: sgr(34, 39),
    magenta: sgr(35, 39),
    cyan: sgr(36, 39),
  };
}

/** Colour only on a TTY, and never when NO_COLOR is set to anything non-empty or TERM is dumb. */
export function colorEnabled(env: Record<string, string | undefined>, isTTY: boolean): boolean {
  if (!isTTY) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  return env.TERM !== "dumb";
}

// CSI sequences (colours, cursor moves) and OSC sequences.
const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g;

export function stripAnsi(text: string): string {
  return text.replace(ANSI, "");
}

// East Asian Wide and Fullwidth ranges, and the emoji that terminals draw two columns wide.
const WIDE: ReadonlyArray<readonly [number, number]> = [
  [0x1100, 0x115f],
  [0x231a, 0x231b],
  [0x2329, 0x232a],
  [0x23e9, 0x23ec],
  [0x23f0, 0x23f0],
  [0x23f3, 0x23f3],
  [0x25fd, 0x25fe],
  [0x2614, 0x2615],
  [0x2648, 0x2653],
  [0x267f, 0x267f],
  [0x2693, 0x2693],
  [0x26a1, 0x26a1],
  [0x26aa, 0x26ab],
  [0x26bd, 0x26be],
  [0x26c4, 0x26c5],
  [0x26ce, 0x26ce],
  [0x26d4, 0x26d4],
  [0x26ea, 0x26ea],
  [0x26f2, 0x26f3],
  [0x26f5, 0x26f5],
  [0x26fa, 0x26fa],
  [0x26fd, 0x26fd],
  [0x2705, 0x2705],
  [0x270a, 0x270b],
  [0x2728, 0x2728],
  [0x274c, 0x274c],
  [0x274e, 0x274e],
  [0x2753, 0x2755],
  [0x2757, 0x2757],
  [0x2795, 0x2797],
  [0x27b0, 0x27b0],
  [0x27bf, 0x27bf],
  [0x2b1b, 0x2b1c],
  [0x2b50, 0x2b50],
  [0x2b55, 0x2b55],
  [0x2e80, 0x303e],
  [0x3040, 0xa4cf],
  [0xa960, 0xa97f],
  [0xac00, 0xd7a3],
  [0xf900, 0xfaff],
  [0xfe10, 0xfe19],
  [0xfe30, 0xfe6f],
  [0xff00, 0xff60],
  [0xffe0, 0xffe6],
  [0x16fe0, 0x18aff],
  [0x1b000, 0x1b2ff],
  [0x1f004, 0x1f004],
  [0x1f0cf, 0x1f0cf],
  [0x1f18e, 0x1f18e],
  [0x1f191, 0x1f19a],
  [0x1f200, 0x1f2ff],
  [0x1f300, 0x1f64f],
  [0x1f680, 0x1f6ff],
  [0x1f7e0, 0x1f7eb],
  [0x1f900, 0x1faff],
  [0x20000, 0x3fffd],
];

function isWide(code: number): boolean {
  if (code < 0x1100) return false;
  let low = 0;
  let high = WIDE.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const [start, end] = WIDE[middle]!;
    if (code < start) high = middle - 1;
    else if (code > end) low = middle + 1;
    else return true;
  }
  return false;
}

function isZeroWidth(code: number): boolean {
  return (
    (code >= 0x300 && code <= 0x36f) ||
    (code >= 0x1ab0 && code <= 0x1aff) ||
    (code >= 0x1dc0 && code <= 0x1dff) ||
    (code >= 0x200b && code <= 0x200f) ||
    (code >= 0x20d0 && code <= 0x20ff) ||
    (code >= 0xfe00 && code <= 0xfe0f) ||
    (code >= 0xfe20 && code <= 0xfe2f) ||
    (code >= 0x1f3fb && code <= 0x1f3ff) ||
    (code >= 0xe0000 && code <= 0xe007f)
  );
}

/** Terminal columns of one code point: 0 for combining marks and controls, 2 for wide characters. */
export function charWidth(char: string): number {
  const code = char.codePointAt(0) ?? 0;
  if (code < 0x20 || (code >= 0x7f && code < 0xa0)) return 0;
  if (isZeroWidth(code)) return 0;
  return isWide(code) ? 2 : 1;
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/**
 * Columns `text` takes in a terminal (escape codes excluded), counting an emoji sequence once: a character
 * joined by a zero-width joiner adds nothing, a variation selector 16 makes a narrow symbol an emoji (two
 * columns), and a pair of regional indicators is one flag.
 */
export function displayWidth(text: string): number {
  const plainText = stripAnsi(text);
  if (PRINTABLE_ASCII.test(plainText)) return plainText.length;
  let width = 0;
  let previous = 0;
  let joined = false;
  let flagHalf = false;
  for (const char of plainText) {
    const code = char.codePointAt(0)!;
    if (code === 0x200d) {
      joined = true;
      continue;
    }
    if (joined) {
      joined = false;
      continue;
    }
    if (code === 0xfe0f && previous === 1) {
      width += 1;
      previous = 2;
      continue;
    }
    if (code >= 0x1f1e6 && code <= 0x1f1ff) {
      // Regional indicators: each pair is one two-column flag.
      width += flagHalf ? 0 : 2;
      flagHalf = !flagHalf;
      previous = 2;
      continue;
    }
    flagHalf = false;
    const w = charWidth(char);
    width += w;
    if (w > 0) previous = w;
  }
  return width;
}

/** Rows a line occupies in a terminal `columns` wide (at least one). */
export function rowsFor(line: string, columns: number): number {
  const width = displayWidth(line);
  return Math.max(1, Math.ceil(width / Math.max(1, columns)));
}

/**
 * The longest start of plain `text` that fits in `columns` display columns, and the rest; never splits a
 * character. With `atLeastOne`, the head holds at least one character (so a caller cutting rows always advances).
 */
export function splitAtWidth(text: string, columns: number, atLeastOne = false): [head: string, rest: string] {
  let width = 0;
  let index = 0;
  for (const char of text) {
    const w = charWidth(char);
    if (width + w > columns && !(atLeastOne && index === 0)) break;
    width += w;
    index += char.length;
  }
  return [text.slice(0, index), text.slice(index)];
}

/** The longest end of plain `text` that fits in `columns` display columns. */
export function tailAtWidth(text: string, columns: number): string {
  const chars = [...text];
  let width = 0;
  let index = chars.length;
  while (index > 0 && width + charWidth(chars[index - 1]!) <= columns) {
    index -= 1;
    width += charWidth(chars[index]!);
  }
  return chars.slice(index).join("");
}

/** Cuts plain text to `columns`, ending in "…" when anything was cut. */
export function truncateText(text: string, columns: number): string {
  if (displayWidth(text) <= columns) return text;
  return `${splitAtWidth(text, columns - 1)[0]}…`;
}

/**
 * Word-wraps one row of plain text to `columns`; continuation rows keep the row's indentation plus two spaces.
 * Words longer than a row are cut hard.
 */
export function wrapPlain(text: string, columns: number): string[] {
  const width = Math.max(10, columns);
  if (displayWidth(text) <= width) return [text];
  const indent = /^\s*/.exec(text)![0];
  const hang = `${indent}  `.slice(0, Math.floor(width / 2));
  const rows: string[] = [];
  let row = indent;
  let rowWidth = displayWidth(indent);
  let empty = true;
  for (const word of text.slice(indent.length).split(/\s+/).filter((part) => part !== "")) {
    let rest = word;
    const needed = (empty ? 0 : 1) + displayWidth(rest);
    if (!empty && rowWidth + needed > width) {
      rows.push(row);
      row = hang;
      rowWidth = displayWidth(hang);
      empty = true;
    }
    if (!empty) {
      row += " ";
      rowWidth += 1;
    }
    while (rowWidth + displayWidth(rest) > width) {
      const cut = splitAtWidth(rest, width - rowWidth, true)[0];
      rows.push(row + cut);
      rest = rest.slice(cut.length);
      row = hang;
      rowWidth = displayWidth(hang);
    }
    row += rest;
    rowWidth += displayWidth(rest);
    empty = false;
  }
  if (!empty || rows.length === 0) rows.push(row);
  return rows;
}

// C0 controls except tab and newline, DEL and C1 controls: text from the model or from tools must not move the
// cursor, clear the screen or send OSC commands (clipboard, titles) to the terminal.
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

export function stripControls(text: string): string {
  return text.replace(CONTROLS, "");
}

/** A copy of a protocol value with every string passed through stripControls. */
export function sanitizeValue<T>(value: T): T {
  if (typeof value === "string") return stripControls(value) as T;
  if (Array.isArray(value)) return value.map(sanitizeValue) as T;
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, field]) => [key, sanitizeValue(field)])) as T;
  }
  return value;
}
