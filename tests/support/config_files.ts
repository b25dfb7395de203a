// Test helper (owned by lib/config): temp homes and workspaces with real configuration files
// written at exact modes, and an environment isolated from the developer's own scv settings.
import { chmod, mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach } from "vitest";
import { type FakeProvider, startFakeProvider } from "./fake_provider.ts";

/** Variables that would leak the developer's own configuration into a test. */
export const SCV_ENV_KEYS = [
  "SCV_HOME",
  "SCV_CONFIG",
  "SCV_MODEL",
  "SCV_PROVIDER",
  "SCV_BASE_URL",
  "SCV_API_KEY_ENV",
  "OPENAI_API_KEY",
  "OPENAI_BASE_URL",
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_BASE_URL",
  "OLLAMA_CONTEXT_LENGTH",
  "BRAVE_SEARCH_API_KEY",
] as const;

export interface ConfigSandbox {
  /** The instance home (`SCV_HOME`), an empty 0700 directory. */
  home: string;
  /** An empty directory used as `HOME`. */
  userHome: string;
  /** An empty, canonical workspace directory. */
  workspace: string;
  /** The root holding the three; removed by cleanup(). */
  root: string;
  /** `process.env` without the SCV_* keys, with SCV_HOME and HOME pointing into the sandbox. */
  env(extra?: Record<string, string | undefined>): Record<string, string>;
  /** Writes `<home>/config.toml` (default mode 0600) and returns its path. */
  writeUserConfig(toml: string, mode?: number): Promise<string>;
  /** Writes `<workspace>/.scv/config.toml` (default mode 0644) and returns its path. */
  writeProjectConfig(toml: string, mode?: number): Promise<string>;
  /** Writes a file under the root (default mode 0600), e.g. for `--config-path`. */
  writeExplicitConfig(toml: string, mode?: number, name?: string): Promise<string>;
  /** Writes any path (default mode 0600), e.g. the user file of a home other than `home`. */
  writeConfigFileAt(path: string, toml: string, mode?: number): Promise<string>;
  cleanup(): Promise<void>;
}

/** Writes `contents` to `path` (parents created) and sets the mode exactly, whatever the umask. */
export async function writeConfigFile(path: string, contents: string | Uint8Array, mode = 0o600): Promise<string> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, contents, { mode });
  await chmod(path, mode);
  return path;
}

/** Creates a fresh sandbox under the OS temp directory. */
export async function createConfigSandbox(): Promise<ConfigSandbox> {
  const root = await realpath(await mkdtemp(join(tmpdir(), "scv-config-")));
  const home = join(root, "scv-home");
  const userHome = join(root, "user-home");
  const workspace = join(root, "workspace");
  await mkdir(home, { mode: 0o700 });
  await mkdir(userHome);
  await mkdir(workspace);
  return {
    home,
    userHome,
    workspace,
    root,
    env(extra = {}) {
      const env: Record<string, string> = {};
      for (const [key, value] of Object.entries(process.env)) {
        if (value !== undefined && !(SCV_ENV_KEYS as readonly string[]).includes(key)) env[key] = value;
      }
      env.SCV_HOME = home;
      env.HOME = userHome;
      for (const [key, value] of Object.entries(extra)) {
        if (value === undefined) delete env[key];
        else env[key] = value;
      }
      return env;
    },
    writeUserConfig: (toml, mode = 0o600) => writeConfigFile(join(home, "config.toml"), toml, mode),
    writeProjectConfig: (toml, mode = 0o644) => writeConfigFile(join(workspace, ".scv", "config.toml"), toml, mode),
    writeExplicitConfig: (toml, mode = 0o600, name = "explicit.toml") => writeConfigFile(join(root, name), toml, mode),
    writeConfigFileAt: (path, toml, mode = 0o600) => writeConfigFile(path, toml, mode),
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}

/** A `[providers.<name>]` profile pointing at a (fake) provider, selected via `[provider] active`. */
export function fakeProfileToml(options: { name?: string; baseUrl: string; model?: string; apiKey?: string }): string {
  const name = options.name ?? "fake";
  return [
    "[provider]",
    `active = ${JSON.stringify(name)}`,
    "",
    `[providers.${name}]`,
    'kind = "openai-compatible"',
    `model = ${JSON.stringify(options.model ?? "fake-model")}`,
    `base_url = ${JSON.stringify(options.baseUrl)}`,
    `api_key = ${JSON.stringify(options.apiKey ?? "test-only")}`,
    "",
  ].join("\n");
}

/**
 * A fresh config sandbox and fake provider for every test of the enclosing file or `describe` (registers its
 * hooks): `env.sandbox` and `env.provider` are valid inside tests only.
 */
export function useSandboxAndProvider(): { sandbox: ConfigSandbox; provider: FakeProvider } {
  const env = {} as { sandbox: ConfigSandbox; provider: FakeProvider };
  beforeEach(async () => {
    env.sandbox = await createConfigSandbox();
    env.provider = await startFakeProvider();
  });
  afterEach(async () => {
    await env.provider.close();
    await env.sandbox.cleanup();
  });
  return env;
}
