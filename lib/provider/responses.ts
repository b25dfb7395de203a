import { ProviderError, type CreateProviderOptions, type ProviderClient } from "./types.ts";

// Placeholder until the Responses wire lands (next commit).
export function createResponsesProvider(_options: CreateProviderOptions): ProviderClient {
  return {
    stream: async () => {
      throw new ProviderError("provider_error", "provider is not implemented yet");
    },
    close: async () => {},
  };
}
