// grep's regular expressions run off the main thread. A model's pattern can backtrack for ages (`^(a+)+$` over a
// line of 40 `a`s and a `b`), and on the server's one thread that would stop every session and the very
// `turn.cancel` meant to end it. Here the main thread walks, judges and reads the files and sends their bytes in
// batches to a worker thread, which matches them with the same JavaScript RegExp; a cancelled call, or a worker
// that answers nothing for the deadline, is terminated (the next search starts a new one). One idle worker is
// kept for the next search.
//
// The worker's code is regexWorkerMain (with searchText and cutLine) turned into source text, so the same code
// runs from source, under Deno and in the standalone binary, which cannot load a worker from a file.
//
// Why not a linear-time engine (the pure-JS re2js, MIT, ~260 KB): measured over node_modules (141 MB of text) its
// DFA scans 40–150 MB/s against V8's 0.6–2 GB/s (10–40× slower on patterns without a literal prefix), falls to
// 0.4–1 MB/s on patterns that thrash its DFA cache (`(a|b)*a(a|b){20}\b`), so one 16 MB line still holds the
// thread for tens of seconds, and it drops lookahead and backreferences. Off-thread V8 keeps the speed and the
// syntax, and cancel is immediate. Its one gap: Deno's terminate() does not stop a thread inside a RegExp (the
// server stays responsive, the thread spins until exit).

import { Worker } from "node:worker_threads";
import { cutLine } from "./common.ts";
import { searchText } from "./search_text.ts";

/** The files of one batch: their bytes back to back in `data`, each `[start, end)`. */
export type MatchBatch = { data: ArrayBuffer; files: Array<{ start: number; end: number }> };
/** Per file of a batch, in order: how many lines matched, and the first ones (`[line number, text]`). */
export type FileMatches = { count: number; lines: Array<[number, string]> };
export type MatchResult =
  | { kind: "matched"; files: FileMatches[] }
  | { kind: "cancelled" }
  | { kind: "deadline" }
  | { kind: "failed"; message: string };

type WorkerRequest = {
  id: number;
  source: string;
  flags: string;
  keep: number;
  maxLineChars: number;
  data: ArrayBuffer;
  files: Array<{ start: number; end: number }>;
};
type WorkerReply = { id: number; files: FileMatches[] } | { id: number; error: string };

/** The worker's program: answers each batch with its matches, in the order the batches came. */
export function regexWorkerMain(
  require: (name: string) => unknown,
  search: typeof searchText,
  cut: typeof cutLine,
): void {
  const { parentPort } = require("node:worker_threads") as typeof import("node:worker_threads");
  const { Buffer } = require("node:buffer") as typeof import("node:buffer");
  let compiled: { key: string; regex: RegExp } | undefined;
  parentPort!.on("message", (request: WorkerRequest) => {
    try {
      const key = `${request.flags}/${request.source}`;
      if (compiled === undefined || compiled.key !== key)
        compiled = { key, regex: new RegExp(request.source, request.flags) };
      const data = Buffer.from(request.data);
      let keep = request.keep;
      const files: FileMatches[] = [];
      for (const file of request.files) {
        const lines: Array<[number, string]> = [];
        const text = data.toString("utf8", file.start, file.end);
        const count = search(text, compiled.regex, (number, line) => {
          if (keep <= 0) return;
          keep -= 1;
          lines.push([number, cut(line, request.maxLineChars)]);
        });
        files.push({ count, lines });
      }
      parentPort!.postMessage({ id: request.id, files } satisfies WorkerReply);
    } catch (error) {
      parentPort!.postMessage({ id: request.id, error: String(error) } satisfies WorkerReply);
    }
  });
}

const WORKER_SOURCE = `"use strict";(${String(regexWorkerMain)})(require, ${String(searchText)}, ${String(cutLine)});`;
/** A worker's heap; a batch holds at most a few files' text (one file at most 16 MiB). */
const WORKER_HEAP_MB = 512;

/** The worker kept for the next search, and the listener that forgets it if it dies while idle. */
let idle: { worker: Worker; onExit: () => void } | undefined;

function takeWorker(): Worker {
  const kept = idle;
  idle = undefined;
  if (kept === undefined) {
    return new Worker(WORKER_SOURCE, {
      eval: true,
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
      // Nothing the worker might print may reach the server's stdout, which carries the protocol.
      stdout: true,
      stderr: true,
    });
  }
  kept.worker.off("exit", kept.onExit);
  kept.worker.ref();
  return kept.worker;
}

