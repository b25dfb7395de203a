// A slash command of `scv chat`: one file each in this folder, as gemini-cli keeps its commands. A command does its
// work through the chat's controls below; it resolves true when the chat should end.
import type { ClientFlags } from "../../embed/index.ts";
import type { SessionController } from "../../client/index.ts";
import type { Style } from "../../render/index.ts";
import type { Usage } from "../../protocol/index.ts";
import type { McpStatusEvent } from "../mcp_view.ts";
import type { ConversationTurn } from "../conversation_turns.ts";

export type SlashCommand = {
  name: string;
  /** How it is typed, for /help (`/model [name]`). */
  usage: string;
  help: string;
  run(chat: CommandChat, argument: string): Promise<boolean> | boolean;
};

/** What a command may do with the chat. */
export interface CommandChat {
  readonly style: Style;
  readonly controller: SessionController;
  /** Every command, in /help's order. */
  readonly commands: readonly SlashCommand[];
  /** The flags the next engine start uses (a /model or /approvals switch changes them). */
  readonly flags: ClientFlags;
  /** Set once /approvals switched the mode in this chat (it then outlives a /resume). */
  policySetHere: boolean;
  /** Sends `text` as the user's prompt, echoed like a typed one (/init). */
  prompt(text: string): Promise<void>;
  /** Dim rows of text, committed to the transcript. */
  note(rows: string[]): void;
  render(rows: string[]): void;
  exit(code: number): void;
  /** The names of the images staged for the next prompt. */
  stagedImages(): string[];
  /** Stages an image for the next prompt; false (and says why) when it cannot. */
  stageImage(path: string): Promise<boolean>;
  mcpStatus(): ReadonlyMap<string, McpStatusEvent>;
  usage(): { last: Usage | undefined; total: Usage };
  /** `/resume [id]` and `/fork`: the chat goes on in another session. */
  switchSession(name: "resume" | "fork", argument: string): Promise<boolean>;
  /** The conversation's turns, oldest first (`/rewind`). */
  turns(): readonly ConversationTurn[];
  /** The terminal's width in columns. */
  readonly width: number;
  /** The next line typed answers `answer` instead of being sent (Esc or Ctrl-C, or an empty line, cancels). */
  askNext(answer: (text: string) => Promise<boolean> | boolean): void;
  /** `session.configure` with `fields`; on success the flags become `flags` and the chat says `switched to <what>`. */
  configure(fields: { model?: string; approval_policy?: string }, flags: ClientFlags, what: string): Promise<boolean>;
}
