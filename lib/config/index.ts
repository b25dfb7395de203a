// Public entry of lib/config: spec §7 configuration loading, home and credential resolution.
export type * from "./types.ts";
export { ConfigError } from "./types.ts";
export { DEFAULT_SYSTEM_PROMPT, defaultConfig, MCP_SERVER_DEFAULTS } from "./defaults.ts";
export { loadConfig } from "./load.ts";
export { configuredApprovalPolicy, type PolicyOrigin, type SessionConfigInputs } from "./policy_origin.ts";
export { ensureHome, expandTilde, resolveHome } from "./home.ts";
export { MISSING_CREDENTIAL_MESSAGE, resolveCredential } from "./credential.ts";
export { hookMatcher } from "./hooks.ts";
export { setTrust, type TrustLevel, trustLevel } from "./trust.ts";
export { HOOK_EVENTS } from "./types.ts";
export { appendAllowRule } from "./allow_rule_file.ts";
