// The demo's prompts: typed for the user (at a readable pace in a terminal), approvals granted automatically, and
// in a terminal Ctrl-C, Esc or q stop it (the recorded script cannot resume from a cancelled turn, so it leaves).
import type { PendingApproval } from "../client/index.ts";
import type { Style } from "../render/index.ts";
import type { Key } from "./keys.ts";
import { type ChatControls, PROMPT, type PromptSource, type PromptView } from "./prompt_source.ts";
import { type KeyTerminal, RawKeys } from "./raw_keys.ts";
import { cursorColumn } from "./screen.ts";

export type DemoPacing = { pauseMs: number; typeMs: number };

export class DemoPrompts implements PromptSource {
  readonly usageHint = undefined;
  readonly #prompts: string[];
  readonly #style: Style;
  /** Keys (and pacing) only in a terminal. */
  readonly #keys: RawKeys | undefined;
  readonly #pacing: DemoPacing | undefined;
  #chat!: ChatControls;
  #stopping = false;
  /** The part of a prompt "typed" so far, shown in the prompt row. */
  #typed: string | undefined;

  constructor(prompts: string[], style: Style, terminal: KeyTerminal | undefined, pacing: DemoPacing | undefined) {
    this.#prompts = prompts;
    this.#style = style;
    this.#keys = terminal ? new RawKeys(terminal) : undefined;
    this.#pacing = terminal ? pacing : undefined;
  }

  banner(style: Style): { title: string; rows: string[] } {
    return {
      title: `${style.bold("scv chat")}${style.yellow(" · offline demo (recorded responses, no network)")}`,
      rows: this.#keys ? [style.dim("Ctrl-C or q stops the demo")] : [],
    };
  }

  attach(chat: ChatControls): void {
    this.#chat = chat;
    // Keys are read (no echo into the live region) only to stop the demo.
    this.#keys?.start({ key: (key) => this.#onKey(key), end: () => chat.exit(0), error: () => chat.exit(129) });
    if (this.#keys) chat.render([]);
  }

  run(): void {
    void this.#play();
  }

  decide(approval: PendingApproval): boolean {
    const indent = this.#chat.indentOf(approval.callId);
    this.#chat.note(
      [`${indent}  [demo] approved automatically (in a real chat you answer y, n or a)`],
      this.#style.yellow,
    );
    return true;
  }

  ask(): void {}

  view(): PromptView | undefined {
    if (this.#typed === undefined) return undefined;
    return {
      rows: [`${this.#style.bold(PROMPT)}${this.#typed}`],
      cursorRow: 0,
      cursorColumn: cursorColumn(PROMPT, this.#typed),
    };
  }

  interrupt(): void {
    this.#stop(130);
  }

  detach(): void {
    this.#keys?.stop();
  }

  #onKey(key: Key): void {
    const chat = this.#chat;
    if (chat.closing) return;
    if (key.name === "suspend") {
      chat.clearLive();
      return this.#keys!.suspend(() => chat.render([]));
    }
    if (key.name === "ctrl-c") this.#stop(130);
    else if (
      key.name === "escape" || key.name === "ctrl-d" || (key.name === "text" && key.text.trim().toLowerCase() === "q")
    ) this.#stop(0);
  }

  #stopped(): boolean {
    return this.#chat.closing || this.#stopping;
  }

  async #play(): Promise<void> {
    const chat = this.#chat;
    for (const prompt of this.#prompts) {
      if (this.#stopped()) return;
      chat.render([this.#style.yellow("[demo] typed for you:")]);
      if (await this.#type(prompt)) return;
      await chat.submit(prompt);
      await chat.controller.turnEnded();
    }
    if (this.#stopping) return;
    chat.note(["[demo] finished · run `scv chat` in a project for a real session"]);
    chat.exit(0);
  }

  /** Shows `prompt` being typed (in a terminal with pacing); resolves true when the demo was stopped meanwhile. */
  async #type(prompt: string): Promise<boolean> {
    const pacing = this.#pacing;
    if (!pacing) return false;
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    this.#typed = "";
    this.#chat.render([]);
    await sleep(pacing.pauseMs);
    for (const char of prompt) {
      if (this.#stopped()) break;
      this.#typed += char;
      this.#chat.render([]);
      await sleep(pacing.typeMs);
    }
    if (!this.#stopped()) await sleep(pacing.pauseMs / 2);
    this.#typed = undefined;
    return this.#stopped();
  }

  // Stopping cancels the running turn and leaves once it has ended.
  #stop(code: number): void {
    if (this.#stopping) return;
    this.#stopping = true;
    const chat = this.#chat;
    const leave = () => {
      chat.render([this.#style.yellow("[demo] stopped")]);
      chat.exit(code);
    };
    if (chat.cancelTurn()) void chat.controller.turnEnded().then(leave);
    else leave();
  }
}
