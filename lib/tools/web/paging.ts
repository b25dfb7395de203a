// Paging of fetched text by code points within a byte budget (spec §10 "Output").

export type Page = {
  /** Code-point offsets: the page is [start, end) of total. */
  start: number;
  end: number;
  total: number;
  text: string;
};

/**
 * The whole characters from code point `offset` (clamped to the text) whose UTF-8 encoding fits
 * in `budgetBytes` (at least one character when any remain).
 */
export function pageByCodePoints(text: string, offset: number, budgetBytes: number): Page {
  let total = 0;
  let startIndex = -1;
  let endIndex = -1;
  let end = 0;
  let used = 0;
  const budget = Math.max(1, budgetBytes);
  for (let index = 0; index < text.length;) {
    const code = text.codePointAt(index)!;
    const units = code > 0xffff ? 2 : 1;
    if (total === offset) startIndex = index;
    if (startIndex >= 0 && endIndex < 0) {
      const bytes = code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
      if (used + bytes > budget && used > 0) {
        endIndex = index;
        end = total;
      } else {
        used += bytes;
      }
    }
    total += 1;
    index += units;
  }
  if (startIndex < 0) return { start: total, end: total, total, text: "" };
  if (endIndex < 0) {
    endIndex = text.length;
    end = total;
  }
  return { start: Math.min(offset, total), end, total, text: text.slice(startIndex, endIndex) };
}
