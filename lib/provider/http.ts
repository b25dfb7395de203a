// HTTP transport for provider requests: undici's `request`, which sends a string body with
// `Content-Length` (never chunked) and writes head and body together.
import { STATUS_CODES } from "node:http";
import { Agent, type Dispatcher, EnvHttpProxyAgent, request } from "undici";

export type ProviderHttpResponse = {
  status: number;
  /** Canonical reason phrase for the status, or "" when unknown. */
  reason: string;
  headers: Record<string, string | string[] | undefined>;
  body: AsyncIterable<Uint8Array> & { destroy(error?: Error): unknown };
};

const PROXY_VARIABLES = ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"];

/** One connection pool per provider client; honours HTTP(S)_PROXY and NO_PROXY when set. */
export function createDispatcher(env: Record<string, string | undefined> = process.env): Dispatcher {
  const proxied = PROXY_VARIABLES.some((name) => (env[name] ?? "") !== "");
  const options = { keepAliveTimeout: 4_000, headersTimeout: 0, bodyTimeout: 0 };
  return proxied ? new EnvHttpProxyAgent(options) : new Agent(options);
}

export async function postJson(
  url: string,
  headers: Record<string, string>,
  body: string,
  signal: AbortSignal,
  dispatcher: Dispatcher,
): Promise<ProviderHttpResponse> {
  const response = await request(url, {
    method: "POST",
    headers,
    body,
    signal,
    dispatcher,
    headersTimeout: 0,
    bodyTimeout: 0,
  });
  return {
    status: response.statusCode,
    reason: STATUS_CODES[response.statusCode] ?? "",
    headers: response.headers,
    body: response.body,
  };
}

/** Reads at most `limit` bytes of an error body; a read failure keeps what arrived. */
export async function readBounded(body: ProviderHttpResponse["body"], limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      chunks.push(Buffer.from(chunk));
      size += chunk.byteLength;
      if (size >= limit) break;
    }
  } catch {
    // Keep the bytes already read.
  } finally {
    body.destroy();
  }
  return Buffer.concat(chunks).subarray(0, limit);
}
