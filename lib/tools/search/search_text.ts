// Matching one file's text line by line with a JavaScript RegExp, for grep. It runs inside grep's worker thread
// (regex_worker.ts), where it arrives as source text: it must stay self-contained (no imports, no outer names).

/**
 * Calls `found` for each line of `text` that `regex` (flags g and m) matches, in order; returns how many.
 * The regex runs over the whole text at once; a match is then checked against its own line, so a pattern that
 * spans line breaks (`a\sb`) only counts where it matches within one line.
 */
export function searchText(text: string, regex: RegExp, found: (line: number, text: string) => void): number {
  let count = 0;
  let lineNumber = 1;
  let counted = 0;
  regex.lastIndex = 0;
  for (;;) {
    const match = regex.exec(text);
    if (match === null) break;
    const at = match.index;
    const lineStart = text.lastIndexOf("\n", at - 1) + 1;
    let lineEnd = text.indexOf("\n", at);
    if (lineEnd < 0) lineEnd = text.length;
    // A match that starts on a line break belongs to the next line (or none).
    if (at === lineEnd && match[0].length > 0) {
      regex.lastIndex = lineEnd + 1;
      continue;
    }
    for (
      let index = text.indexOf("\n", counted);
      index >= 0 && index < lineStart;
      index = text.indexOf("\n", index + 1)
    ) {
      lineNumber += 1;
      counted = index + 1;
    }
    let line = text.slice(lineStart, lineEnd);
    if (line.endsWith("\r")) line = line.slice(0, -1);
    const crosses = at + match[0].length > lineEnd;
    let matches = !crosses;
    if (crosses) {
      const again = new RegExp(regex.source, regex.flags.replace("g", ""));
      matches = again.test(line);
    }
    if (matches) {
      count += 1;
      found(lineNumber, line);
    }
    if (lineEnd >= text.length) break;
    regex.lastIndex = lineEnd + 1;
  }
  return count;
}
