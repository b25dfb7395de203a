// The transport shared by the wire APIs: `POST {base_url}{path}` with retries, timeout,
// cancellation, HTTP error texts and response/SSE limits. A wire adapter supplies the
// request body and reads the stream events (responses.ts, chat.ts, messages.ts).
import { abortError } from "../util/abort.ts";
import {
  AttemptFailure,
  describeTransportError,
  extractDetails,
  formatDetails,
  providerFailure,
  sanitize,
  transportReason,
} from "./errors.ts";
import { withConfigurationHint } from "./hints.ts";
import { rejectsImages, withImageData } from "./images.ts";
import { createDispatcher, postJson, type ProviderHttpResponse, readBounded } from "./http.ts";
import { defaultTiming, withRetries } from "./retry.ts";
import { isPermanent, retryHintMs } from "./retry_policy.ts";
import { SseDecoder, type SseMessage } from "./sse.ts";
import {
  type CreateProviderOptions,
  type ProviderClient,
  ProviderError,
  type ProviderLimits,
  type ProviderRequest,
  type ProviderResponse,
  type RetryTiming,
  type StreamHandlers,
} from "./types.ts";

const ERROR_BODY_READ_BYTES = 65536;
const ERROR_BODY_SHOWN_BYTES = 4096;

/** One attempt's reading of the stream events of a wire API. */
export interface WireStream {
  /** True once output (text or a tool-call event) reached the caller: no retry after that. */
  readonly streamed: boolean;
  /** True once the stream's end marker arrived; reading stops there. */
  readonly finished: boolean;
  /** Returns a promise only while the caller's onTextDelta is pending. Throws AttemptFailure. */
  handle(message: SseMessage): void | Promise<void>;
  /** End-of-stream rules, then the assembled response. Throws AttemptFailure. */
  finish(leftover: string): Promise<ProviderResponse>;
}

export interface WireAdapter {
  /** Appended to base_url, e.g. `/responses`. */
  path: string;
  /** The credential's headers; default `authorization: Bearer <credential>`. */
  authHeaders?(credential: string): Record<string, string>;
  buildBody(request: ProviderRequest): Record<string, unknown>;
  createStream(
    limits: ProviderLimits,
    credential: string,
    onTextDelta: StreamHandlers["onTextDelta"],
    request: ProviderRequest,
    onReasoningDelta?: StreamHandlers["onTextDelta"],
  ): WireStream;
}

/** Carries an error thrown by the caller's onTextDelta through the stream reader, which unwraps it unchanged. */
class CallerFailure {
  readonly error: unknown;
  constructor(error: unknown) {
    this.error = error;
  }
}

function callerDeltas(onTextDelta: StreamHandlers["onTextDelta"]): StreamHandlers["onTextDelta"] {
  return (text) => {
    let pending: void | Promise<void>;
    try {
      pending = onTextDelta(text);
    } catch (error) {
      throw new CallerFailure(error);
    }
    return pending?.catch((error: unknown) => {
      throw new CallerFailure(error);
    });
  };
}

