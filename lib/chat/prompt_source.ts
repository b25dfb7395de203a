// Where the chat's prompts come from, chosen once when the chat is made: keys typed in a terminal (a line editor
// in the live region), lines read from a pipe, or the demo's recorded prompts. The chat asks its source for what
// differs between them and never checks which one it has.
import type { Paint, Style } from "../render/index.ts";
import type { PendingApproval, SessionController } from "../client/index.ts";

export const PROMPT = "› ";
export const CONTINUATION = "  ";

/**
 * The prompt's rows in the live region, its cursor, and a hint shown instead of the status line; `approval`: what
 * was typed as the answer to an approval question, and a hint when the last answer was not one.
 */
export type PromptView = {
  rows: string[];
  cursorRow: number;
  cursorColumn: number;
  hint?: string;
  approval?: { typed: string; hint?: string };
};

/** Yes, no, always for this session, or keep for good (the engine's rule, added to the user file). */
export type ApprovalAnswer = "y" | "n" | "a" | "k";

const ANSWERS: Record<string, ApprovalAnswer> = {
  y: "y",
  yes: "y",
  n: "n",
  no: "n",
  a: "a",
  always: "a",
  k: "k",
  keep: "k",
};

/** Shown when an approval answer is not one of the allowed words. */
export const APPROVAL_ANSWERS_HINT = "answer y, yes, n, no, a, always, k or keep, then Enter";

/** The approval answer a typed line means (any case, surrounding spaces ignored), or undefined. */
export function approvalAnswer(text: string): ApprovalAnswer | undefined {
  return Object.hasOwn(ANSWERS, text.trim().toLowerCase()) ? ANSWERS[text.trim().toLowerCase()] : undefined;
}

/** What a prompt source may do to the chat. */
export interface ChatControls {
  readonly style: Style;
  readonly controller: SessionController;
  readonly closing: boolean;
  /** True while the session picker waits for its answer: Enter alone takes a new session. */
  readonly picking: boolean;
  /** Esc or Ctrl-C at the session picker: back to the open session; with none, Esc starts one and Ctrl-C quits. */
  leavePicker(key: "escape" | "ctrl-c"): Promise<void>;
  /** Commits rows to the transcript and redraws the live region. */
  render(commit: string[]): void;
  /** Rows of plain text, word-wrapped and painted (dim by default), committed. */
  note(rows: string[], paint?: Paint): void;
  /** Handles a prompt or a slash command; resolves true when the chat should end. */
  submit(text: string): Promise<boolean>;
  /** Answers the approval question being asked: yes, no, always (for this session) or keep (for good). */
  answer(answer: ApprovalAnswer): void;
  /** Shows the next page of the asked approval's diff (when it is long). */
  pageApproval(): void;
  /** Cancels the running turn (if any); false when there was none. */
  cancelTurn(): boolean;
  exit(code: number): void;
  /** The indentation of a tool call's rows (nested exec calls sit under their cell). */
  indentOf(callId: string): string;
  /** Clears the live region (before the terminal is handed back on Ctrl-Z). */
  clearLive(): void;
  /** Saves the prompt history (one save at a time; never rejects). */
  saveHistory(entries: readonly string[]): Promise<void>;
}

export interface PromptSource {
  /** Rows under the chat's title line. */
  banner(style: Style): { title: string; rows: string[] };
  /** Shown once the session is up (how to use the prompt), or nothing. */
  readonly usageHint: string | undefined;
  /** Takes the input over before the session starts (so keys typed meanwhile are kept). */
  attach(chat: ChatControls, history: string[]): void;
  /** Starts feeding prompts, once the session is up. */
  run(): void;
  /** An approval question arrived: answer it now (the demo approves) or leave it to the user (undefined). */
  decide(approval: PendingApproval): boolean | undefined;
  /** An approval question is now the one being asked. */
  ask(approval: PendingApproval): void;
  /** The prompt in the live region (`room` rows at most), or nothing. */
  view(room: number): PromptView | undefined;
  /** Ctrl-C delivered as a signal. */
  interrupt(): void;
  /** Gives the input back (terminal modes restored); must not throw. */
  detach(): void;
}
