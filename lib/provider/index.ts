import { createResponsesProvider } from "./responses.ts";
import type { CreateProviderOptions, ProviderClient } from "./types.ts";

export * from "./types.ts";

/** Builds the client for the profile's wire API (`responses`; `chat` arrives with issue 6). */
export function createProvider(options: CreateProviderOptions): ProviderClient {
  if (options.profile.wire_api === "chat") {
    throw new Error("Chat Completions wire is not implemented yet");
  }
  return createResponsesProvider(options);
}
