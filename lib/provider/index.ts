import { createChatProvider } from "./chat.ts";
import { createMessagesProvider } from "./messages.ts";
import { createResponsesProvider } from "./responses.ts";
import type { CreateProviderOptions, ProviderClient } from "./types.ts";

export * from "./types.ts";
export { IMAGE_TYPES, MAX_IMAGE_BYTES } from "./images.ts";

/** Builds the client for the profile's wire API: `responses` (spec §8.2), `chat` (§8.3) or Anthropic's `messages`. */
export function createProvider(options: CreateProviderOptions): ProviderClient {
  if (options.profile.wire_api === "chat") return createChatProvider(options);
  if (options.profile.wire_api === "messages") return createMessagesProvider(options);
  return createResponsesProvider(options);
}
export {
  type ContextWindow,
  type ContextWindowSource,
  discoverContextWindow,
  knownContextWindow,
} from "./context_window.ts";
