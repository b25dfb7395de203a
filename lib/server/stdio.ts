// The stdio transport of the agent protocol server (spec §1, §6.7): NDJSON in on stdin, events out on stdout,
// and the shutdown rules — EOF exits 0, a version mismatch, broken stdout or an undrained writer exit 1.
import { readNdjson } from "../codec/index.ts";
import { Connection } from "./connection.ts";
import type { Logger } from "../util/log.ts";
import type { ServerOptions } from "./session_start.ts";
import { EventWriter, WriterFailedError } from "./writer.ts";

const DEFAULT_SERVER_FRAME_BYTES = 8_388_608;
const DRAIN_TIMEOUT_MS = 3000;

export type ServeResult = { exitCode: number; reason: "eof" | "version_mismatch" | "writer_failed" | "stopped" };

export async function serveStdio(
  input: NodeJS.ReadableStream & AsyncIterable<Uint8Array>,
  output: NodeJS.WritableStream,
  options: ServerOptions,
  log: Logger,
  /** Ends the connection like stdin EOF (e.g. on SIGTERM): the queue is dropped and the turn cancelled. */
  stop?: AbortSignal,
): Promise<ServeResult> {
  let failWriter!: (error: Error) => void;
  const writerFailed = new Promise<"writer_failed">((resolve) => {
    failWriter = (error) => {
      log.error(error.message);
      resolve("writer_failed");
    };
  });
  const writer = new EventWriter(output, { frameLimit: DEFAULT_SERVER_FRAME_BYTES, onFailure: failWriter });
  const connection = new Connection(writer, options, log);

  const reading = (async (): Promise<"eof" | "version_mismatch" | "writer_failed"> => {
    for await (const item of readNdjson(input, { maxLineBytes: () => connection.clientFrameLimit() })) {
      const flow = await connection.handle(item);
      if (writer.failed) return "writer_failed";
      if (flow === "stop") return "version_mismatch";
    }
    return "eof";
  })().catch((error: unknown) => {
    if (error instanceof WriterFailedError) return "writer_failed" as const;
    log.error(`read protocol input: ${error instanceof Error ? error.message : String(error)}`);
    return "eof" as const;
  });

  const stopped = new Promise<"stopped">((resolve) => {
    if (stop?.aborted) resolve("stopped");
    else stop?.addEventListener("abort", () => resolve("stopped"), { once: true });
  });
  const reason = await Promise.race([reading, writerFailed, stopped]);
  log.debug(`connection ending: ${reason}`);
  try {
    await connection.shutdown();
  } catch (error) {
    log.error(`shut down session: ${error instanceof Error ? error.message : String(error)}`);
  }
  const drained = await writer.drain(DRAIN_TIMEOUT_MS);
  if (!drained) log.error("protocol output was not drained within 3 s");
  const exitCode = (reason === "eof" || reason === "stopped") && drained && !writer.failed ? 0 : 1;
  return { exitCode, reason };
}
