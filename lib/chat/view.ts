// What the chat shows: committed transcript rows, and in a terminal the live region below them (the tail of the
// streaming line, running tools' latest progress, the approval question, the prompt and the status line).
import { alwaysScope, keepScope } from "../render/index.ts";
import {
  displayWidth,
  type Paint,
  stripControls,
  type Style,
  tailAtWidth,
  Transcript,
  truncateText,
  wrapPlain,
} from "../render/index.ts";
import { type SessionController } from "../client/index.ts";
import type { PromptView } from "./prompt_source.ts";
import { InlineScreen, type LiveRegion, PlainScreen, type Screen } from "./screen.ts";
import { formatStatus, TurnActivity } from "./status.ts";

export type ViewTerminal = {
  output: NodeJS.WritableStream;
  /** The inline live region (a terminal), or committed rows only (a pipe or file). */
  interactive: boolean;
  color: boolean;
  columns: () => number;
  /** Terminal height; the live region is kept below it so it can always be redrawn in place. */
  rows?: () => number;
};

/** The end of `text` that fits in `maxRows` rows of `columns`, marked with "…" when cut. */
export function tailToRows(text: string, columns: number, maxRows: number): string {
  const budget = columns * maxRows - 1;
  if (displayWidth(text) <= budget + 1) return text;
  return `…${tailAtWidth(text, budget - 1)}`;
}

export class ChatView {
  readonly style: Style;
  readonly transcript: Transcript;
  readonly #terminal: ViewTerminal;
  readonly #screen: Screen;
  readonly #controller: SessionController;
  readonly #prompt: (room: number) => PromptView | undefined;
  /** The model to show before a session is up. */
  model: string | undefined;
  /** The running turn's elapsed time, spinner and retries, and the context in use, for the status line. */
  readonly activity: TurnActivity;
  #closed = false;

  /** `prompt` gives the prompt source's rows for the live region. */
  constructor(
    terminal: ViewTerminal,
    style: Style,
    controller: SessionController,
    prompt: (room: number) => PromptView | undefined,
  ) {
    this.#terminal = terminal;
    this.#controller = controller;
    this.#prompt = prompt;
    this.style = style;
    this.#screen = terminal.interactive
      ? new InlineScreen(terminal.output, terminal.columns)
      : new PlainScreen(terminal.output);
    this.transcript = new Transcript(this.style, this.width());
    this.activity = new TurnActivity(terminal.interactive ? (terminal.color ? "unicode" : "ascii") : "none");
  }

  width(): number {
    return Math.max(20, Math.min(this.#terminal.columns(), 200));
  }

  /** Rows of plain text, word-wrapped to the terminal and painted (dim by default). */
  wrapped(rows: string[], paint: Paint = this.style.dim): string[] {
    return rows.flatMap((row) => wrapPlain(row, this.width() - 1)).map((row) => paint(row));
  }

  render(commit: string[]): void {
    if (this.#closed && commit.length === 0) return;
    this.#screen.draw(commit, this.#screen.interactive && !this.#closed ? this.#live() : undefined);
  }

  /** Clears the live region (it is drawn again by the next render). */
  clearLive(): void {
    this.#screen.draw([]);
  }

  /** After a terminal resize. */
  redraw(): void {
    this.transcript.setWidth(this.width());
    this.render([]);
  }

  /** Clears the live region for good; later renders commit rows only. */
  close(): void {
    this.#closed = true;
    this.#screen.close();
  }

  #live(): LiveRegion {
    const s = this.style;
    const width = this.width();
    const rows: string[] = [];
    const height = Math.max(6, this.#terminal.rows?.() ?? 24);
    const streaming = this.transcript.streaming;
    const tailRows = Math.max(1, Math.floor(height / 3));
    // Lines held back (a table being received) show raw, the last few only; they are drawn once complete.
    for (const line of streaming.held.slice(-tailRows)) rows.push(s.dim(truncateText(line, width - 1)));
    // The unfinished line: its rows as they will be printed (with text that arrived since, if any), or, when that
    // cannot be known yet, the tail of it.
    if (streaming.rendered !== undefined) {
      const rendered = streaming.rendered.slice(-tailRows);
      const last = `${rendered.pop() ?? ""}${streaming.raw}`;
      rows.push(...rendered, displayWidth(last) < width ? last : tailToRows(streaming.raw, width, 1));
    } else if (streaming.raw !== "") rows.push(tailToRows(streaming.raw, width, tailRows));
    rows.push(...this.transcript.liveProgress.slice(-3));
    const asking = this.#controller.asking;
    if (asking) {
      const name = truncateText(stripControls(asking.name), 20);
      const keep = keepScope(asking);
      const long = `${s.yellow("?")} Allow ${s.bold(name)}? ${s.bold("[y]")}es / ${s.bold("[n]")}o / ${s.bold("[a]")}${
        alwaysScope(asking)
      }${keep === undefined ? "" : ` / ${s.bold("[k]")}${keep}`} `;
      const short = `${s.yellow("?")} Allow ${s.bold(name)}? ${s.bold("y")}/${s.bold("n")}/${s.bold("a")}(lways)${
        keep === undefined ? "" : `/${s.bold("k")}(eep)`
      } `;
      const answer = this.#prompt(1)?.approval;
      const typed = answer?.typed ?? "";
      const question = displayWidth(long) + displayWidth(typed) < width ? long : short;
      rows.push(`${question}${typed}`);
      // The question takes the cursor; the prompt (and what was typed there) comes back once it is answered.
      const cursor = { cursorRow: rows.length - 1, cursorColumn: displayWidth(rows.at(-1)!) };
      rows.push(answer?.hint ? s.yellow(truncateText(answer.hint, width - 1)) : this.#status(width));
      return { rows, ...cursor };
    }
    const prompt = this.#prompt(Math.max(1, height - rows.length - 2));
    if (!prompt) {
      rows.push(this.#status(width));
      return { rows, cursorRow: rows.length - 1, cursorColumn: displayWidth(rows.at(-1)!) };
    }
    const first = rows.length;
    rows.push(...prompt.rows);
    rows.push(prompt.hint ? s.yellow(truncateText(prompt.hint, width - 1)) : this.#status(width));
    return { rows, cursorRow: first + prompt.cursorRow, cursorColumn: prompt.cursorColumn };
  }

  #status(width: number): string {
    return formatStatus(
      {
        model: String(this.#controller.session?.model ?? this.model ?? ""),
        state: this.#controller.state,
        lastUsage: this.transcript.lastUsage,
        totalUsage: this.transcript.totalUsage,
        width,
        activity: this.activity.view(),
      },
      this.style,
    );
  }
}
