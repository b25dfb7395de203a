// Output surfaces. InlineScreen writes in the normal screen (no alternate screen, so scrollback keeps everything):
// committed rows scroll up for good, and a small live region (the streaming line, the prompt, the status line)
// is redrawn in place below them. PlainScreen is line mode for pipes and files: committed rows only.
import { displayWidth, rowsFor } from "../render/index.ts";

export type LiveRegion = { rows: string[]; cursorRow: number; cursorColumn: number };

export interface Screen {
  readonly interactive: boolean;
  draw(commit: string[], live?: LiveRegion): void;
  /** Clears the live region for good (at exit). */
  close(): void;
}

export class PlainScreen implements Screen {
  readonly interactive = false;
  #out: NodeJS.WritableStream;
  constructor(out: NodeJS.WritableStream) {
    this.#out = out;
  }
  draw(commit: string[]): void {
    if (commit.length > 0) this.#out.write(commit.map((row) => `${row}\n`).join(""));
  }
  close(): void {}
}

export class InlineScreen implements Screen {
  readonly interactive = true;
  #out: NodeJS.WritableStream;
  #columns: () => number;
  /** Physical rows between the top of the live region and the cursor. */
  #cursorFromTop = 0;
  #drawn = false;
  /** The live region as last drawn and the width it was drawn at, to find its top again after a resize. */
  #last: { live: LiveRegion; columns: number } | undefined;

  constructor(out: NodeJS.WritableStream, columns: () => number) {
    this.#out = out;
    this.#columns = columns;
  }

  draw(commit: string[], live?: LiveRegion): void {
    const columns = Math.max(1, this.#columns());
    let text = "\x1b[?25l";
    if (this.#drawn) {
      const up = this.#last && this.#last.columns !== columns
        ? reflowedCursorRow(this.#last.live, columns)
        : this.#cursorFromTop;
      text += `\r${up > 0 ? `\x1b[${up}A` : ""}\x1b[J`;
    }
    for (const row of commit) text += `${row}\n`;
    if (live && live.rows.length > 0) {
      let physical = 0;
      let target = 0;
      const column = live.cursorColumn;
      live.rows.forEach((row, index) => {
        let rows = rowsFor(row, columns);
        if (index === live.cursorRow) {
          const cursorRows = Math.floor(column / columns) + 1;
          target = physical + cursorRows - 1;
          if (cursorRows > rows) {
            // The cursor sits just past a row that fills the width: give it the next row.
            row += "\n";
            rows = cursorRows;
          }
        }
        text += row + (index < live.rows.length - 1 ? "\n" : "");
        physical += rows;
      });
      const up = physical - 1 - target;
      text += `${up > 0 ? `\x1b[${up}A` : ""}\r${column % columns > 0 ? `\x1b[${column % columns}C` : ""}`;
      this.#cursorFromTop = target;
      this.#drawn = true;
      this.#last = { live, columns };
    } else {
      this.#cursorFromTop = 0;
      this.#drawn = false;
      this.#last = undefined;
    }
    this.#out.write(`${text}\x1b[?25h`);
  }

  close(): void {
    this.draw([]);
  }
}

/**
 * The cursor's row within a live region after the terminal re-wrapped it to `columns` (terminals such as tmux,
 * VTE, iTerm2 and kitty reflow soft-wrapped lines on resize; our own line breaks stay hard).
 */
export function reflowedCursorRow(live: LiveRegion, columns: number): number {
  let row = 0;
  for (let index = 0; index < live.cursorRow && index < live.rows.length; index += 1)
    row += rowsFor(live.rows[index]!, columns);
  return row + Math.floor(live.cursorColumn / columns);
}

/** Display column of the cursor within its row, for a row prefix and the text before the cursor. */
export function cursorColumn(prefix: string, before: string): number {
  return displayWidth(prefix) + displayWidth(before);
}
