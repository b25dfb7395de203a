// One web_fetch run (spec §10): resolve and check every hop, connect only to the checked
// addresses, follow redirects by hand, accept text only, cap the download, convert HTML, page.

import { raceAbort } from "../../util/abort.ts";
import { TextDecoder } from "node:util";
import { Agent, request } from "undici";
import type { Dispatcher } from "undici";
import { VERSION } from "../../version.ts";
import { cancelledOutcome, failure } from "../outcome.ts";
import type { ToolOutcome } from "../types.ts";
import { discard, headerValue, readCapped } from "./body.ts";
import { completeUtf8Length } from "../../util/text_bounds.ts";
import { charsetOf, classifyMediaType, mediaType, sniffBody } from "./content_type.ts";
import type { BodyKind } from "./content_type.ts";
import { codePointLength, htmlToText } from "./html_to_text.ts";
import { pageByCodePoints } from "./paging.ts";
import { chooseProxy } from "./proxy.ts";
import type { ProxySettings } from "./proxy.ts";
import { pinnedLookup, resolveDestination } from "./resolve.ts";
import type { AddressPolicy, ResolvedAddress, Resolver } from "./resolve.ts";
import { tunnelConnector } from "./tunnel.ts";
import { checkUrlShape, isAutoApproved } from "./url_rules.ts";

export const USER_AGENT = `scv/${VERSION} (+https://github.com/PeiyuanQi/scv)`;
const ACCEPT = "text/html,application/xhtml+xml,text/plain;q=0.9,application/json;q=0.9,*/*;q=0.5";
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const MAX_URL_BYTES = 4096;
/** Room kept in the output for the paging trailer. */
const TRAILER_RESERVE = 160;

export type { ProxySettings } from "./proxy.ts";

export type FetchSettings = {
  maxBytes: number;
  timeoutMs: number;
  maxRedirects: number;
  autoApproveDomains: readonly string[];
  outputLimitBytes: number;
  allowed: AddressPolicy;
  resolver: Resolver;
  /** Replaces the environment's `HTTP(S)_PROXY` / `NO_PROXY`. */
  proxy?: ProxySettings;
  /** Extra trusted CA certificates (PEM); tests only. */
  ca?: string;
};

export type FetchRequest = {
  /** The checked URL of the first hop. */
  url: URL;
  /** The URL as the model gave it (trimmed), for messages. */
  text: string;
  offset: number;
  autoApproved: boolean;
};

export async function runWebFetch(
  call: FetchRequest,
  settings: FetchSettings,
  signal: AbortSignal,
): Promise<ToolOutcome> {
  if (signal.aborted) return cancelledOutcome("web fetch cancelled");
  const deadline = AbortSignal.timeout(settings.timeoutMs);
  const combined = AbortSignal.any([signal, deadline]);
  const dispatchers: Dispatcher[] = [];
  const fail = (reason: string): ToolOutcome => failure(`fetch ${call.text}: ${reason}`);
  try {
    let current = call.url;
    let redirects = 0;
    for (;;) {
      const destination = await abortable(
        resolveDestination(current.hostname, settings.resolver, settings.allowed),
        combined,
      );
      if (!destination.ok) return fail(destination.error);
      const proxy = chooseProxy(current, settings.proxy);
      if (!proxy.ok) return fail(proxy.error);
      const dispatcher = createDispatcher(destination.addresses, proxy.proxy, settings, combined);
      dispatchers.push(dispatcher);
      const response = await request(current, {
        method: "GET",
        headers: { "user-agent": USER_AGENT, accept: ACCEPT },
        dispatcher,
        signal: combined,
      });
      const location = headerValue(response.headers["location"]);
      if (REDIRECT_STATUSES.has(response.statusCode) && location !== undefined) {
        discard(response.body);
        if (redirects >= settings.maxRedirects) return fail(`stopped after ${redirects} redirects`);
        let next: URL;
        try {
          next = new URL(location, current);
        } catch {
          return fail(`invalid redirect location ${JSON.stringify(location)}`);
        }
        if (Buffer.byteLength(next.href, "utf8") > MAX_URL_BYTES)
          return fail(`redirect url exceeds ${MAX_URL_BYTES} bytes`);
        const shape = checkUrlShape(next);
        if (shape !== undefined) return fail(shape);
        if (call.autoApproved && !isAutoApproved(next, settings.autoApproveDomains)) {
          return fail(
            `redirected to ${next.href}, outside the auto-approved hosts; call web_fetch with that URL to request approval`,
          );
        }
        redirects += 1;
        current = next;
        continue;
      }
      return await readResponse(response, current, call.offset, settings);
    }
  } catch (error) {
    if (signal.aborted) return cancelledOutcome("web fetch cancelled");
    if (deadline.aborted) return fail(`timed out after ${formatSeconds(settings.timeoutMs)} seconds`);
    return fail(describeError(error, settings));
  } finally {
    for (const dispatcher of dispatchers) dispatcher.destroy().catch(() => {});
  }
}