function returnWorker(worker: Worker): void {
  if (idle !== undefined) {
    void worker.terminate();
    return;
  }
  worker.unref();
  const onExit = () => {
    if (idle?.worker === worker) idle = undefined;
  };
  worker.once("exit", onExit);
  idle = { worker, onExit };
}

export type MatchSettings = {
  source: string;
  flags: string;
  maxLineChars: number;
  /** A worker that answers nothing for this long (with a batch outstanding) is stopped: the call fails. */
  deadlineMs: number;
  signal: AbortSignal;
};

/**
 * One grep call's use of a worker: `match` sends a batch and resolves with its matches, or with why there are
 * none (cancelled, the deadline passed, the worker failed); after one of those every later batch resolves the
 * same way. `close` hands a healthy worker back for the next search.
 */
export class RegexMatcher {
  readonly #settings: MatchSettings;
  #worker: Worker | undefined;
  #ended: MatchResult | undefined;
  #nextId = 0;
  readonly #waiting = new Map<number, (result: MatchResult) => void>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #onAbort = () => this.#end({ kind: "cancelled" });
  readonly #onMessage = (reply: WorkerReply) => this.#answer(reply);
  readonly #onError = (error: unknown) => this.#end({ kind: "failed", message: String(error) });
  readonly #onExit = () => this.#end({ kind: "failed", message: "the search worker stopped" });

  constructor(settings: MatchSettings) {
    this.#settings = settings;
    if (settings.signal.aborted) this.#ended = { kind: "cancelled" };
    else settings.signal.addEventListener("abort", this.#onAbort, { once: true });
  }

  /** Matches one batch (`keep`: how many matching lines to return at most, over the whole batch). */
  match(batch: MatchBatch, keep: number): Promise<MatchResult> {
    if (this.#ended !== undefined) return Promise.resolve(this.#ended);
    const worker = this.#worker ?? this.#start();
    const id = this.#nextId++;
    const request: WorkerRequest = {
      id,
      source: this.#settings.source,
      flags: this.#settings.flags,
      keep,
      maxLineChars: this.#settings.maxLineChars,
      data: batch.data,
      files: batch.files,
    };
    const result = new Promise<MatchResult>((resolve) => this.#waiting.set(id, resolve));
    worker.postMessage(request, [batch.data]);
    if (this.#timer === undefined) this.#arm();
    return result;
  }

  /** Ends this call's use of the worker: kept for the next search when it finished cleanly. */
  close(): void {
    this.#settings.signal.removeEventListener("abort", this.#onAbort);
    const worker = this.#worker;
    this.#worker = undefined;
    if (worker === undefined) return;
    this.#detach(worker);
    if (this.#ended === undefined && this.#waiting.size === 0) {
      returnWorker(worker);
    } else {
      void worker.terminate();
    }
    this.#ended ??= { kind: "failed", message: "the search was closed" };
  }

  #start(): Worker {
    const worker = takeWorker();
    this.#worker = worker;
    worker.on("message", this.#onMessage);
    worker.on("error", this.#onError);
    worker.on("exit", this.#onExit);
    return worker;
  }

  #detach(worker: Worker): void {
    worker.off("message", this.#onMessage);
    worker.off("error", this.#onError);
    worker.off("exit", this.#onExit);
  }

  #answer(reply: WorkerReply): void {
    const resolve = this.#waiting.get(reply.id);
    if (resolve === undefined) return;
    this.#waiting.delete(reply.id);
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#waiting.size > 0) this.#arm();
    if ("error" in reply) this.#end({ kind: "failed", message: reply.error }, resolve);
    else resolve({ kind: "matched", files: reply.files });
  }

  #arm(): void {
    this.#timer = setTimeout(() => this.#end({ kind: "deadline" }), this.#settings.deadlineMs);
  }

  /** Stops the worker and resolves every outstanding batch (and `also`) with `result`. */
  #end(result: MatchResult, also?: (result: MatchResult) => void): void {
    also?.(result);
    if (this.#ended !== undefined) return;
    this.#ended = result;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const worker = this.#worker;
    this.#worker = undefined;
    if (worker !== undefined) {
      this.#detach(worker);
      void worker.terminate();
    }
    for (const resolve of this.#waiting.values()) resolve(result);
    this.#waiting.clear();
  }
}
