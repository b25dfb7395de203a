// The prompt's line editor as a pure state machine: text with a cursor, multi-line input (Ctrl-J),
// history browsing (up/down), and the Ctrl-C / Esc rules. The app renders `text` and `cursor`.
import type { Key } from "./keys.ts";

export type EditorAction =
  | { type: "none" }
  | { type: "changed" }
  | { type: "submit"; text: string }
  | { type: "cancel-turn" }
  | { type: "exit-hint" }
  | { type: "exit" }
  | { type: "redraw" };

export class LineEditor {
  text = "";
  /** Index into `text` (UTF-16 units, always on a code point boundary). */
  cursor = 0;
  #history: string[];
  #historyIndex: number;
  #draft = "";
  #exitArmed = false;

  constructor(history: string[] = []) {
    this.#history = [...history];
    this.#historyIndex = this.#history.length;
  }

  get history(): readonly string[] {
    return this.#history;
  }

  /** `busy`: a turn is running, so Ctrl-C and Esc cancel it instead of editing. */
  handle(key: Key, busy = false): EditorAction {
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
        return { type: "none" };
    }
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
