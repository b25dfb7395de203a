// Server-mode output truncation (host spec §9, steps 2–4): sizes are UTF-8 bytes, 4 bytes per
// token. runtimeResponse (output.ts) appends the `Script error:` item (step 1) first.
import type { ContentItem } from "../sandbox/index.ts";

const BYTES_PER_TOKEN = 4;
const AUDIO_TOKENS_PER_SECOND = 10;

const utf8Length = (text: string): number => Buffer.byteLength(text, "utf8");
const tokens = (bytes: number): number => Math.ceil(bytes / BYTES_PER_TOKEN);
const marker = (removedTokens: number): string => `…${removedTokens} tokens truncated…`;

/** Keeps the head and tail of `text` within `budgetTokens`, on character boundaries (§9 step 3). */
export function middleTruncate(text: string, budgetTokens: number): string {
  const bytes = Buffer.from(text, "utf8");
  const length = bytes.length;
  if (budgetTokens <= 0) return marker(tokens(length));
  const max = budgetTokens * BYTES_PER_TOKEN;
  if (length <= max) return text;
  const head = Math.floor(max / 2);
  const tail = max - head;
  // UTF-8 continuation bytes are 0b10xxxxxx: a character starts at any other byte.
  const isStart = (index: number): boolean => index >= length || (bytes[index]! & 0xc0) !== 0x80;
  let prefixEnd = head;
  while (prefixEnd > 0 && !isStart(prefixEnd)) prefixEnd--;
  let suffixStart = Math.max(length - tail, prefixEnd);
  while (!isStart(suffixStart)) suffixStart++;
  return (
    bytes.subarray(0, prefixEnd).toString("utf8") +
    marker(Math.ceil((length - max) / BYTES_PER_TOKEN)) +
    bytes.subarray(suffixStart).toString("utf8")
  );
}

/** Applies the budget to a runtime response's items (§9 steps 2–4). */
export function truncateItems(items: ContentItem[], budgetTokens: number): ContentItem[] {
  const mixed = items.some((item) => item.type !== "input_text");
  return mixed ? truncateMixed(items, budgetTokens) : truncateText(items, budgetTokens);
}

function truncateText(items: ContentItem[], budgetTokens: number): ContentItem[] {
  let joined = "";
  for (const item of items) {
    if (item.type !== "input_text") continue;
    if (joined !== "") joined += "\n";
    joined += item.text;
  }
  const length = utf8Length(joined);
  if (length <= budgetTokens * BYTES_PER_TOKEN) return items;
  const segments = joined.split("\n");
  const lines = segments.length - (joined.endsWith("\n") ? 1 : 0);
  const text = `Warning: truncated output (original token count: ${tokens(length)})\n` +
    `Total output lines: ${lines}\n\n` +
    middleTruncate(joined, budgetTokens);
  return [{ type: "input_text", text }];
}

function truncateMixed(items: ContentItem[], budgetTokens: number): ContentItem[] {
  const out: ContentItem[] = [];
  let remaining = budgetTokens;
  let omittedText = 0;
  let omittedAudio = 0;
  for (const item of items) {
    if (item.type === "input_image") {
      out.push(item);
    } else if (item.type === "input_audio") {
      const cost = audioTokens(item.audio_url);
      if (cost <= remaining) {
        out.push(item);
        remaining -= cost;
      } else {
        omittedAudio++;
      }
    } else if (item.text === "") {
      continue;
    } else if (remaining === 0) {
      omittedText++;
    } else {
      const cost = tokens(utf8Length(item.text));
      if (cost <= remaining) {
        out.push(item);
        remaining -= cost;
      } else {
        out.push({ type: "input_text", text: middleTruncate(item.text, remaining) });
        remaining = 0;
      }
    }
  }
  if (omittedText > 0) out.push({ type: "input_text", text: `[omitted ${omittedText} text items ...]` });
  if (omittedAudio > 0) out.push({ type: "input_text", text: `[omitted ${omittedAudio} audio items ...]` });
  return out;
}

/** 10 tokens per second of decoded audio when the duration is known (WAV), else the URL's length. */
export function audioTokens(audioUrl: string): number {
  const seconds = wavSeconds(audioUrl);
  return seconds === null ? tokens(audioUrl.length) : Math.ceil(seconds * AUDIO_TOKENS_PER_SECOND);
}

function wavSeconds(audioUrl: string): number | null {
  const match = /^data:[^,]*;base64,/i.exec(audioUrl);
  if (match === null) return null;
  const data = Buffer.from(audioUrl.slice(match[0].length), "base64");
  if (data.length < 12 || data.toString("latin1", 0, 4) !== "RIFF" || data.toString("latin1", 8, 12) !== "WAVE") {
    return null;
  }
  let byteRate = 0;
  for (let offset = 12; offset + 8 <= data.length;) {
    const id = data.toString("latin1", offset, offset + 4);
    const size = data.readUInt32LE(offset + 4);
    if (id === "fmt " && offset + 16 <= data.length) byteRate = data.readUInt32LE(offset + 16);
    if (id === "data") return byteRate > 0 ? Math.min(size, data.length - offset - 8) / byteRate : null;
    offset += 8 + size + (size % 2);
  }
  return null;
}
