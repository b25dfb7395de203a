// The data of one SSE message, shared by both wires (spec §8.2: `[DONE]` ends the stream, empty
// data is ignored, non-JSON data fails unless it is an `error` event's raw text).
import { isTransientDetails, providerFailure, sanitize } from "./errors.ts";
import type { SseMessage } from "./sse.ts";

export type Json = Record<string, unknown>;

export type StreamData = { kind: "done" } | { kind: "skip" } | { kind: "json"; value: unknown };

export function isJsonObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function parseStreamData(message: SseMessage, credential: string): StreamData {
  const data = message.data;
  const trimmed = data.trim();
  if (trimmed === "[DONE]") return { kind: "done" };
  if (trimmed === "") return { kind: "skip" };
  try {
    return { kind: "json", value: JSON.parse(data) };
  } catch (error) {
    if (message.event === "error") {
      throw providerFailure(`provider stream error: ${sanitize(data, credential)}`, isTransientDetails({ message: data, labels: [] }));
    }
    throw providerFailure(`invalid provider stream JSON: ${sanitize((error as Error).message, credential)}`, false);
  }
}
