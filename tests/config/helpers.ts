// Shared by the config tests: load a sandbox's configuration and assert exact failure messages.
import { expect } from "vitest";
import { ConfigError, type ConfigOverrides, loadConfig, type ResolvedConfig } from "../../lib/config/index.ts";
import type { ConfigSandbox } from "../support/config_files.ts";

export interface LoadOptions {
  overrides?: ConfigOverrides;
  env?: Record<string, string | undefined>;
  explicitConfigPath?: string;
  homeExplicit?: boolean;
}

export function load(sandbox: ConfigSandbox, options: LoadOptions = {}): Promise<ResolvedConfig> {
  return loadConfig({
    workspace: sandbox.workspace,
    home: sandbox.home,
    homeExplicit: options.homeExplicit ?? true,
    explicitConfigPath: options.explicitConfigPath,
    env: sandbox.env({ OPENAI_API_KEY: "test-only", ...options.env }),
    overrides: options.overrides ?? {},
  });
}

/** Awaits `work`, which must fail with a ConfigError whose message is exactly `message`. */
export async function expectConfigError(work: Promise<unknown>, message: string): Promise<ConfigError> {
  let caught: unknown;
  try {
    await work;
  } catch (error) {
    caught = error;
  }
  expect(caught, `expected failure: ${message}`).toBeInstanceOf(ConfigError);
  expect((caught as ConfigError).message).toBe(message);
  return caught as ConfigError;
}

/** Like expectConfigError, for a spec "prefix" message. */
export async function expectConfigErrorPrefix(work: Promise<unknown>, prefix: string): Promise<ConfigError> {
  let caught: unknown;
  try {
    await work;
  } catch (error) {
    caught = error;
  }
  expect(caught, `expected failure starting with: ${prefix}`).toBeInstanceOf(ConfigError);
  expect((caught as ConfigError).message.startsWith(prefix), (caught as ConfigError).message).toBe(true);
  return caught as ConfigError;
}
