// Shared setup for provider tests: a client against a fake provider with test-friendly timing, closed after
// each test.
import { afterEach } from "vitest";
import { createProvider } from "../../lib/provider/index.ts";
import { type FakeProvider, type FakeResponse, startFakeProvider } from "../support/fake_provider.ts";
import type {
  FunctionToolSchema,
  HistoryItem,
  ProviderClient,
  ProviderLimits,
  ProviderProfile,
  ProviderRequest,
  ProviderResponse,
} from "../../lib/provider/types.ts";

export const CREDENTIAL = "sk-test-SECRET-123";

export const DEFAULT_LIMITS: ProviderLimits = {
  max_sse_event_bytes: 1048576,
  max_response_bytes: 4194304,
  max_assistant_bytes: 1048576,
  max_tool_calls: 32,
  max_tool_arguments_bytes: 262144,
  max_retries: 2,
};

export type TestClient = {
  client: ProviderClient;
  /** Backoff delays the client asked for, in milliseconds (they are not waited). */
  delays: number[];
};

export type ClientOptions = {
  profile?: Partial<ProviderProfile>;
  limits?: Partial<ProviderLimits>;
  hostedWebSearch?: boolean;
  random?: number;
  warn?: (message: string) => void;
};

/** Options for a client that never retries. */
export const NO_RETRY: ClientOptions = { limits: { max_retries: 0 } };

/** Two tool schemas shaped like the real `read` and `bash`. */
export const READ_TOOL: FunctionToolSchema = {
  name: "read",
  description: "Read a bounded UTF-8 file inside the workspace",
  parameters: {
    type: "object",
    properties: { path: { type: "string" } },
    required: ["path"],
    additionalProperties: false,
  },
};
export const BASH_TOOL: FunctionToolSchema = {
  name: "bash",
  description: "Run a Bash command in the workspace (not sandboxed)",
  parameters: {
    type: "object",
    properties: { command: { type: "string" } },
    required: ["command"],
    additionalProperties: false,
  },
};

export function makeClient(url: string, options: ClientOptions = {}): TestClient {
  const delays: number[] = [];
  const client = createProvider({
    profile: {
      kind: "openai-compatible",
      wire_api: "responses",
      model: "fake-model",
      base_url: url,
      api_key_env: "OPENAI_API_KEY",
      timeout_seconds: 600,
      headers: {},
      image_input: true,
      ...options.profile,
    },
    limits: { ...DEFAULT_LIMITS, ...options.limits },
    credential: CREDENTIAL,
    hostedWebSearch: options.hostedWebSearch ?? false,
    warn: options.warn,
    timing: {
      delay: async (ms) => {
        delays.push(ms);
      },
      random: () => options.random ?? 0.5,
    },
  });
  return { client, delays };
}

export type StreamResult = { response: ProviderResponse; deltas: string[] };

export type TestRequest = {
  history?: HistoryItem[];
  tools?: FunctionToolSchema[];
  instructions?: string;
  step?: number;
};

export function providerRequest(request: TestRequest): ProviderRequest {
  return {
    model: "fake-model",
    instructions: request.instructions ?? "You are SCV.",
    history: request.history ?? [{ kind: "user", content: "hi" }],
    tools: request.tools ?? [],
    ...(request.step === undefined ? {} : { step: request.step }),
  };
}

export async function run(
  client: ProviderClient,
  request: TestRequest = {},
  signal: AbortSignal = new AbortController().signal,
): Promise<StreamResult> {
  const deltas: string[] = [];
  const response = await client.stream(providerRequest(request), {
    signal,
    onTextDelta: (text) => void deltas.push(text),
  });
  return { response, deltas };
}

/** Runs a stream expected to fail and returns the rejection. */
export async function runFailing(
  client: ProviderClient,
  request: TestRequest = {},
  signal?: AbortSignal,
): Promise<Error & { code?: string }> {
  return (await runFailingWithDeltas(client, request, signal)).error;
}

/** Runs a stream expected to fail; returns the rejection and the text deltas the caller received before it. */
export async function runFailingWithDeltas(
  client: ProviderClient,
  request: TestRequest = {},
  signal: AbortSignal = new AbortController().signal,
): Promise<{ error: Error & { code?: string }; deltas: string[] }> {
  const deltas: string[] = [];
  try {
    await client.stream(providerRequest(request), { signal, onTextDelta: (text) => void deltas.push(text) });
  } catch (error) {
    return { error: error as Error & { code?: string }, deltas };
  }
  throw new Error("expected the stream to fail");
}

/**
 * Registers an afterEach in the calling test file that closes every client and fake provider of the test, and
 * returns `setup` (a fake provider scripted with `responses` plus a client on it, `defaults` merged under
 * `options`) and `track` (cleanup for a provider or client made by hand).
 */
export function useProviderClients(defaults: ClientOptions = {}) {
  const clients: ProviderClient[] = [];
  const fakes: FakeProvider[] = [];
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close();
    for (const fake of fakes.splice(0)) await fake.close();
  });
  function track<T extends ProviderClient | FakeProvider>(closable: T): T {
    if ("requests" in closable) fakes.push(closable);
    else clients.push(closable);
    return closable;
  }
  async function setup(responses: FakeResponse[], options: ClientOptions = {}) {
    const fake = track(await startFakeProvider(responses));
    const made = makeClient(fake.url, {
      ...defaults,
      ...options,
      profile: { ...defaults.profile, ...options.profile },
      limits: { ...defaults.limits, ...options.limits },
    });
    return { fake, client: track(made.client), delays: made.delays };
  }
  return { setup, track };
}
