// Public entry of lib/config (implementation in progress; signatures are final).
import type { LoadConfigOptions, ResolvedConfig } from "./types.ts";
import { ConfigError } from "./types.ts";

export type * from "./types.ts";
export { ConfigError } from "./types.ts";
export { defaultConfig, DEFAULT_SYSTEM_PROMPT } from "./defaults.ts";

export async function loadConfig(_options: LoadConfigOptions): Promise<ResolvedConfig> {
  throw new ConfigError("configuration loading is not implemented yet");
}

export async function ensureHome(_home: string): Promise<void> {
  throw new ConfigError("ensureHome is not implemented yet");
}

export function resolveHome(
  _flag: string | undefined,
  _env: Record<string, string | undefined>,
): { home: string; explicit: boolean } {
  throw new ConfigError("resolveHome is not implemented yet");
}

export function resolveCredential(_config: ResolvedConfig, _env: Record<string, string | undefined>): string {
  throw new ConfigError("resolveCredential is not implemented yet");
}
