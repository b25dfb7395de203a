// The status line under the prompt: model, what the engine is doing (with a running turn's elapsed time, a spinner
// while the model has not answered yet, a provider retry's countdown), the context in use, and token usage.
import { type ClientEvent } from "../protocol/index.ts";
import { formatElapsed, formatTokens, formatUsage, retryText, type Style, truncateText } from "../render/index.ts";
import type { EventOf, Usage } from "../protocol/index.ts";

export type StatusInfo = {
  model: string;
  state: "idle" | "working" | "approval" | "cancelling" | "starting";
  lastUsage: Usage | undefined;
  totalUsage: Usage;
  width: number;
  /** The running turn as TurnActivity sees it at this moment (absent: no details). */
  activity?: ActivityView;
};

/** What TurnActivity shows at one moment. */
export type ActivityView = {
  /** Elapsed time of the running turn; undefined when none runs. */
  elapsedMs?: number;
  /** A spinner frame while the turn waits for the model's first token (none when there is no spinner). */
  spinner?: string;
  /** `retrying 1/3 in 2 s: HTTP 429` while a provider retry waits. */
  retry?: string;
  /** Context in use after the last turn, of the session's window. */
  context?: { used: number; window: number; approximate: boolean };
};

const STATE_TEXT: Record<StatusInfo["state"], string> = {
  idle: "ready",
  working: "working",
  approval: "waiting for approval",
  cancelling: "cancelling",
  starting: "starting",
};
const CANCEL_HINT = "(Esc or Ctrl-C cancels)";

export function formatStatus(info: StatusInfo, style: Style): string {
  const activity = info.activity ?? {};
  const parts = [info.model || "no model", stateText(info.state, activity)];
  if (activity.context) {
    // The context in use takes the place of the last turn's usage, which the transcript shows after each turn.
    const { used, window, approximate } = activity.context;
    parts.push(`context ${approximate ? "~" : ""}${formatTokens(used)} / ${formatTokens(window)} tokens`);
  } else {
    parts.push(`last turn ${usageOrDash(info.lastUsage)}`);
  }
  parts.push(`session ${usageOrDash(info.totalUsage)}`);
  return style.dim(truncateText(parts.join(" · "), Math.max(10, info.width - 1)));
}

function stateText(state: StatusInfo["state"], activity: ActivityView): string {
  const elapsed = activity.elapsedMs === undefined ? "" : ` ${formatElapsed(activity.elapsedMs)}`;
  if (state !== "working") return `${STATE_TEXT[state]}${state === "approval" ? "" : elapsed}`;
  if (activity.retry) return `${activity.retry}${elapsed} ${CANCEL_HINT}`;
  if (activity.spinner !== undefined) return `${activity.spinner} waiting for the model${elapsed} ${CANCEL_HINT}`;
  return `working${elapsed} ${CANCEL_HINT}`;
}

function usageOrDash(usage: Usage | undefined): string {
  return usage && (usage.input_tokens !== undefined || usage.output_tokens !== undefined) ? formatUsage(usage) : "–";
}

const UNICODE_FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const ASCII_FRAMES = ["|", "/", "-", "\\"];
export const SPINNER_FRAME_MS = 100;

/**
 * Follows a session's events for the status line: when the running turn started, whether the model has answered
 * yet (the spinner turns until its first token, and again while it thinks after a tool), a retry's wait, and the
 * context in use after each turn. `frames: "none"` (a pipe) never shows a spinner.
 */
export class TurnActivity {
  readonly #frames: string[];
  #startedAt: number | undefined;
  #waiting = false;
  #retry: { event: EventOf<"turn.retrying">; at: number } | undefined;
  #window: number | undefined;
  #context: { used: number; approximate: boolean } | undefined;

  constructor(frames: "unicode" | "ascii" | "none") {
    this.#frames = frames === "unicode" ? UNICODE_FRAMES : frames === "ascii" ? ASCII_FRAMES : [];
  }

  /** True while a turn runs (the status line then changes by itself: elapsed time, spinner, countdown). */
  get running(): boolean {
    return this.#startedAt !== undefined;
  }

  apply(event: ClientEvent, now: number = performance.now()): void {
    switch (event.type) {
      case "session.started":
        this.#window = event.context_window?.tokens ?? event.context_max_tokens;
        this.#context = undefined;
        this.#end();
        break;
      case "session.cleared":
        this.#context = undefined;
        break;
      case "turn.started":
        this.#startedAt = now;
        this.#waiting = true;
        this.#retry = undefined;
        break;
      case "turn.retrying":
        this.#retry = { event, at: now };
        this.#waiting = true;
        break;
      case "assistant.delta":
        if (event.content === "") break;
        this.#waiting = false;
        this.#retry = undefined;
        break;
      case "assistant.completed":
      case "tool.proposed":
        this.#waiting = false;
        this.#retry = undefined;
        break;
      case "tool.completed":
        // A top-level call's result goes back to the model, which thinks again before it answers.
        if (!event.call_id.includes(":")) this.#waiting = true;
        break;
      case "turn.completed":
        this.#context = contextOf(event);
        this.#end();
        break;
      case "turn.failed":
      case "turn.cancelled":
      case "engine.closed":
        this.#end();
        break;
    }
  }

  view(now: number = performance.now()): ActivityView {
    const view: ActivityView = {};
    if (this.#context && this.#window) view.context = { ...this.#context, window: this.#window };
    if (this.#startedAt === undefined) return view;
    const elapsed = now - this.#startedAt;
    view.elapsedMs = elapsed;
    if (this.#retry) {
      const remaining = this.#retry.event.delay_ms - (now - this.#retry.at);
      if (remaining > 0) view.retry = retryText(this.#retry.event, remaining);
    }
    if (this.#waiting && this.#frames.length > 0) {
      view.spinner = this.#frames[Math.floor(elapsed / SPINNER_FRAME_MS) % this.#frames.length];
    }
    return view;
  }

  /** Changes exactly when what the status line shows of the turn changes (for a redraw timer). */
  key(now: number = performance.now()): string {
    const view = this.view(now);
    const seconds = view.elapsedMs === undefined ? "" : Math.floor(view.elapsedMs / 1000);
    return `${seconds}|${view.spinner ?? ""}|${view.retry ?? ""}`;
  }

  #end(): void {
    this.#startedAt = undefined;
    this.#waiting = false;
    this.#retry = undefined;
  }
}

/**
 * The context after a turn: its last request's input plus the answer (`context_tokens`). From a server that does not
 * send it, `usage` sums every step of the turn, so for a turn of several steps the per-step average stands in (marked
 * approximate).
 */
function contextOf(event: EventOf<"turn.completed">): { used: number; approximate: boolean } | undefined {
  if (event.context_tokens !== undefined) return { used: event.context_tokens, approximate: false };
  const { input_tokens, output_tokens } = event.usage;
  if (input_tokens === undefined && output_tokens === undefined) return undefined;
  const steps = Math.max(1, event.steps);
  return { used: Math.round(((input_tokens ?? 0) + (output_tokens ?? 0)) / steps), approximate: steps > 1 };
}
