// Text shown to a person who decides on it (approval prompts): every character that could hide or reorder
// what is shown becomes a visible escape. Control characters (C0, DEL, C1), format characters (bidi
// embeddings, overrides and isolates U+202A–202E and U+2066–2069, marks, zero-width characters, BOM, tags),
// line and paragraph separators and lone surrogates are written as `\u202e` (`\u{e0041}` above U+FFFF).
// Multi-line text keeps its line feeds and tabs; a carriage return is always escaped (it can overwrite a line).

const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;
const NAMED: Record<string, string> = { "\n": "\\n", "\t": "\\t", "\r": "\\r" };

export type VisibleOptions = { multiline?: boolean };

export function visibleText(text: string, options: VisibleOptions = {}): string {
  const multiline = options.multiline ?? false;
  return text.replace(HIDDEN, (char) => {
    if (multiline && (char === "\n" || char === "\t")) return char;
    return NAMED[char] ?? escapeCodePoint(char.codePointAt(0)!);
  });
}

function escapeCodePoint(code: number): string {
  const hex = code.toString(16);
  return code > 0xffff ? `\\u{${hex}}` : `\\u${hex.padStart(4, "0")}`;
}
