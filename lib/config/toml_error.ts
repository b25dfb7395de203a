// TOML syntax errors in words a user understands, with line and column, and never the line's text.

/** What smol-toml says → what the user reads. Unlisted descriptions pass through. */
const PLAIN_WORDS: Array<[RegExp, string]> = [
  [/allowed in keys/, "invalid character in a key (a key is letters, digits, - and _, or a quoted string)"],
  [/redefine an already defined/, "a key or table is defined twice"],
  [/no value specified/, "a key has no value"],
  [/cannot find end of key/, "a table header is not closed with ]"],
  [/cannot find end of structure/, "an array or inline table is not closed"],
  [/^invalid value$/, "invalid value (strings need quotes; booleans are true or false)"],
];

export function describeTomlError(text: string, description: string, line: number, column: number): string {
  const unterminated = findUnterminatedString(text);
  if (unterminated !== undefined && unterminated.line <= line) {
    return `unterminated string at line ${unterminated.line}, column ${unterminated.column} (close it with the same quote on that line)`;
  }
  const plain = PLAIN_WORDS.find(([pattern]) => pattern.test(description))?.[1] ?? description;
  return `${plain} at line ${line}, column ${column}`;
}

/**
 * The first one-line string (`"…"` or `'…'`) that the end of its line leaves open; multi-line strings
 * (`"""`, `'''`) and comments are skipped.
 */
export function findUnterminatedString(text: string): { line: number; column: number } | undefined {
  let multiline: '"""' | "'''" | undefined;
  const lines = text.split("\n");
  for (let index = 0; index < lines.length; index++) {
    const row = lines[index]!;
    let position = 0;
    if (multiline !== undefined) {
      const end = findClosing(row, 0, multiline);
      if (end === -1) continue;
      multiline = undefined;
      position = end + 3;
    }
    while (position < row.length) {
      const char = row[position]!;
      if (char === "#") break;
      if (char !== '"' && char !== "'") {
        position++;
        continue;
      }
      const triple = char.repeat(3) as '"""' | "'''";
      if (row.startsWith(triple, position)) {
        const end = findClosing(row, position + 3, triple);
        if (end === -1) {
          multiline = triple;
          break;
        }
        position = end + 3;
        continue;
      }
      const end = findClosing(row, position + 1, char);
      if (end === -1) return { line: index + 1, column: position + 1 };
      position = end + 1;
    }
  }
  return undefined;
}

/** Index of the closing `quote` from `from`, honouring backslash escapes in basic strings; -1 if none. */
function findClosing(row: string, from: number, quote: string): number {
  const escapes = quote.startsWith('"');
  for (let index = from; index < row.length; index++) {
    if (escapes && row[index] === "\\") {
      index++;
      continue;
    }
    if (row.startsWith(quote, index)) return index;
  }
  return -1;
}
