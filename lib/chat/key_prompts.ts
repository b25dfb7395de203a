// Prompts typed in a terminal: raw keys into the line editor shown in the live region, approval questions answered
// with a whole word and Enter (y, yes, n, no, a, always), Ctrl-C or Esc to cancel a turn, Ctrl-C twice or Ctrl-D
// to leave, Ctrl-Z to suspend.
import { stripControls, type Style } from "../render/index.ts";
import type { Key } from "./keys.ts";
import { LineEditor } from "./line_editor.ts";
import {
  APPROVAL_ANSWERS_HINT,
  approvalAnswer,
  type ChatControls,
  CONTINUATION,
  PROMPT,
  type PromptSource,
  type PromptView,
} from "./prompt_source.ts";
import { type KeyTerminal, RawKeys } from "./raw_keys.ts";
import { cursorColumn } from "./screen.ts";
import { SLASH_COMMANDS } from "./slash.ts";

export class KeyPrompts implements PromptSource {
  readonly usageHint =
    "Enter sends · Ctrl-J new line · /help (Tab completes) · Ctrl-R searches history · Ctrl-C twice exits";
  readonly #keys: RawKeys;
  readonly #style: Style;
  #chat!: ChatControls;
  #editor = new LineEditor();
  #hint = "";
  /** What was typed as the answer to the approval question being asked (never the prompt's text). */
  #answer = "";
  #answerHint = "";

  constructor(terminal: KeyTerminal, style: Style) {
    this.#keys = new RawKeys(terminal);
    this.#style = style;
  }

  banner(style: Style): { title: string; rows: string[] } {
    return { title: style.bold("scv chat"), rows: [] };
  }

  attach(chat: ChatControls, history: string[]): void {
    this.#chat = chat;
    // The chat's own commands, then the session's custom ones (issue 30).
    this.#editor = new LineEditor(history, () => [
      ...COMMAND_NAMES,
      ...chat.controller.commands.map((command) => command.name).filter((name) => !COMMAND_NAMES.includes(name)),
    ]);
    this.#keys.start({ key: (key) => this.#onKey(key), end: () => chat.exit(0), error: () => chat.exit(129) });
    chat.render([]);
  }

  run(): void {}

  decide(): boolean | undefined {
    return undefined;
  }

  // The question is shown in the live region (see view): nothing to commit.
  ask(): void {
    this.#answer = "";
    this.#answerHint = "";
  }

  view(room: number): PromptView {
    const s = this.#style;
    const approval = { typed: this.#answer, ...(this.#answerHint ? { hint: this.#answerHint } : {}) };
    const search = this.#editor.search;
    if (search) {
      const label = search.match === undefined && search.query !== ""
        ? "search history (no match): "
        : "search history: ";
      const found = search.match === undefined ? "" : `  ${s.dim("→")} ${firstLine(stripControls(search.match))}`;
      return {
        rows: [`${s.yellow(label)}${search.query}${found}`],
        cursorRow: 0,
        cursorColumn: cursorColumn(label, search.query),
        hint: "Enter takes it · Ctrl-R older · Esc or Ctrl-G cancels",
        approval,
      };
    }
    const text = this.#editor.text;
    const lines = text.split("\n");
    const before = text.slice(0, this.#editor.cursor).split("\n");
    const cursorLine = before.length - 1;
    // A prompt taller than the room left shows a window of lines around the cursor.
    const start = Math.max(0, Math.min(cursorLine - room + 1, lines.length - room));
    const rows = lines
      .slice(start, start + room)
      .map((line, index) => `${s.bold(index + start === 0 ? PROMPT : CONTINUATION)}${line}`);
    return {
      rows,
      cursorRow: cursorLine - start,
      cursorColumn: cursorColumn(cursorLine === 0 ? PROMPT : CONTINUATION, before[cursorLine]!),
      ...(this.#hint ? { hint: this.#hint } : {}),
      approval,
    };
  }

  interrupt(): void {
    if (!this.#chat.cancelTurn()) this.#chat.exit(130);
  }

  detach(): void {
    this.#keys.stop();
  }

  #onKey(key: Key): void {
    const chat = this.#chat;
    if (chat.closing) return;
    if (key.name === "suspend") {
      chat.clearLive();
      return this.#keys.suspend(() => chat.render([]));
    }
    if (chat.controller.asking) {
      if (key.name !== "ctrl-c" && key.name !== "escape") return this.#answerKey(key);
    }
    if (chat.picking && this.#pickerKey(key)) return;
    this.#answer = "";
    this.#answerHint = "";
    const action = this.#editor.handle(key, chat.controller.busy);
    this.#hint = "";
    switch (action.type) {
      case "submit":
        // `y` and Enter typed during a turn, just as its question closed (or before it opened), is an approval
        // answer gone astray: it would be queued as the next prompt.
        if (chat.controller.busy && approvalAnswer(action.text) !== undefined) {
          this.#hint = `not sent: "${action.text.trim()}" looks like an approval answer, and no question is open`;
          break;
        }
        void chat.saveHistory(this.#editor.history);
        void chat.submit(action.text);
        return;
      case "cancel-turn":
        chat.cancelTurn();
        return;
      case "exit-hint":
        this.#hint = "Press Ctrl-C again to exit";
        break;
      case "candidates":
        this.#hint = action.names.map((name) => `/${name}`).join("  ");
        break;
      case "exit":
        chat.exit(0);
        return;
    }
    chat.render([]);
  }

  // The session picker's own keys: Enter on an empty line asks for a new session, Esc and Ctrl-C leave it. True
  // when the key was one of them.
  #pickerKey(key: Key): boolean {
    const chat = this.#chat;
    if (key.name === "enter" && this.#editor.text.trim() === "") {
      void chat.submit("");
      return true;
    }
    if (key.name !== "escape" && key.name !== "ctrl-c") return false;
    this.#editor.text = "";
    this.#editor.cursor = 0;
    this.#hint = "";
    void chat.leavePicker(key.name);
    return true;
  }

  // A key while an approval question is asked: it edits the answer, which Enter gives. Nothing typed here reaches
  // the prompt, so a stray `yes` and Enter is never sent to the model.
  #answerKey(key: Key): void {
    const chat = this.#chat;
    switch (key.name) {
      case "text": {
        // `v` or space on their own: the next page of a long diff.
        if (this.#answer === "" && (key.text === "v" || key.text === " ")) return chat.pageApproval();
        const typed = (this.#answer + key.text.replace(/\s+/g, " ")).trimStart();
        this.#answer = typed.length > MAX_ANSWER ? this.#answer : typed;
        break;
      }
      case "backspace":
        this.#answer = [...this.#answer].slice(0, -1).join("");
        break;
      case "kill-line-start":
      case "kill-word":
        this.#answer = "";
        break;
      case "enter":
      case "newline": {
        const answer = approvalAnswer(this.#answer);
        this.#answer = "";
        if (answer) {
          this.#answerHint = "";
          return chat.answer(answer);
        }
        this.#answerHint = APPROVAL_ANSWERS_HINT;
        break;
      }
      default:
        return;
    }
    chat.render([]);
  }
}

const COMMAND_NAMES = SLASH_COMMANDS.map((command) => command.name);

/** The first line of a multi-line history entry, marked when there is more. */
function firstLine(text: string): string {
  const newline = text.indexOf("\n");
  return newline < 0 ? text : `${text.slice(0, newline)} …`;
}

/** Longer than any answer: more is not kept. */
const MAX_ANSWER = 16;
