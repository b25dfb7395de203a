import { ConfigError, type ResolvedConfig } from "./types.ts";

/** The spec's text (§6.2 step 4), for the default `[provider]` table; see missingCredentialMessage. */
export const MISSING_CREDENTIAL_MESSAGE =
  "provider credential is not configured; set provider.api_key or provider.api_key_env";

/**
 * The spec's message, naming the profile in effect and what to do first: the variable to set, or the file
 * to configure (`userFile`, the user configuration's path, when known).
 */
export function missingCredentialMessage(config: ResolvedConfig, userFile = "~/.scv/config.toml"): string {
  const table = config.provider_name === undefined ? "provider" : `providers.${config.provider_name}`;
  const variable = config.provider.api_key_env.trim();
  const first = variable === "" ? "" : `set ${variable}, or `;
  return (
    `provider credential is not configured; set ${table}.api_key or ${table}.api_key_env ` +
    `(${first}configure a provider in ${userFile}; see docs/configuration.md)`
  );
}

/** Spec §6.2 step 4: `api_key`, else the variable named by `api_key_env`; blank counts as missing. */
export function resolveCredential(
  config: ResolvedConfig,
  env: Record<string, string | undefined>,
  userFile?: string,
): string {
  const { api_key, api_key_env } = config.provider;
  if (api_key !== undefined && api_key.trim() !== "") return api_key;
  const fromEnv = api_key_env.trim() !== "" ? env[api_key_env] : undefined;
  if (fromEnv !== undefined && fromEnv.trim() !== "") return fromEnv;
  throw new ConfigError(missingCredentialMessage(config, userFile));
}
