// Compact one-line descriptions of tool calls and short previews of their output.
import { stripControls, truncateText } from "./style.ts";

const NESTED_CALL = /^(.*):tool-(\d+)$/;

/** The exec cell a nested call belongs to (`<exec call_id>:tool-<k>`), if any. */
export function parentCallId(callId: string): string | undefined {
  return NESTED_CALL.exec(callId)?.[1];
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ⏎ ").trim();
}

/** A short, human summary of a call's arguments, e.g. the command of `bash` or the path of `read`. */
export function summarizeArguments(name: string, args: unknown): string {
  const record = args !== null && typeof args === "object" && !Array.isArray(args)
    ? (args as Record<string, unknown>)
    : undefined;
  const field = (key: string) => (typeof record?.[key] === "string" ? (record[key] as string) : undefined);
  switch (name) {
    case "bash":
      if (field("command") !== undefined) return oneLine(field("command")!);
      break;
    case "edit":
    case "list":
      if (name === "list") return field("path") ?? ".";
      if (field("path") !== undefined) return field("path")!;
      break;
    case "apply_patch":
      if (field("input") !== undefined) {
        const files = field("input")!
          .split("\n")
          .map((line) => /^\s*\*\*\* (Add|Delete|Update) File: (.*)$/.exec(line))
          .filter((match) => match !== null)
          .map((match) => `${match[1]![0]} ${match[2]!.trim()}`);
        return files.join(", ");
      }
      break;
    case "grep":
      if (field("pattern") !== undefined)
        return `/${field("pattern")}/${field("path") ? ` in ${field("path")}` : ""}${
          field("glob") ? ` (${field("glob")})` : ""
        }`;
      break;
    case "glob":
      if (field("pattern") !== undefined) return `${field("pattern")}${field("path") ? ` in ${field("path")}` : ""}`;
      break;
    case "read":
    case "write":
      if (field("path") !== undefined) {
        const extra = name === "write" && field("mode") ? ` (${field("mode")})` : "";
        return `${field("path")}${extra}`;
      }
      break;
    case "web_fetch":
      if (field("url") !== undefined) return field("url")!;
      break;
    case "web_search":
      if (field("query") !== undefined) return `"${field("query")}"`;
      break;
    case "read_skill":
      if (field("name") !== undefined) return field("name")!;
      break;
    case "exec":
      if (field("code") !== undefined) {
        const code = field("code")!;
        const lines = code.split("\n").filter((line) => line.trim() !== "");
        return `${Buffer.byteLength(code)} bytes of JavaScript: ${oneLine(lines[0] ?? "")}`;
      }
      break;
  }
  if (record && Object.keys(record).length === 0) return "";
  return JSON.stringify(args) ?? "";
}

/** The interesting text of a tool's output: JSON outputs show their `content` or `output` field. */
export function outputText(output: string): string {
  const trimmed = output.trimStart();
  if (trimmed.startsWith("{")) {
    try {
      const value = JSON.parse(output) as Record<string, unknown>;
      if (typeof value.content === "string") return value.content;
      if (typeof value.output === "string") {
        const exit = typeof value.exit_code === "number" && value.exit_code !== 0 ? `[exit ${value.exit_code}] ` : "";
        return exit + value.output;
      }
      if (typeof value.path === "string" && typeof value.bytes === "number")
        return `wrote ${value.bytes} bytes to ${value.path}`;
    } catch {
      // Not JSON after all: show it as text.
    }
  }
  return output;
}

/**
 * A failing call's preview: its first line, then its last `tail` lines (the error is usually at the end), with a
 * count of the lines left out between them.
 */
export function headTailLines(text: string, tail: number, columns: number): string[] {
  const lines = text.replace(/\r\n/g, "\n").split("\n").filter((line) => line.trim() !== "");
  const cut = (line: string) => truncateText(stripControls(line.replace(/\t/g, "  ")), columns);
  if (lines.length <= tail + 2) return lines.map(cut);
  return [cut(lines[0]!), `… ${lines.length - 1 - tail} lines …`, ...lines.slice(-tail).map(cut)];
}

/** At most `maxLines` rows of preview, each cut to `columns`, with a count of what was left out. */
export function previewLines(text: string, maxLines: number, columns: number): string[] {
  const lines = text.replace(/\r\n/g, "\n").split("\n").filter((line) => line.trim() !== "");
  if (lines.length === 0) return [];
  const shown = lines.slice(0, maxLines).map((line) => truncateText(stripControls(line.replace(/\t/g, "  ")), columns));
  if (lines.length > maxLines) shown.push(`… +${lines.length - maxLines} more lines`);
  return shown;
}
