// Writes one compact JSON value per line to a byte stream, waiting for the stream to drain.
import { once } from "node:events";

export function encodeLine(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}

export class NdjsonWriter {
  readonly #stream: NodeJS.WritableStream;

  constructor(stream: NodeJS.WritableStream) {
    this.#stream = stream;
  }

  write(value: unknown): Promise<void> {
    return this.writeRaw(encodeLine(value));
  }

  /** Writes an already encoded line (it must end in "\n"). */
  async writeRaw(line: string): Promise<void> {
    if (!this.#stream.write(line)) await waitForDrain(this.#stream);
  }
}

/** Resolves on `drain`; rejects if the stream fails or closes first. */
export async function waitForDrain(stream: NodeJS.WritableStream): Promise<void> {
  // A destroyed stream refuses writes without any further event: waiting would never end.
  if ((stream as { destroyed?: boolean }).destroyed)
    throw new Error("cannot wait for drain: the stream is already closed");
  const controller = new AbortController();
  try {
    await Promise.race([
      once(stream, "drain", { signal: controller.signal }),
      once(stream, "close", { signal: controller.signal }).then(() => {
        throw new Error("stream closed before it drained");
      }),
      once(stream, "error", { signal: controller.signal }).then(([error]) => {
        throw error;
      }),
    ]);
  } finally {
    controller.abort();
  }
}
