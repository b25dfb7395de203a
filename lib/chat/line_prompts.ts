// Prompts read from a pipe or file, one per line, each sent once the previous turn has ended; an approval question
// takes the next line as its answer (y, yes, a or always approve, n or no denies, anything else asks again; the
// end of input denies), and says that it read it.
import { createInterface } from "node:readline";
import type { PendingApproval } from "../client/index.ts";
import type { Style } from "../render/index.ts";
import { alwaysScope, keepScope } from "../render/index.ts";
import { boundedChars } from "../util/text_bounds.ts";
import { visibleText } from "../util/visible_text.ts";
import { LineEditor } from "./line_editor.ts";
import { APPROVAL_ANSWERS_HINT, approvalAnswer, type ChatControls, type PromptSource } from "./prompt_source.ts";

export class LinePrompts implements PromptSource {
  readonly usageHint = "Enter sends · Ctrl-J new line · /help for commands · Ctrl-C twice exits";
  readonly #input: NodeJS.ReadableStream;
  #chat!: ChatControls;
  #editor = new LineEditor();
  #lines: string[] = [];
  #ended = false;
  #waiter: ((line: string | undefined) => void) | undefined;

  constructor(input: NodeJS.ReadableStream) {
    this.#input = input;
  }

  banner(style: Style): { title: string; rows: string[] } {
    return { title: style.bold("scv chat"), rows: [] };
  }

  attach(chat: ChatControls, history: string[]): void {
    this.#chat = chat;
    this.#editor = new LineEditor(history);
  }

  run(): void {
    const lines = createInterface({ input: this.#input, crlfDelay: Infinity });
    lines.on("line", (line) => {
      if (this.#waiter) {
        const wake = this.#waiter;
        this.#waiter = undefined;
        wake(line);
      } else {
        this.#lines.push(line);
        this.#answerFromLines();
      }
    });
    lines.on("close", () => {
      this.#ended = true;
      this.#answerFromLines();
      this.#waiter?.(undefined);
    });
    void this.#loop();
  }

  decide(): boolean | undefined {
    return undefined;
  }

  ask(approval: PendingApproval): void {
    this.#chat.render([question(approval)]);
    this.#answerFromLines();
  }

  view(): undefined {
    return undefined;
  }

  interrupt(): void {
    if (!this.#chat.cancelTurn()) this.#chat.exit(130);
  }

  detach(): void {}

  async #loop(): Promise<void> {
    const chat = this.#chat;
    for (;;) {
      const line = await this.#next();
      if (line === undefined) break;
      // An empty line answers the session picker (a new session); elsewhere it is nothing.
      if (line.trim() === "" && !chat.picking) continue;
      this.#editor.remember(line);
      await chat.saveHistory(this.#editor.history);
      if (await chat.submit(line)) return;
      await chat.controller.turnEnded();
    }
    chat.exit(0);
  }

  #next(): Promise<string | undefined> {
    return new Promise((resolve) => {
      if (this.#lines.length > 0) resolve(this.#lines.shift());
      else if (this.#ended) resolve(undefined);
      else this.#waiter = resolve;
    });
  }

  #answerFromLines(): void {
    const chat = this.#chat;
    for (;;) {
      const asking = chat.controller.asking;
      if (!asking) return;
      const line = this.#lines.shift();
      if (line === undefined) {
        if (!this.#ended) return;
        chat.render(["approval: no (end of input)"]);
        return chat.answer("n");
      }
      const answer = approvalAnswer(line);
      if (answer) {
        chat.render([`approval: ${WORDS[answer]} (read from stdin)`]);
        return chat.answer(answer);
      }
      const shown = boundedChars(visibleText(line.trim()), 40);
      chat.render([`approval: "${shown}" is not an answer; ${APPROVAL_ANSWERS_HINT}`, question(asking)]);
    }
  }
}

const WORDS = { y: "yes", n: "no", a: "always", k: "keep" } as const;

function question(approval: PendingApproval): string {
  const keep = keepScope(approval);
  return `Allow? [y]es / [n]o / [a]${alwaysScope(approval)}${keep === undefined ? "" : ` / [k]${keep}`}:`;
}
