// The text form of a file for the editing tools: strict UTF-8, an optional byte-order mark, and whether every line
// ends in CRLF (then edits are made in LF form and written back as CRLF).

export type TextFile = { content: string; bom: boolean; crlf: boolean };

const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const BOM = "\ufeff";

/** The file's text, or undefined when it is not valid UTF-8. */
export function decodeText(bytes: Uint8Array): TextFile | undefined {
  let text: string;
  try {
    text = strict.decode(bytes);
  } catch {
    return undefined;
  }
  const bom = text.startsWith(BOM);
  const content = bom ? text.slice(1) : text;
  return { content, bom, crlf: usesCrlf(content) };
}

export function encodeText(file: { content: string; bom: boolean }): Buffer {
  return Buffer.from(file.bom ? BOM + file.content : file.content, "utf8");
}

/** True when the text has line breaks and every one of them is CRLF. */
function usesCrlf(content: string): boolean {
  let crlf = 0;
  for (let at = content.indexOf("\n"); at >= 0; at = content.indexOf("\n", at + 1)) {
    if (content[at - 1] !== "\r") return false;
    crlf += 1;
  }
  return crlf > 0;
}
