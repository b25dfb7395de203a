// Turns a child's output into `tool.progress` text: the last complete non-empty line, at most
// 512 bytes, emitted at most once per interval (the latest line wins; nothing after stop()).

import { cutToBytes } from "../util/text_bounds.ts";

const MAX_PROGRESS_BYTES = 512;
/** A line longer than this is still reported, by its first part only. */
const MAX_PENDING_CHARS = 4096;

export type ProgressReporter = {
  push(chunk: Buffer, stream: "stdout" | "stderr"): void;
  stop(): void;
};

export function createProgressReporter(emit: (text: string) => void, intervalMs: number): ProgressReporter {
  const decoders = { stdout: new TextDecoder("utf-8"), stderr: new TextDecoder("utf-8") };
  const pending = { stdout: "", stderr: "" };
  let latest: string | undefined;
  let lastEmit = -Infinity;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  const flush = () => {
    timer = undefined;
    if (stopped || latest === undefined) return;
    lastEmit = Date.now();
    const text = latest;
    latest = undefined;
    try {
      emit(text);
    } catch {
      // progress is display only
    }
  };

  return {
    push(chunk, stream) {
      if (stopped) return;
      const text = pending[stream] + decoders[stream].decode(chunk, { stream: true });
      const lines = text.split("\n");
      const rest = lines.pop()!;
      pending[stream] = rest.length > MAX_PENDING_CHARS ? rest.slice(0, MAX_PENDING_CHARS) : rest;
      for (let index = lines.length - 1; index >= 0; index -= 1) {
        const line = lines[index]!.replace(/\r$/, "").trim();
        if (line.length > 0) {
          latest = cutToBytes(line, MAX_PROGRESS_BYTES);
          break;
        }
      }
      if (latest === undefined || timer !== undefined) return;
      const wait = lastEmit + intervalMs - Date.now();
      if (wait <= 0) flush();
      else timer = setTimeout(flush, wait);
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
      timer = undefined;
    },
  };
}