/**
 * Connections go only to the checked `addresses`: directly through a pinned lookup, or through
 * `proxy` by a CONNECT tunnel to one of those addresses (never to the name, which the proxy
 * would resolve again).
 */
function createDispatcher(
  addresses: ResolvedAddress[],
  proxy: URL | undefined,
  settings: FetchSettings,
  signal: AbortSignal,
): Dispatcher {
  const connectTimeoutMs = Math.min(settings.timeoutMs, 10_000);
  const ca = settings.ca !== undefined ? { ca: settings.ca } : {};
  if (proxy === undefined) {
    return new Agent({ connect: { lookup: pinnedLookup(addresses), timeout: connectTimeoutMs, ...ca } });
  }
  return new Agent({ connect: tunnelConnector({ proxy, addresses, connectTimeoutMs, signal, ...ca }) });
}

async function readResponse(
  response: Dispatcher.ResponseData,
  url: URL,
  offset: number,
  settings: FetchSettings,
): Promise<ToolOutcome> {
  const status = response.statusCode;
  const contentType = headerValue(response.headers["content-type"]);
  const type = mediaType(contentType);
  let kind: BodyKind | undefined;
  if (type !== "") {
    kind = classifyMediaType(type);
    if (kind === undefined) {
      discard(response.body);
      return failure(
        `URL: ${url.href}\nStatus: ${status}\nweb_fetch returns text only; ${type} is not a text content type`,
      );
    }
  }
  const { bytes, cut } = await readCapped(response.body, settings.maxBytes);
  if (kind === undefined) {
    kind = sniffBody(bytes);
    if (kind === undefined) {
      return failure(`URL: ${url.href}\nStatus: ${status}\nthe response has no content type and is not text`);
    }
  }
  const decoded = decode(bytes, charsetOf(contentType), cut);
  const text = kind === "html" ? htmlToText(decoded, { baseUrl: url.href }) : decoded;
  const stopped = cut ? ` (download stopped at ${settings.maxBytes} bytes)` : "";
  const total = codePointLength(text);
  const header = (start: number, end: number): string =>
    `URL: ${url.href}\nStatus: ${status}\nContent-Type: ${
      contentType ?? "unknown"
    }\nCharacters: ${start}-${end} of ${total}${stopped}\n\n`;
  // The widest header this page can have: end ≤ total.
  const headerBytes = Buffer.byteLength(header(Math.min(offset, total), total), "utf8");
  const budget = Math.max(1, settings.outputLimitBytes - headerBytes - TRAILER_RESERVE);
  const page = pageByCodePoints(text, offset, budget);
  let output = header(page.start, page.end) + page.text;
  const remaining = page.total - page.end;
  if (remaining > 0) {
    output += `\n\n[${remaining} more characters; call web_fetch with offset=${page.end} for the next part]`;
  }
  const truncated = page.start > 0 || remaining > 0 || cut;
  if (status >= 400) return failure(output, "failed", truncated);
  return { success: true, output, truncated };
}

function decode(bytes: Buffer, charset: string | undefined, cut: boolean): string {
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(charset ?? "utf-8");
  } catch {
    decoder = new TextDecoder("utf-8");
  }
  const usable = cut && decoder.encoding === "utf-8" ? bytes.subarray(0, completeUtf8Length(bytes)) : bytes;
  return decoder.decode(usable);
}

function formatSeconds(ms: number): string {
  return Number.isInteger(ms / 1000) ? String(ms / 1000) : (ms / 1000).toFixed(3).replace(/0+$/, "");
}

function describeError(error: unknown, settings: FetchSettings): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === "UND_ERR_CONNECT_TIMEOUT") {
    return `connection timed out after ${formatSeconds(Math.min(settings.timeoutMs, 10_000))} seconds`;
  }
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
    return `${error.message}${cause}`;
  }
  return String(error);
}

/** Rejects when `signal` aborts (a hanging resolver must not outlive a cancel or the deadline). */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return raceAbort(promise, signal, (): never => {
    throw signal.reason;
  });
}
