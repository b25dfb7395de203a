// "Always" answers: one rule appended to `permissions.allow` of the user file by editing its text, so every
// comment, blank line and the order of keys stay as the user wrote them. The file is created (0600) when it does
// not exist; an existing file keeps its mode and is replaced atomically. The result is parsed again before it is
// written: a file this code cannot edit safely is left alone with an error saying so.
import { readForEdit, writeAtomically } from "./atomic_write.ts";
import { withFileLock } from "./file_lock.ts";
import { parse } from "smol-toml";
import { isTable } from "./schema.ts";
import { ConfigError } from "./types.ts";

const HEADER = /^[ \t]*\[[ \t]*permissions[ \t]*\][ \t]*(?:#.*)?$/;
const ANY_HEADER = /^[ \t]*\[/;
const ALLOW_KEY = /^[ \t]*allow[ \t]*=[ \t]*/;

/** Appends `rule` to `permissions.allow` of the user file `path`; resolves once the file holds it. */
export async function appendAllowRule(path: string, rule: string): Promise<void> {
  // Read, edit and replace is one step for every writer: two "always" answers at once (two sessions of one
  // server, or two scv processes) would otherwise each write the file they read, and one rule would be lost.
  await withFileLock(path, () => appendUnlocked(path, rule));
}

async function appendUnlocked(path: string, rule: string): Promise<void> {
  const { text, mode } = await readForEdit(path);
  if (text !== undefined && allowList(parseOrFail(text, path)).includes(rule)) return;
  const edited = text === undefined
    ? `[permissions]\nallow = [${tomlString(rule)}]\n`
    : withAllowRule(text, rule, path);
  if (!allowList(parseOrFail(edited, path)).includes(rule)) {
    throw new ConfigError(`cannot add ${rule} to ${path}: add it to permissions.allow by hand`);
  }
  await writeAtomically(path, edited, mode);
}

/** `text` with `rule` added to its `[permissions]` table's `allow` array (table and key created as needed). */
export function withAllowRule(text: string, rule: string, path: string): string {
  const value = tomlString(rule);
  const lines = text.split("\n");
  const header = lines.findIndex((line) => HEADER.test(line));
  if (header < 0) {
    if (isTable(parseOrFail(text, path).permissions)) {
      throw new ConfigError(
        `cannot add ${rule} to ${path}: its permissions are not written as a [permissions] table; add the rule ` +
          "to permissions.allow by hand",
      );
    }
    const separator = text === "" || text.endsWith("\n\n") ? "" : text.endsWith("\n") ? "\n" : "\n\n";
    return `${text}${separator}[permissions]\nallow = [${value}]\n`;
  }
  let end = lines.length;
  for (let index = header + 1; index < lines.length; index += 1) {
    if (ANY_HEADER.test(lines[index]!)) {
      end = index;
      break;
    }
  }
  const keyLine = lines.slice(header + 1, end).findIndex((line) => ALLOW_KEY.test(line));
  if (keyLine < 0) {
    lines.splice(header + 1, 0, `allow = [${value}]`);
    return lines.join("\n");
  }
  // Offsets into the text: the array starts after `allow =` on its line.
  const lineStart = lines.slice(0, header + 1 + keyLine).reduce((sum, line) => sum + line.length + 1, 0);
  const keyText = lines[header + 1 + keyLine]!;
  const open = lineStart + ALLOW_KEY.exec(keyText)![0].length;
  if (text[open] !== "[") {
    throw new ConfigError(`cannot add ${rule} to ${path}: permissions.allow is not an array; fix it by hand`);
  }
  return insertIntoArray(text, open, value, path, rule);
}

/** Inserts `value` as the last element of the array whose `[` is at `open`. */
function insertIntoArray(text: string, open: number, value: string, path: string, rule: string): string {
  let lastEnd = -1;
  let commaAfterLast = -1;
  let index = open + 1;
  while (index < text.length) {
    const char = text[index]!;
    if (char === "]") break;
    if (char === "#") {
      while (index < text.length && text[index] !== "\n") index += 1;
    } else if (char === '"' || char === "'") {
      index = stringEnd(text, index);
      lastEnd = index;
      commaAfterLast = -1;
      continue;
    } else if (char === ",") {
      commaAfterLast = index;
    } else if (!" \t\r\n".includes(char)) {
      throw new ConfigError(`cannot add ${rule} to ${path}: permissions.allow holds something other than strings`);
    }
    index += 1;
  }
  const close = index;
  if (close >= text.length) throw new ConfigError(`cannot add ${rule} to ${path}: permissions.allow is not closed`);
  const multiline = text.slice(open, close).includes("\n");
  if (lastEnd < 0) return `${text.slice(0, open + 1)}${value}${text.slice(open + 1)}`;
  if (!multiline) {
    const at = commaAfterLast >= 0 ? commaAfterLast + 1 : lastEnd;
    const insert = commaAfterLast >= 0 ? ` ${value},` : `, ${value}`;
    return text.slice(0, at) + insert + text.slice(at);
  }
  // One element a line: the new one goes on its own line after the last, indented like it.
  const lineOfLast = text.lastIndexOf("\n", lastEnd - 1) + 1;
  const indent = /^[ \t]*/.exec(text.slice(lineOfLast))![0];
  const anchor = commaAfterLast >= 0 ? commaAfterLast + 1 : lastEnd;
  const lineEnd = text.indexOf("\n", anchor);
  const before = commaAfterLast >= 0
    ? text.slice(0, lineEnd)
    : `${text.slice(0, lastEnd)},${text.slice(lastEnd, lineEnd)}`;
  const trailing = commaAfterLast >= 0 ? "," : "";
  if (lineEnd < 0 || lineEnd > close) {
    // `"a", "b"]` with the bracket on the last element's line.
    const at = commaAfterLast >= 0 ? commaAfterLast + 1 : lastEnd;
    return text.slice(0, at) + (commaAfterLast >= 0 ? ` ${value},` : `, ${value}`) + text.slice(at);
  }
  return `${before}\n${indent}${value}${trailing}${text.slice(lineEnd)}`;
}

/** The index after the TOML string that starts at `start` (basic or literal, single- or multi-line). */
function stringEnd(text: string, start: number): number {
  const quote = text[start]!;
  const triple = text.startsWith(quote.repeat(3), start);
  const closer = triple ? quote.repeat(3) : quote;
  let index = start + closer.length;
  while (index < text.length) {
    if (quote === '"' && text[index] === "\\") {
      index += 2;
      continue;
    }
    if (text.startsWith(closer, index)) return index + closer.length;
    index += 1;
  }
  return text.length;
}

function tomlString(value: string): string {
  // JSON's escapes are TOML's (\" \\ \n \t \uXXXX).
  return JSON.stringify(value);
}

function parseOrFail(text: string, path: string): Record<string, unknown> {
  try {
    return parse(text) as Record<string, unknown>;
  } catch {
    throw new ConfigError(`cannot add a rule to ${path}: the file is not valid TOML; fix it first`);
  }
}

function allowList(document: Record<string, unknown>): unknown[] {
  const permissions = document.permissions;
  return isTable(permissions) && Array.isArray(permissions.allow) ? permissions.allow : [];
}
