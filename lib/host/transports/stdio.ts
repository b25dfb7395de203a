// One host connection over stdin/stdout (host spec §2, §11).
import { FrameWriter, readFrameBatches } from "../../codec/index.ts";
import { parsePreciseJson } from "../precise_json.ts";
import type { Sandbox } from "../../sandbox/types.ts";
import { HostConnection, type ConnectionOutcome } from "../connection.ts";
import type { HostLimits } from "../limits.ts";
import type { TruncateItems } from "../output.ts";

export interface StdioOptions {
  input: NodeJS.ReadableStream & AsyncIterable<Uint8Array>;
  output: NodeJS.WritableStream;
  sandbox: Sandbox;
  truncate: TruncateItems;
  limits: HostLimits;
  log: (line: string) => void;
}

/** Serves one connection; resolves when it ends (EOF, rejection or a fatal error). */
export async function serveStdio(options: StdioOptions): Promise<ConnectionOutcome> {
  const writer = new FrameWriter(options.output);
  const output = options.output as NodeJS.WritableStream & Partial<Pick<import("node:stream").Writable, "cork" | "uncork">>;
  let corked = false;
  const uncork = (): void => {
    corked = false;
    output.uncork?.();
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
        return writer.write(frame);
      },
    },
    sandbox: options.sandbox,
    truncate: options.truncate,
    limits: options.limits,
    log: options.log,
  });
  // A client that closed its read side (EPIPE) ends the connection instead of crashing the host.
  options.output.on("error", (error: Error) => connection.fail(`failed to write code-mode host frame: ${error.message}`));
  void (async () => {
    try {
      for await (const batch of readFrameBatches(options.input, { parse: parsePreciseJson })) {
        for (const payload of batch) {
          connection.receive(payload);
          if (connection.finished) return;
        }
      }
      connection.endOfInput();
    } catch (error) {
      connection.readFailed(error);
    }
  })();
  return connection.done;
}
