// Protocol events → display rows. Pure: it keeps only what it needs to format later events (calls in flight,
// the assistant line being streamed, token usage) and never touches the terminal.
import type { ClientEvent, EventOf, Usage } from "../protocol/index.ts";
import { MarkdownRenderer } from "./markdown.ts";
import {
  type Paint,
  sanitizeValue,
  splitAtWidth,
  stripControls,
  type Style,
  truncateText,
  wrapPlain,
} from "./style.ts";
import { approvedText, DIFF_PAGE_ROWS, diffRows, revealControls, wrapAll } from "./approval_view.ts";
import { compactedLines, rewoundLines } from "./long_session_view.ts";
import { addUsage, formatUsage, formatUsd } from "./usage_text.ts";
import { headTailLines, outputText, parentCallId, previewLines, summarizeArguments } from "./tool_display.ts";

type CallInfo = { name: string; args: unknown; depth: number; shown: boolean };

const PREVIEW_LINES = 4;
/**
 * An unfinished line longer than this is not re-wrapped on every delta (each preview renders the whole line), only
 * when it has grown by an eighth since the last time: the work stays near linear in the line's length.
 */
const EVERY_DELTA_CHARS = 2048;
/** Tools whose progress is the latest line of their own output: shown live only, the output preview follows. */
const LIVE_PROGRESS_TOOLS = new Set(["bash"]);

export class Transcript {
  #style: Style;
  #width: number;
  #calls = new Map<string, CallInfo>();
  /** Arguments as proposed, unsanitized: an approval reveals their control characters instead of hiding them. */
  #rawArgs = new Map<string, unknown>();
  /** Diff rows of an approval not yet shown, by approval id (paged with `moreOfApproval`). */
  #approvalPages = new Map<string, string[]>();
  #partial = "";
  /** Rows of the partial line already committed (they cannot change as the line goes on). */
  #early = 0;
  /** The partial line's rows not committed yet, as they look so far, when a preview could tell. */
  #previewRows: string[] | undefined;
  /** How much of the partial line the last preview covered. */
  #previewed = 0;
  /** A width that applies once the partial line ends (its first rows were wrapped at the old one). */
  #deferredWidth: number | undefined;
  #streamed = false;
  #liveProgress = new Map<string, string>();
  #renderer: MarkdownRenderer;
  lastUsage: Usage | undefined;
  totalUsage: Usage = {};

  constructor(style: Style, width: number) {
    this.#style = style;
    this.#width = width;
    this.#renderer = new MarkdownRenderer(style, width);
  }

  /** The assistant line still being streamed (no newline yet), unrendered. */
  get partial(): string {
    return this.#partial;
  }

