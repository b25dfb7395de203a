// How an approval shows what it approves: the whole bash command (from the proposed arguments, not the cut
// summary) or summary, with control and bidirectional-override characters made visible instead of stripped or
// obeyed, and a file change's unified diff coloured (+ green, - red), its first page inline and the rest paged.
import type { Style } from "./style.ts";
import { displayWidth, stripControls } from "./style.ts";

/** Diff rows shown with the question; `v` shows the next page of this many. */
export const DIFF_PAGE_ROWS = 20;

const INVISIBLE = new Set([
  0x061c,
  0x200b,
  0x200c,
  0x200d,
  0x200e,
  0x200f,
  0x202a,
  0x202b,
  0x202c,
  0x202d,
  0x202e,
  0x2060,
  0x2066,
  0x2067,
  0x2068,
  0x2069,
  0xfeff,
]);

/**
 * `text` with every character that could hide or reorder what is shown made visible: C0 controls as `^X` (tab
 * and newline kept), DEL as `^?`, C1 controls and bidi/zero-width characters as `<U+XXXX>`.
 */
export function revealControls(text: string): string {
  let out = "";
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (char === "\n" || char === "\t") out += char;
    else if (code < 0x20) out += `^${String.fromCharCode(code + 0x40)}`;
    else if (code === 0x7f) out += "^?";
    else if ((code >= 0x80 && code <= 0x9f) || INVISIBLE.has(code))
      out += `<U+${code.toString(16).toUpperCase().padStart(4, "0")}>`;
    else out += char;
  }
  return out;
}

/**
 * What "always" covers, as the question says it after "[a]". The rule it allows (the engine's `rule`, else this
 * exact call) is shown above the question.
 */
export function alwaysScope(_approval: { rule?: string }): string {
  return "lways for this session";
}

/** What "keep" does, as the question says it after "[k]": only offered when the engine names a rule. */
export function keepScope(approval: { rule?: string }): string | undefined {
  return approval.rule === undefined ? undefined : "eep for good";
}

/** What an approved answer that remembers says: `always for this session: bash(npm test)`. */
export function rememberedText(approval: { rule?: string }, remember: "session" | "always"): string {
  const what = approval.rule === undefined ? "" : `: ${stripControls(approval.rule)}`;
  return remember === "always" ? `kept for good in the user config${what}` : `always for this session${what}`;
}

/** Hard-wraps each line of `text` to `columns` (never cutting a line short: everything stays visible). */
export function wrapAll(text: string, columns: number): string[] {
  const width = Math.max(10, columns);
  const rows: string[] = [];
  for (const line of text.replace(/\r\n/g, "\n").replace(/\t/g, "  ").split("\n")) {
    let rest = line;
    do {
      let cut = 0;
      let used = 0;
      for (const char of rest) {
        const w = displayWidth(char);
        if (used + w > width && cut > 0) break;
        used += w;
        cut += char.length;
      }
      rows.push(rest.slice(0, cut));
      rest = rest.slice(cut);
    } while (rest !== "");
  }
  while (rows.length > 1 && rows.at(-1)!.trim() === "") rows.pop();
  return rows;
}

/**
 * The text being approved: a bash call's whole command (the server's `detail` when it sends one, else the
 * proposed arguments), the `detail` of a call that has no diff to show, else the server's summary.
 */
export function approvedText(event: Record<string, unknown>, args: unknown): string {
  const record = args !== null && typeof args === "object" ? (args as Record<string, unknown>) : undefined;
  const detail = typeof event.detail === "string" ? event.detail : undefined;
  if (event.name === "bash") {
    const command = detail ?? (typeof record?.command === "string" ? record.command : undefined);
    if (command !== undefined) return `Run: ${command}`;
  }
  const summary = String(event.summary ?? "");
  if (detail !== undefined && typeof event.diff !== "string" && detail !== summary) return `${summary}\n${detail}`;
  return summary;
}

/** The rows of a diff (controls revealed, wrapped to `columns`); every row of a wrapped line keeps its colour. */
export function diffRows(diff: string, columns: number, style: Style): string[] {
  const rows: string[] = [];
  for (const line of revealControls(diff).replace(/\n$/, "").split("\n")) {
    for (const part of wrapAll(line, columns)) rows.push(paintLike(line, part, style));
  }
  return rows;
}

/** `part` of a diff `line`, coloured by the line: headers bold, hunks cyan, + green, - red, notices dim. */
function paintLike(line: string, part: string, style: Style): string {
  if (line.startsWith("+++ ") || line.startsWith("--- ")) return style.bold(part);
  if (line.startsWith("@@")) return style.cyan(part);
  if (line.startsWith("+")) return style.green(part);
  if (line.startsWith("-")) return style.red(part);
  if (line.startsWith("…") || line.startsWith("\\")) return style.dim(part);
  return part;
}
