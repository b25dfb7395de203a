// The prompt's line editor as a pure state machine: text with a cursor, multi-line input (Ctrl-J),
// history browsing (up/down), reverse incremental history search (Ctrl-R), slash-command completion (Tab),
// and the Ctrl-C / Esc rules. The app renders `text` and `cursor` (and `search` while one runs).
import type { Key } from "./keys.ts";

export type EditorAction =
  | { type: "none" }
  | { type: "changed" }
  | { type: "submit"; text: string }
  | { type: "cancel-turn" }
  | { type: "exit-hint" }
  | { type: "exit" }
  | { type: "redraw" }
  | { type: "candidates"; names: string[] };

/** A history search in progress: what was typed, and the entry it found (newest first), if any. */
export type HistorySearch = { query: string; match: string | undefined };

export class LineEditor {
  text = "";
  /** Index into `text` (UTF-16 units, always on a code point boundary). */
  cursor = 0;
  #history: string[];
  #historyIndex: number;
  #draft = "";
  #exitArmed = false;
  readonly #commands: () => readonly string[];
  #search: { query: string; index: number | undefined; text: string; cursor: number } | undefined;

  /** `commands`: the slash command names Tab completes (a function: the session's custom commands come and go). */
  constructor(history: string[] = [], commands: readonly string[] | (() => readonly string[]) = []) {
    this.#history = [...history];
    this.#historyIndex = this.#history.length;
    this.#commands = typeof commands === "function" ? commands : () => commands;
  }

  get history(): readonly string[] {
    return this.#history;
  }

