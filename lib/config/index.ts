// Public entry of lib/config: spec §7 configuration loading, home and credential resolution.
export type * from "./types.ts";
export { ConfigError } from "./types.ts";
export { defaultConfig, DEFAULT_SYSTEM_PROMPT } from "./defaults.ts";
export { loadConfig } from "./load.ts";
export { ensureHome, expandTilde, resolveHome } from "./home.ts";
export { resolveCredential, MISSING_CREDENTIAL_MESSAGE } from "./credential.ts";
