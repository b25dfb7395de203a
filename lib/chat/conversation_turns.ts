// The turns of the chat's conversation, as `/rewind` lists them: their ids and prompts, from a resumed session's
// replay and from each turn the chat started, less what a clear or a conversation rewind took away.
import type { ClientEvent } from "../protocol/index.ts";

export type ConversationTurn = { turnId: string; prompt: string };

export class ConversationTurns {
  #turns: ConversationTurn[] = [];
  /** Prompts sent, by the request id of their turn.start, until their turn starts. */
  #prompts = new Map<string, string>();

  /** Oldest first. */
  get list(): readonly ConversationTurn[] {
    return this.#turns;
  }

  /** A prompt was sent with `turn.start` request `requestId`. */
  sent(requestId: string, prompt: string): void {
    this.#prompts.set(requestId, prompt);
  }

  apply(event: ClientEvent): void {
    switch (event.type) {
      case "session.started":
      case "session.cleared":
        this.#turns = [];
        break;
      case "session.replay":
        this.#turns = event.turns.flatMap((turn) =>
          turn.turn_id === undefined ? [] : [{ turnId: turn.turn_id, prompt: turn.prompt }]
        );
        break;
      case "turn.started":
        this.#turns.push({ turnId: event.turn_id, prompt: this.#prompts.get(event.request_id) ?? "" });
        this.#prompts.delete(event.request_id);
        break;
      case "session.rewound":
        if (event.restore !== "code") {
          const index = this.#turns.findIndex((turn) => turn.turnId === event.turn_id);
          if (index >= 0) this.#turns = this.#turns.slice(0, index);
        }
        break;
    }
  }
}
