import { ConfigError, type ResolvedConfig } from "./types.ts";

export const MISSING_CREDENTIAL_MESSAGE =
  "provider credential is not configured; set provider.api_key or provider.api_key_env";

/** Spec §6.2 step 4: `api_key`, else the variable named by `api_key_env`; blank counts as missing. */
export function resolveCredential(config: ResolvedConfig, env: Record<string, string | undefined>): string {
  const { api_key, api_key_env } = config.provider;
  if (api_key !== undefined && api_key.trim() !== "") return api_key;
  const fromEnv = api_key_env.trim() !== "" ? env[api_key_env] : undefined;
  if (fromEnv !== undefined && fromEnv.trim() !== "") return fromEnv;
  throw new ConfigError(MISSING_CREDENTIAL_MESSAGE);
}
