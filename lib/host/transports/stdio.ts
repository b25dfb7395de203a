// One host connection over stdin/stdout (host spec §2, §11).
import { FrameDecoder, waitForDrain } from "../../codec/index.ts";
import { parseClientFrame } from "../frame_json.ts";
import type { Sandbox } from "../../sandbox/index.ts";
import { type ConnectionOutcome, HostConnection } from "../connection.ts";
import type { HostLimits } from "../limits.ts";

export interface StdioOptions {
  input: NodeJS.ReadableStream & AsyncIterable<Uint8Array>;
  output: NodeJS.WritableStream;
  sandbox: Sandbox;
  limits: HostLimits;
  log: (line: string) => void;
}

/** How long a finished connection waits for its last frames to reach stdout, by outcome. */
const FLUSH_AFTER_CLOSE_MS = 5_000;
// Fatal teardown must not wait on a backpressured writer (host spec §11: within 1 s).
const FLUSH_AFTER_FAILURE_MS = 250;

/**
 * Serves one connection; resolves when it ends (EOF, rejection or a fatal error) and the frames
 * written so far have left (or the flush timed out), so that the caller may exit at once.
 */
export async function serveStdio(options: StdioOptions): Promise<ConnectionOutcome> {
  const output = options.output as
    & NodeJS.WritableStream
    & Partial<Pick<import("node:stream").Writable, "cork" | "uncork">>;
  let corked = false;
  const uncork = (): void => {
    if (!corked) return;
    corked = false;
    output.uncork?.();
  };
  // Writes the stream has not confirmed yet; `flushed` hears when none are left.
  let unconfirmed = 0;
  let flushed: (() => void) | null = null;
  const confirmed = (): void => {
    unconfirmed--;
    if (unconfirmed === 0 && flushed !== null) flushed();
  };
  const connection = new HostConnection({
    sink: {
      // Frames queued in one turn leave in one writev instead of one syscall each.
      write: (frame) => {
        if (!corked && output.cork) {
          corked = true;
          output.cork();
          process.nextTick(uncork);
        }
        unconfirmed++;
        // Synchronous unless the stream wants a drain: the outbox then writes this frame at once.
        return output.write(frame, confirmed) ? undefined : waitForDrain(output);
      },
    },
    sandbox: options.sandbox,
    limits: options.limits,
    log: options.log,
  });
  // A client that closed its read side (EPIPE) ends the connection instead of crashing the host.
  options.output.on(
    "error",
    (error: Error) => connection.fail(`failed to write code-mode host frame: ${error.message}`),
  );
  // `data` events and a synchronous decoder: no promise or async-iterator step per chunk on the
  // delegate round trip (worker → frame → client → frame → worker), where latency is throughput.
  const input = options.input;
  const decoder = new FrameDecoder({ parse: parseClientFrame });
  let reading = true;
  const stop = (): void => {
    reading = false;
    input.removeListener("data", onData);
    input.removeListener("end", onEnd);
    input.removeListener("error", onError);
    // Nothing more is read (what the for-await reader did on an early exit).
    (input as Partial<Pick<import("node:stream").Readable, "destroy">>).destroy?.();
  };
  const onData = (chunk: Uint8Array | string): void => {
    if (!reading) return;
    let frames: unknown[];
    try {
      frames = decoder.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
    } catch (error) {
      stop();
      connection.readFailed(error);
      return;
    }
    for (const payload of frames) {
      try {
        connection.receive(payload);
      } catch (error) {
        stop();
        connection.readFailed(error);
        return;
      }
      if (connection.finished) {
        stop();
        return;
      }
    }
    // Good frames before a bad one in the same chunk were delivered; the decoder holds the
    // error until its next push, so surface it now instead of at the next chunk.
    if (frames.length > 0) {
      try {
        decoder.push(EMPTY);
      } catch (error) {
        stop();
        connection.readFailed(error);
      }
    }
  };
  const onEnd = (): void => {
    if (!reading) return;
    stop();
    try {
      decoder.end();
    } catch (error) {
      connection.readFailed(error);
      return;
    }
    connection.endOfInput();
  };
  const onError = (error: Error): void => {
    if (!reading) return;
    stop();
    connection.readFailed(error);
  };
  input.on("data", onData);
  input.on("end", onEnd);
  input.on("error", onError);
  const outcome = await connection.done;
  // The caller exits next. Deno runs promise jobs before the nextTick that uncorks, so without
  // this the last frames (a `connection/rejected`) never left the corked stream (issue 16).
  uncork();
  if (unconfirmed > 0) {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, outcome.error === null ? FLUSH_AFTER_CLOSE_MS : FLUSH_AFTER_FAILURE_MS);
      flushed = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
  return outcome;
}

const EMPTY = new Uint8Array(0);
