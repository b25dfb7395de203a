// Small helpers for undici response bodies shared by web_fetch and web_search.

import type { Dispatcher } from "undici";

type Body = Dispatcher.ResponseData["body"];

/** Drops a body we will not read; its abort error has nobody to tell. */
export function discard(body: Body): void {
  body.on("error", () => {});
  body.destroy();
}

/** Reads at most `maxBytes`; `cut` is true when the body had more. */
export async function readCapped(body: Body, maxBytes: number): Promise<{ bytes: Buffer; cut: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  let cut = false;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    if (size + chunk.length > maxBytes) {
      chunks.push(chunk.subarray(0, maxBytes - size));
      size = maxBytes;
      cut = true;
      break;
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  if (cut) discard(body);
  return { bytes: Buffer.concat(chunks, size), cut };
}

export function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