  /**
   * What the live region shows of the message being streamed: source lines held back (a table so far) and the
   * unfinished line, rendered when its rows can be known (`rendered`), else raw.
   */
  get streaming(): { held: string[]; rendered: string[] | undefined; raw: string } {
    const raw = this.#previewRows === undefined ? this.#partial : this.#partial.slice(this.#previewed);
    return { held: this.#renderer.pending, rendered: this.#previewRows, raw };
  }

  /** Rows for the live region: the latest progress line of each running call whose output is previewed later. */
  get liveProgress(): string[] {
    const s = this.#style;
    return [...this.#liveProgress].map(([callId, text]) => {
      const pad = `${indent(this.#calls.get(callId)?.depth ?? 0)}  `;
      return `${pad}${s.dim(`… ${previewLines(text, 1, this.#width - pad.length - 3)[0] ?? ""}`)}`;
    });
  }

  /** The next page of an approval's diff, and how many rows remain after it. */
  moreOfApproval(approvalId: string): { rows: string[]; remaining: number } {
    const rest = this.#approvalPages.get(approvalId) ?? [];
    const rows = rest.slice(0, DIFF_PAGE_ROWS);
    const remaining = rest.length - rows.length;
    if (remaining > 0) this.#approvalPages.set(approvalId, rest.slice(DIFF_PAGE_ROWS));
    else this.#approvalPages.delete(approvalId);
    return { rows, remaining };
  }

  setWidth(width: number): void {
    this.#width = width;
    if (this.#early > 0) this.#deferredWidth = width;
    else this.#renderer.setWidth(width);
  }

  /** Rows to print for one event (possibly none). */
  apply(raw: ClientEvent): string[] {
    const s = this.#style;
    // Nothing from the model or a tool reaches the terminal with control characters in it.
    const event = sanitizeValue(raw);
    switch (event.type) {
      case "turn.started":
        this.#calls.clear();
        this.#rawArgs.clear();
        this.#approvalPages.clear();
        this.#liveProgress.clear();
        return [];
      case "assistant.delta":
        return this.#delta(event.content);
      case "assistant.completed":
        return this.#completeMessage(event.content);
      case "tool.proposed":
        if (raw.type === "tool.proposed") this.#rawArgs.set(raw.call_id, raw.arguments);
        this.#calls.set(event.call_id, {
          name: event.name,
          args: event.arguments,
          depth: this.#depthOf(event.call_id),
          shown: false,
        });
        return this.#flush();
      case "approval.requested": {
        const call = this.#call(event.call_id, event.name);
        const pad = indent(call.depth);
        if (raw.type !== "approval.requested") return [];
        const columns = this.#width - pad.length - 2;
        // The whole command or summary, wrapped and never cut, with hidden characters shown: what is approved
        // must be visible.
        const text = revealControls(approvedText(raw, this.#rawArgs.get(raw.call_id)));
        const rows = [
          ...this.#flush(),
          `${pad}${s.yellow("?")} ${s.bold(`Approve ${event.name}`)} ${s.yellow(`(${event.risk} risk)`)}`,
          ...wrapAll(text, columns).map((line) => `${pad}  ${line}`),
        ];
        // What the engine says decided to ask, and the rule "always" and "keep" would allow.
        if (typeof raw.reason === "string") {
          rows.push(
            ...wrapAll(`asked because ${revealControls(raw.reason)}`, columns).map((line) => `${pad}  ${s.dim(line)}`),
          );
        }
        if (typeof raw.rule === "string") {
          rows.push(`${pad}  ${s.dim(`always / keep allow: ${revealControls(raw.rule)}`)}`);
        }
        if (typeof raw.diff === "string" && raw.diff !== "") {
          const diff = diffRows(raw.diff, columns, s).map((row) => `${pad}  ${row}`);
          rows.push(...diff.slice(0, DIFF_PAGE_ROWS));
          const rest = diff.slice(DIFF_PAGE_ROWS);
          if (rest.length > 0) {
            this.#approvalPages.set(raw.approval_id, rest);
            rows.push(
              `${pad}  ${
                s.dim(
                  `… ${rest.length} more diff lines: press v to show the next ${Math.min(DIFF_PAGE_ROWS, rest.length)}`,
                )
              }`,
            );
          }
        }
        return rows;
      }
      case "tool.started": {
        const call = this.#call(event.call_id, event.name);
        return [...this.#flush(), ...this.#header(call)];
      }
      case "tool.progress": {
        // tool.progress carries no name: the call is known from its tool.proposed (else it has none).
        const call = this.#call(event.call_id, "");
        if (LIVE_PROGRESS_TOOLS.has(call.name)) {
          this.#liveProgress.set(event.call_id, event.text);
          return [];
        }
        return previewLines(event.text, 2, this.#width - indent(call.depth).length - 4).map(
          (line) => `${indent(call.depth)}  ${s.dim(`… ${line}`)}`,
        );
      }
      case "tool.completed":
        return this.#toolCompleted(event);
      case "context.compacted":
        return this.#wrap(
          `  (context compacted: ${event.removed_messages} older messages summarized, ${event.before_tokens} → ${event.after_tokens} tokens)`,
          s.dim,
        );
      case "session.compacted":
        return [...this.#flush(), ...compactedLines(event).flatMap((line) => this.#wrap(`  ${line}`, s.dim))];
      case "session.rewound":
        return rewoundLines(event, s).flatMap((line) => this.#wrap(`  ${line.text}`, line.paint ?? ((text) => text)));
      case "session.trimmed":
        return this.#wrap(`  (history trimmed: ${event.removed_messages} older messages summarized)`, s.dim);
      case "turn.completed": {
        this.#liveProgress.clear();
        const usage = event.usage;
        this.lastUsage = usage;
        this.totalUsage = addUsage(this.totalUsage, usage);
        const steps = event.steps;
        const tokens = usage.input_tokens === undefined && usage.output_tokens === undefined
          ? ""
          : ` · tokens ${formatUsage(usage)}`;
        // A cost only when the price is known: an unknown one is shown by /usage, not after every turn.
        const cost = typeof event.cost_usd === "number" ? ` · ${formatUsd(event.cost_usd)}` : "";
        return [
          ...this.#flush(),
          ...this.#wrap(`  · done in ${steps} step${steps === 1 ? "" : "s"}${tokens}${cost}`, s.dim),
          "",
        ];
      }
      case "turn.failed":
        this.#liveProgress.clear();
        return [...this.#flush(), ...this.#wrap(`✗ turn failed (${event.code}): ${event.message}`, s.red), ""];
      case "turn.cancelled":
        this.#liveProgress.clear();
        return [...this.#flush(), s.yellow("⊘ turn cancelled"), ""];
      case "queue.enqueued":
        return [
          s.dim(
            `  (queued at position ${event.position + 1}: ${
              truncateText(event.entry.prompt.replace(/\n/g, " "), this.#width - 30)
            })`,
          ),
        ];
      case "hook.completed":
        return [...this.#flush(), ...this.#wrap(hookLine(event), hookFailed(event) ? s.yellow : s.dim)];
      case "instructions.joined":
        return [...this.#flush(), ...this.#wrap(`  (instructions joined: ${event.path}, ${event.bytes} bytes)`, s.dim)];
      case "session.cleared":
        this.lastUsage = undefined;
        return [s.dim("  (conversation cleared)")];
      case "error":
        return this.#wrap(`error (${event.code}): ${event.message}`, s.red);
      default:
        return [];
    }
  }

  #wrap(text: string, paint: Paint): string[] {
    return wrapPlain(text, this.#width).map((row) => paint(row));
  }

  /** The indentation of a call's rows (nested exec calls sit under their cell). */
  indentOf(callId: string): string {
    return indent(this.#calls.get(callId)?.depth ?? 0);
  }

  #depthOf(callId: string): number {
    const parent = parentCallId(callId);
    if (parent === undefined) return 0;
    return (this.#calls.get(parent)?.depth ?? 0) + 1;
  }

  #call(callId: string, name: string): CallInfo {
    let call = this.#calls.get(callId);
    if (!call) {
      call = { name, args: {}, depth: this.#depthOf(callId), shown: false };
      this.#calls.set(callId, call);
    }
    return call;
  }

  #header(call: CallInfo): string[] {
    const s = this.#style;
    call.shown = true;
    const pad = indent(call.depth);
    const summary = summarizeArguments(call.name, call.args);
    const room = this.#width - pad.length - call.name.length - 3;
    return [
      `${pad}${s.cyan("⏺")} ${s.bold(call.name)}${
        summary ? ` ${s.dim(truncateText(summary, Math.max(10, room)))}` : ""
      }`,
    ];
  }

  #toolCompleted(event: EventOf<"tool.completed">): string[] {
    const s = this.#style;
    const call = this.#call(event.call_id, event.name);
    this.#liveProgress.delete(event.call_id);
    const rows = [...this.#flush()];
    if (!call.shown) rows.push(...this.#header(call));
    const pad = `${indent(call.depth)}  `;
    const columns = this.#width - pad.length - 2;
    const text = outputText(event.output);
    const lines = previewLines(text, PREVIEW_LINES, columns);
    const truncated = event.truncated ? s.dim(" (output truncated)") : "";
    if (event.success) {
      rows.push(`${pad}${s.green("✓")} ${s.dim(lines[0] ?? "ok")}${lines.length <= 1 ? truncated : ""}`);
      rows.push(
        ...lines.slice(1).map((line, index) => `${pad}  ${s.dim(line)}${index === lines.length - 2 ? truncated : ""}`),
      );
    } else {
      const code = event.error ?? "failed";
      // A failure shows its first line and its last ones: the error is usually at the end.
      const failedLines = headTailLines(text, PREVIEW_LINES - 1, columns);
      const first = failedLines[0] ? `: ${truncateText(failedLines[0], Math.max(10, columns - code.length - 2))}` : "";
      rows.push(`${pad}${s.red("✗")} ${s.red(code)}${first}`);
      rows.push(...failedLines.slice(1).map((line) => `${pad}  ${s.dim(line)}`));
    }
    return rows;
  }

  #delta(content: string): string[] {
    this.#streamed = true;
    this.#partial += content;
    const rows: string[] = [];
    let newline = this.#partial.indexOf("\n");
    while (newline >= 0) {
      rows.push(...this.#endLine(this.#partial.slice(0, newline).replace(/\r$/, "")));
      this.#partial = this.#partial.slice(newline + 1);
      newline = this.#partial.indexOf("\n");
    }
    rows.push(...this.#streamPartial());
    return rows;
  }

  // Word-wraps the unfinished line as it streams: the rows the rest of the line cannot change are committed now.
  #streamPartial(): string[] {
    const length = this.#partial.length;
    if (length > EVERY_DELTA_CHARS && this.#previewRows !== undefined && length - this.#previewed < length / 8)
      return [];
    this.#previewRows = undefined;
    this.#previewed = length;
    if (length === 0) return [];
    const preview = this.#renderer.preview(this.#partial.replace(/\r$/, ""));
    if (!preview) return [];
    const rows = preview.final > this.#early ? preview.rows.slice(this.#early, preview.final) : [];
    this.#early = Math.max(this.#early, preview.final);
    this.#previewRows = preview.rows.slice(this.#early);
    return rows;
  }

  // A whole source line: its rows less those committed while it streamed.
  #endLine(line: string): string[] {
    const rows = this.#renderer.line(line, this.#early > 0).slice(this.#early);
    this.#early = 0;
    this.#previewRows = undefined;
    this.#previewed = 0;
    if (this.#deferredWidth !== undefined) {
      this.#renderer.setWidth(this.#deferredWidth);
      this.#deferredWidth = undefined;
    }
    return rows;
  }

  #completeMessage(content: string): string[] {
    const rows = this.#streamed ? [] : this.#delta(content);
    rows.push(...this.#flush());
    this.#streamed = false;
    return rows;
  }

  // Ends the message being streamed: its last line and any open block.
  #flush(): string[] {
    const rows: string[] = [];
    if (this.#partial !== "") rows.push(...this.#endLine(this.#partial));
    this.#partial = "";
    rows.push(...this.#renderer.finish());
    this.#renderer = new MarkdownRenderer(this.#style, this.#width);
    return rows;
  }
}

function indent(depth: number): string {
  return "    ".repeat(depth);
}

const MAX_SUMMARY_ROWS = 24;

/** An approval summary hard-wrapped to `columns`, at most MAX_SUMMARY_ROWS rows (then a count of the rest). */
export function summaryRows(summary: string, columns: number): string[] {
  const width = Math.max(10, columns);
  const rows: string[] = [];
  for (const line of stripControls(summary.replace(/\r\n/g, "\n").replace(/\t/g, "  ")).split("\n")) {
    let rest = line;
    do {
      const [head, tail] = splitAtWidth(rest, width, true);
      rows.push(head);
      rest = tail;
    } while (rest !== "");
  }
  while (rows.length > 1 && rows.at(-1)!.trim() === "") rows.pop();
  if (rows.length <= MAX_SUMMARY_ROWS) return rows;
  return [...rows.slice(0, MAX_SUMMARY_ROWS - 1), `… +${rows.length - MAX_SUMMARY_ROWS + 1} more lines`];
}

type HookEventView = EventOf<"hook.completed">;

/** A hook that did not end well: shown to the user (issue 30: any exit but 0 and 2 is an error for the user). */
function hookFailed(event: HookEventView): boolean {
  return event.timed_out || event.exit_code === null || (event.exit_code !== 0 && event.exit_code !== 2);
}

/** One row per hook run: event, command, how it ended, what it decided and why. */
function hookLine(event: HookEventView): string {
  const ended = event.timed_out ? "timed out" : event.exit_code === null ? "did not finish" : `exit ${event.exit_code}`;
  const decision = event.decision === undefined ? "" : `, ${event.decision}`;
  const why = event.reason ?? event.message;
  return `  ↪ hook ${event.event} ${event.command} (${ended}, ${event.duration_ms} ms${decision})${
    why === undefined ? "" : `: ${why}`
  }`;
}