export function createSseClient(options: CreateProviderOptions, wire: WireAdapter): ProviderClient {
  const { profile, limits, credential } = options;
  const dispatcher = createDispatcher();
  const endpoint = `${profile.base_url.replace(/\/+$/, "")}${wire.path}`;
  const timing: RetryTiming = { ...defaultTiming, ...options.timing };
  const headers = requestHeaders(
    wire.authHeaders?.(credential) ?? { authorization: `Bearer ${credential}` },
    profile.headers,
  );
  const timeoutMs = profile.timeout_seconds * 1000;
  const idleSeconds = profile.stream_idle_timeout_seconds;

  async function attempt(request: ProviderRequest, body: string, handlers: StreamHandlers): Promise<ProviderResponse> {
    const controller = new AbortController();
    const abort = () => controller.abort();
    handlers.signal.addEventListener("abort", abort, { once: true });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    // Between stream chunks only: paused while the caller takes a delta, so a slow consumer is never the provider's.
    let idled = false;
    let idleTimer: NodeJS.Timeout | undefined;
    const watchIdle = () => {
      clearTimeout(idleTimer);
      if (idleSeconds === undefined) return;
      idleTimer = setTimeout(() => {
        idled = true;
        controller.abort();
      }, idleSeconds * 1000);
    };
    const reasoning = handlers.onReasoningDelta;
    const state = wire.createStream(
      limits,
      credential,
      callerDeltas(handlers.onTextDelta),
      request,
      reasoning === undefined ? undefined : callerDeltas((text) => reasoning(text)),
    );
    let response: ProviderHttpResponse | undefined;
    try {
      try {
        response = await postJson(endpoint, headers, body, controller.signal, dispatcher);
      } catch (error) {
        const detail = sanitize(describeTransportError(error), credential);
        const failure = providerFailure(
          `provider request failed: ${detail}`,
          !isTimeout(error) && !isInvalidRequest(error),
        );
        failure.reason = transportReason(error);
        throw failure;
      }
      if (response.status < 200 || response.status > 299) throw await httpFailure(response, credential);
      const decoder = new SseDecoder(limits.max_sse_event_bytes);
      // `max_response_bytes` counts payload (spec §8.1), which each wire's stream state adds up.
      try {
        watchIdle();
        reading: for await (const chunk of response.body) {
          clearTimeout(idleTimer);
          for (const message of decoder.push(chunk)) {
            const pending = state.handle(message);
            if (pending) await pending;
            if (handlers.signal.aborted) throw abortError();
            if (state.finished) break reading;
          }
          watchIdle();
        }
        clearTimeout(idleTimer);
      } catch (error) {
        // The caller's own failure (e.g. an event over the server frame limit) is not a provider failure.
        if (error instanceof CallerFailure) throw error.error;
        if (error instanceof AttemptFailure || handlers.signal.aborted || timedOut || idled) throw error;
        const detail = sanitize(describeTransportError(error), credential);
        const failure = providerFailure(`provider stream failed: ${detail}`, !isTimeout(error));
        failure.reason = transportReason(error);
        throw failure;
      }
      if (handlers.signal.aborted) throw abortError();
      return await state.finish(decoder.leftover());
    } catch (error) {
      if (handlers.signal.aborted) throw abortError();
      if (timedOut) {
        throw providerFailure(`provider request timed out after ${profile.timeout_seconds} seconds`, false);
      }
      // A stalled stream is retried like a dropped connection (below: not once output reached the caller).
      const failure = idled ? stalled(idleSeconds!) : error;
      // Once output reached the caller, a retry would repeat it.
      if (failure instanceof AttemptFailure && state.streamed) failure.transient = false;
      throw failure;
    } finally {
      clearTimeout(timer);
      clearTimeout(idleTimer);
      handlers.signal.removeEventListener("abort", abort);
      response?.body.destroy();
    }
  }

  let closed = false;
  // `image_input`, cleared for the client's lifetime once the endpoint rejects an image (upstream's fallback).
  let imageInput = profile.image_input;
  const send = async (request: ProviderRequest, handlers: StreamHandlers) => {
    const prepared = await withImageData(request.history, imageInput);
    const body = JSON.stringify(wire.buildBody({ ...request, history: prepared.history }));
    let streamed = false;
    const tracked: StreamHandlers = {
      ...handlers,
      onTextDelta: (text) => {
        streamed = true;
        return handlers.onTextDelta(text);
      },
    };
    try {
      return await withRetries(() => attempt(request, body, tracked), {
        maxRetries: limits.max_retries,
        timing,
        signal: handlers.signal,
        onRetry: handlers.onRetry,
      });
    } catch (error) {
      // A model or endpoint without image input refuses the request: describe the images from now on and ask again.
      if (prepared.shown === 0 || streamed || handlers.signal.aborted) throw error;
      if (!(error instanceof ProviderError) || error.code !== "provider_error" || !rejectsImages(error.message))
        throw error;
      imageInput = false;
      options.warn?.(`provider rejected image input (${error.message}); sending image notes instead`);
      const fallback = await withImageData(request.history, false);
      const retryBody = JSON.stringify(wire.buildBody({ ...request, history: fallback.history }));
      return await withRetries(() => attempt(request, retryBody, handlers), {
        maxRetries: limits.max_retries,
        timing,
        signal: handlers.signal,
        onRetry: handlers.onRetry,
      });
    }
  };
  return {
    async stream(request: ProviderRequest, handlers: StreamHandlers): Promise<ProviderResponse> {
      if (closed) throw new ProviderError("provider_error", "provider client is closed");
      try {
        return await send(request, handlers);
      } catch (error) {
        if (error instanceof ProviderError && error.code === "provider_error") {
          const message = withConfigurationHint(error.message);
          if (message !== error.message) throw new ProviderError(error.code, message);
        }
        throw error;
      }
    },
    async close() {
      closed = true;
      await dispatcher.destroy();
    },
  };
}

/** A stream cut after `seconds` without data: transient, its retry notice says the provider is slow. */
function stalled(seconds: number): AttemptFailure {
  const failure = providerFailure(
    `provider stream stalled: nothing arrived for ${seconds} seconds (provider.stream_idle_timeout_seconds)`,
    true,
  );
  failure.reason = `the provider is slow: nothing arrived for ${seconds} s`;
  return failure;
}

/** Transport timeouts (e.g. undici's connect timeout) are not retried. */
function isTimeout(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return (typeof code === "string" && code.includes("TIMEOUT")) ||
    (error instanceof Error && /timeout/i.test(error.name));
}

/** A malformed URL or header fails the same way on every attempt. */
function isInvalidRequest(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return code === "ERR_INVALID_URL" || code === "UND_ERR_INVALID_ARG" || error instanceof TypeError;
}

function requestHeaders(auth: Record<string, string>, extra: Record<string, string>): Record<string, string> {
  const headers: Record<string, string> = {
    ...auth,
    "content-type": "application/json",
    accept: "text/event-stream",
  };
  for (const [name, value] of Object.entries(extra)) headers[name.toLowerCase()] = value;
  return headers;
}

/** `provider returned HTTP <code> <reason>: <details, else first 4096 body bytes>` */
async function httpFailure(response: ProviderHttpResponse, credential: string): Promise<AttemptFailure> {
  const raw = await readBounded(response.body, ERROR_BODY_READ_BYTES);
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString("utf8"));
  } catch {
    parsed = undefined;
  }
  const details = extractDetails(parsed);
  let text: string;
  if (details) {
    text = formatDetails(details, credential);
  } else {
    text = sanitize(raw.subarray(0, ERROR_BODY_SHOWN_BYTES).toString("utf8"), credential) || "no details";
  }
  const status = response.status;
  const reason = response.reason ? ` ${response.reason}` : "";
  const transient = (status === 429 || status >= 500) && !isPermanent(details, status);
  const failure = providerFailure(
    `provider returned HTTP ${status}${reason}: ${text}`,
    transient,
    retryHintMs(response.headers, details),
  );
  failure.reason = `HTTP ${status}`;
  return failure;
}
