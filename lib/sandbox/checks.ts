// The host's checks of everything a sandbox process sends. The process runs code that may have
// escaped its cell and rewritten the runtime, so the rules that matter are enforced here, in the
// host's own realm: message shapes, tool indexes, image and audio URL rules, the output budget
// and error texts. A message that breaks a rule fails its cell (and its process is killed).
import type { FromWorker } from "./worker_main.ts";

/** Every output message is charged this many characters, so that a flood of tiny ones is bounded too. */
export const MESSAGE_COST = 256;
/** Longest `error_text` a cell may end with, in UTF-16 units (also bounded by its output budget). */
export const MAX_ERROR_CHARS = 1024 * 1024;
/** An error text may always be this long, even when the output used up the budget (its own error says so). */
const ERROR_FLOOR_CHARS = 4096;

const DETAILS = new Set(["auto", "low", "high", "original"]);
const REMOTE_IMAGE =
  "Tool call failed: remote image URLs are not supported in tool outputs. Pass a base64 data URI instead";
const INVALID_IMAGE = "Tool call failed: invalid image output. Pass a base64 data URI instead";
const INVALID_AUDIO = "Tool call failed: invalid audio output. Pass a base64 data URI instead";
export const INVALID_MESSAGE = "exec sandbox process sent an invalid message";
const INVALID = INVALID_MESSAGE;

/** A cell's output as the host counts it. */
export class OutputMeter {
  readonly max: number;
  used = 0;

  constructor(max: number) {
    this.max = max;
  }

  /** Charges `chars` (plus the per-message cost); false once over the budget. */
  charge(chars: number): boolean {
    this.used += MESSAGE_COST + chars;
    return this.used <= this.max;
  }

  /** The error text as delivered: cut to what the budget (and MAX_ERROR_CHARS) allows, and charged. */
  errorText(text: string): string {
    const room = Math.max(ERROR_FLOOR_CHARS, Math.min(MAX_ERROR_CHARS, this.max - this.used));
    this.used += Math.min(text.length, room);
    if (text.length <= room) return text;
    const note = `… (error text cut at ${room} characters)`;
    return text.slice(0, Math.max(0, room - note.length)) + note;
  }

  get exceededText(): string {
    return `exec cell output exceeded ${this.max} characters`;
  }
}

const isString = (value: unknown): value is string => typeof value === "string";
const isIndex = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

/** Whether an image URL may leave the sandbox: only data URLs (host spec §7.2). */
export function imageUrlError(url: string): string | null {
  if (/^https?:/i.test(url)) return REMOTE_IMAGE;
  return /^data:/i.test(url) ? null : INVALID_IMAGE;
}

export function audioUrlError(url: string): string | null {
  return /^data:/i.test(url) ? null : INVALID_AUDIO;
}

/** Null when `message` (for the cell being run) is acceptable; else the cell's error text. */
export function checkMessage(message: FromWorker, toolCount: number, meter: OutputMeter): string | null {
  const m = message as Record<string, unknown>;
  switch (message.t) {
    case "started":
      return null;
    case "yield":
      return meter.charge(0) ? null : meter.exceededText;
    case "text":
    case "notify":
      if (!isString(m.v) || (message.t === "notify" && m.v.trim() === "")) return INVALID;
      return meter.charge(m.v.length) ? null : meter.exceededText;
    case "image":
      if (!isString(m.v) || m.v === "" || !isString(m.d) || !DETAILS.has(m.d)) return INVALID;
      return imageUrlError(m.v) ?? (meter.charge(m.v.length) ? null : meter.exceededText);
    case "audio":
      if (!isString(m.v) || m.v === "") return INVALID;
      return audioUrlError(m.v) ?? (meter.charge(m.v.length) ? null : meter.exceededText);
    case "tool":
      // Input that is not JSON becomes `null` where it is parsed.
      return isIndex(m.call) && m.call !== 0 && isIndex(m.i) && m.i < toolCount && isString(m.v) ? null : INVALID;
    case "done":
      return (m.e === null || isString(m.e)) && isString(m.w) ? null : INVALID;
    default:
      return INVALID;
  }
}

/** The store's size after merging `writes` (`{key: json}`) into `store` of size `size`. */
export function storeCharge(size: number, store: Map<string, string>, writes: Record<string, unknown>): number {
  for (const [key, json] of Object.entries(writes)) {
    if (typeof json !== "string") continue;
    const old = store.get(key);
    size += json.length - (old === undefined ? -key.length : old.length);
  }
  return size;
}