  /** The history search in progress (Ctrl-R), or undefined. */
  get search(): HistorySearch | undefined {
    const search = this.#search;
    if (!search) return undefined;
    return { query: search.query, match: search.index === undefined ? undefined : this.#history[search.index] };
  }

  /** `busy`: a turn is running, so Ctrl-C and Esc cancel it instead of editing. */
  handle(key: Key, busy = false): EditorAction {
    if (this.#search) {
      const handled = this.#searchKey(key);
      if (handled) return handled;
    }
    if (key.name !== "ctrl-c") this.#exitArmed = false;
    switch (key.name) {
      case "text":
        this.#insert(key.text);
        return { type: "changed" };
      case "newline":
        this.#insert("\n");
        return { type: "changed" };
      case "enter": {
        if (this.text.trim() === "") return { type: "none" };
        const text = this.text;
        this.remember(text);
        this.#set("");
        return { type: "submit", text };
      }
      case "backspace":
        if (this.cursor === 0) return { type: "none" };
        {
          const before = [...this.text.slice(0, this.cursor)];
          const removed = before.pop()!;
          this.text = before.join("") + this.text.slice(this.cursor);
          this.cursor -= removed.length;
        }
        return { type: "changed" };
      case "delete": {
        if (this.cursor >= this.text.length) return { type: "none" };
        const next = String.fromCodePoint(this.text.codePointAt(this.cursor)!);
        this.text = this.text.slice(0, this.cursor) + this.text.slice(this.cursor + next.length);
        return { type: "changed" };
      }
      case "left":
        if (this.cursor === 0) return { type: "none" };
        this.cursor -= [...this.text.slice(0, this.cursor)].pop()!.length;
        return { type: "changed" };
      case "right":
        if (this.cursor >= this.text.length) return { type: "none" };
        this.cursor += String.fromCodePoint(this.text.codePointAt(this.cursor)!).length;
        return { type: "changed" };
      case "home":
        this.cursor = this.#lineStart();
        return { type: "changed" };
      case "end":
        this.cursor = this.#lineEnd();
        return { type: "changed" };
      case "kill-line-start": {
        const start = this.#lineStart();
        this.text = this.text.slice(0, start) + this.text.slice(this.cursor);
        this.cursor = start;
        return { type: "changed" };
      }
      case "kill-line-end":
        this.text = this.text.slice(0, this.cursor) + this.text.slice(this.#lineEnd());
        return { type: "changed" };
      case "kill-word": {
        const before = this.text.slice(0, this.cursor);
        const kept = before.replace(/\S+\s*$|\s+$/, "");
        this.text = kept + this.text.slice(this.cursor);
        this.cursor = kept.length;
        return { type: "changed" };
      }
      case "up":
        if (this.#newlineBefore(this.cursor) >= 0) return this.#verticalMove(-1);
        return this.#browse(-1);
      case "down":
        if (this.text.indexOf("\n", this.cursor) >= 0) return this.#verticalMove(1);
        return this.#browse(1);
      case "escape":
        if (busy) return { type: "cancel-turn" };
        if (this.text === "") return { type: "none" };
        this.#set("");
        return { type: "changed" };
      case "ctrl-c":
        if (busy) return { type: "cancel-turn" };
        if (this.text !== "") {
          this.#exitArmed = false;
          this.#set("");
          return { type: "changed" };
        }
        if (this.#exitArmed) return { type: "exit" };
        this.#exitArmed = true;
        return { type: "exit-hint" };
      case "ctrl-d":
        if (this.text === "" && !busy) return { type: "exit" };
        return this.handle({ name: "delete" }, busy);
      case "redraw":
        return { type: "redraw" };
      case "suspend":
      case "ctrl-g":
        return { type: "none" };
      case "tab":
        return this.#complete();
      case "search-history":
        if (this.#history.length === 0) return { type: "none" };
        this.#search = { query: "", index: undefined, text: this.text, cursor: this.cursor };
        return { type: "changed" };
    }
  }

  // Tab after `/` and the start of a command name: a unique prefix completes (with a space for the argument),
  // an ambiguous one completes what the candidates share and lists them. Anywhere else Tab types two spaces.
  #complete(): EditorAction {
    const typed = /^\/(\S*)$/.exec(this.text);
    if (!typed || this.cursor !== this.text.length) {
      this.#insert("  ");
      return { type: "changed" };
    }
    const prefix = typed[1]!.toLowerCase();
    const names = this.#commands().filter((name) => name.startsWith(prefix));
    if (names.length === 0) return { type: "none" };
    if (names.length === 1) {
      this.#set(`/${names[0]} `);
      return { type: "changed" };
    }
    let common = names[0]!;
    for (const name of names) while (!name.startsWith(common)) common = common.slice(0, -1);
    if (common.length > prefix.length) this.#set(`/${common}`);
    return { type: "candidates", names };
  }

  // A key during a history search; undefined when the search ended and the key is handled as usual.
  #searchKey(key: Key): EditorAction | undefined {
    const search = this.#search!;
    switch (key.name) {
      case "text":
        search.query += key.text;
        search.index = this.#find(search.query, search.index ?? this.#history.length - 1);
        return { type: "changed" };
      case "backspace":
        search.query = [...search.query].slice(0, -1).join("");
        search.index = search.query === "" ? undefined : this.#find(search.query, this.#history.length - 1);
        return { type: "changed" };
      case "search-history": {
        // Ctrl-R again: the next older entry that matches.
        if (search.query === "") return { type: "none" };
        const older = search.index === undefined ? undefined : this.#find(search.query, search.index - 1);
        if (older !== undefined) search.index = older;
        return { type: "changed" };
      }
      case "escape":
      case "ctrl-g":
      case "ctrl-c":
        this.#search = undefined;
        this.text = search.text;
        this.cursor = search.cursor;
        return { type: "changed" };
      case "enter":
        this.#acceptSearch();
        return { type: "changed" };
      default:
        // Any other key takes the match into the prompt and then does what it does there.
        this.#acceptSearch();
        return undefined;
    }
  }

  #acceptSearch(): void {
    const search = this.#search!;
    this.#search = undefined;
    if (search.index === undefined) return;
    this.text = this.#history[search.index]!;
    this.cursor = this.text.length;
    this.#historyIndex = search.index;
    this.#draft = search.text;
  }

  /** The newest history entry at or before `from` that contains `query` (ignoring case), or undefined. */
  #find(query: string, from: number): number | undefined {
    const needle = query.toLowerCase();
    for (let index = Math.min(from, this.#history.length - 1); index >= 0; index -= 1)
      if (this.#history[index]!.toLowerCase().includes(needle)) return index;
    return undefined;
  }

  /** Adds a submitted prompt to the in-memory history (consecutive duplicates collapse). */
  remember(text: string): void {
    if (this.#history.at(-1) !== text) this.#history.push(text);
    this.#historyIndex = this.#history.length;
    this.#draft = "";
  }

  #set(text: string): void {
    this.text = text;
    this.cursor = text.length;
    this.#historyIndex = this.#history.length;
  }

  #insert(text: string): void {
    this.text = this.text.slice(0, this.cursor) + text + this.text.slice(this.cursor);
    this.cursor += text.length;
  }

  /** Index of the last newline strictly before `position`, or -1. */
  #newlineBefore(position: number): number {
    return position <= 0 ? -1 : this.text.lastIndexOf("\n", position - 1);
  }

  #lineStart(): number {
    return this.#newlineBefore(this.cursor) + 1;
  }

  #lineEnd(): number {
    const end = this.text.indexOf("\n", this.cursor);
    return end < 0 ? this.text.length : end;
  }

  #verticalMove(direction: -1 | 1): EditorAction {
    const start = this.#lineStart();
    const column = [...this.text.slice(start, this.cursor)].length;
    let targetStart: number;
    if (direction < 0) {
      targetStart = this.#newlineBefore(start - 1) + 1;
    } else {
      targetStart = this.#lineEnd() + 1;
    }
    let targetEnd = this.text.indexOf("\n", targetStart);
    if (targetEnd < 0) targetEnd = this.text.length;
    const chars = [...this.text.slice(targetStart, targetEnd)].slice(0, column);
    this.cursor = targetStart + chars.join("").length;
    return { type: "changed" };
  }

  #browse(direction: -1 | 1): EditorAction {
    const next = this.#historyIndex + direction;
    if (next < 0 || next > this.#history.length) return { type: "none" };
    if (this.#historyIndex === this.#history.length) this.#draft = this.text;
    this.#historyIndex = next;
    this.text = next === this.#history.length ? this.#draft : this.#history[next]!;
    this.cursor = this.text.length;
    return { type: "changed" };
  }
}
