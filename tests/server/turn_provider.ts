// The provider side shared by the in-process turn-loop tests: a fake SSE provider on 127.0.0.1 and the real
// Responses client pointed at it, with the default configuration; closed after each test.
import { afterEach } from "vitest";
import { defaultConfig } from "../../lib/config/defaults.ts";
import type { ResolvedConfig } from "../../lib/config/types.ts";
import { createProvider } from "../../lib/provider/index.ts";
import type { ProviderClient } from "../../lib/provider/types.ts";
import { type FakeProvider, startFakeProvider } from "../support/fake_provider.ts";

export type TurnProvider = { fake: FakeProvider; client: ProviderClient; config: ResolvedConfig };

/** Registers the cleanup and returns the function that starts a provider for one test. */
export function useTurnProvider(): (
  script: Parameters<typeof startFakeProvider>[0],
  edit?: (config: ResolvedConfig) => void,
) => Promise<TurnProvider> {
  let started: TurnProvider | undefined;
  afterEach(async () => {
    await started?.client.close();
    await started?.fake.close();
    started = undefined;
  });
  return async (script, edit) => {
    const fake = await startFakeProvider(script);
    const config = defaultConfig("/nonexistent/skills");
    config.provider.base_url = fake.url;
    config.provider.model = "fake-model";
    edit?.(config);
    const client = createProvider({
      profile: config.provider,
      limits: config.provider_limits,
      credential: "k",
      hostedWebSearch: false,
    });
    started = { fake, client, config };
    return started;
  };
}
