// The instance home (§7.1), its creation at 0700 (§6.2 step 2) and the credential (§6.2 step 4).
import { chmod, mkdir, stat, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConfigError, ensureHome, resolveCredential, resolveHome } from "../../lib/config/index.ts";
import { type ConfigSandbox, createConfigSandbox } from "../support/config_files.ts";
import { load } from "./helpers.ts";

let sandbox: ConfigSandbox;
beforeEach(async () => {
  sandbox = await createConfigSandbox();
});
afterEach(async () => {
  await sandbox.cleanup();
});

describe("resolveHome", () => {
  it("--scv-home first, then SCV_HOME, then ~/.scv", () => {
    const env = { HOME: "/users/ann", SCV_HOME: "/srv/scv" };
    expect(resolveHome("/opt/scv", env)).toEqual({ home: "/opt/scv", explicit: true });
    expect(resolveHome(undefined, env)).toEqual({ home: "/srv/scv", explicit: true });
    expect(resolveHome(undefined, { HOME: "/users/ann" })).toEqual({ home: "/users/ann/.scv", explicit: false });
  });

  it("ignores empty values and makes relative paths absolute", () => {
    expect(resolveHome("", { HOME: "/users/ann", SCV_HOME: "" })).toEqual({ home: "/users/ann/.scv", explicit: false });
    expect(resolveHome("rel/home", {})).toEqual({ home: resolve("rel/home"), explicit: true });
    expect(resolveHome("~/alt", { HOME: "/users/ann" })).toEqual({ home: "/users/ann/alt", explicit: true });
  });
});

describe("ensureHome", () => {
  it("creates missing parents and the home at 0700", async () => {
    const home = join(sandbox.root, "a", "b", "home");
    await ensureHome(home);
    expect((await stat(home)).mode & 0o777).toBe(0o700);
  });

  it("a home that is a file fails with a clean message", async () => {
    const home = join(sandbox.root, "not-a-dir");
    await writeFile(home, "");
    let caught: unknown;
    try {
      await ensureHome(home);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as Error).message).toBe(`create instance home ${home}: file already exists`);
  });

  it("tightens an existing home to 0700, and says so", async () => {
    const home = join(sandbox.root, "open-home");
    await mkdir(home);
    await chmod(home, 0o755);
    const warnings: string[] = [];
    await ensureHome(home, (message) => warnings.push(message));
    expect((await stat(home)).mode & 0o777).toBe(0o700);
    expect(warnings).toEqual([`instance home ${home} was readable by group or others (mode 755); changed it to 700`]);
    // A private home is left alone, quietly.
    await ensureHome(home, (message) => warnings.push(message));
    expect(warnings).toHaveLength(1);
  });
});

describe("resolveCredential", () => {
  const message =
    "provider credential is not configured; set provider.api_key or provider.api_key_env (set OPENAI_API_KEY, or configure a provider in ~/.scv/config.toml; see docs/configuration.md)";

  it("prefers api_key, else the variable named by api_key_env", async () => {
    await sandbox.writeUserConfig('[provider]\napi_key = "from-file"\n');
    const withKey = await load(sandbox);
    expect(resolveCredential(withKey, { OPENAI_API_KEY: "from-env" })).toBe("from-file");
    await sandbox.writeUserConfig('[provider]\napi_key = ""\napi_key_env = "LOCAL_KEY"\n');
    const withEnv = await load(sandbox);
    expect(resolveCredential(withEnv, { LOCAL_KEY: "local", OPENAI_API_KEY: "other" })).toBe("local");
  });

  it("SCV_API_KEY_ENV renames the variable", async () => {
    const config = await load(sandbox, { env: { SCV_API_KEY_ENV: "ALT_KEY" } });
    expect(resolveCredential(config, { ALT_KEY: "alt" })).toBe("alt");
    expect(() => resolveCredential(config, { OPENAI_API_KEY: "k" })).toThrow(ConfigError);
  });

  it("missing or empty is the exact §6.2 message", async () => {
    const config = await load(sandbox);
    for (const env of [{}, { OPENAI_API_KEY: "" }]) {
      let caught: unknown;
      try {
        resolveCredential(config, env);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(ConfigError);
      expect((caught as Error).message).toBe(message);
    }
  });

  it("names the profile in effect, its variable and the user file", async () => {
    await sandbox.writeUserConfig(
      'provider_active = "local"\n[providers.local]\nmodel = "m"\nbase_url = "http://127.0.0.1:1/v1"\napi_key_env = "LOCAL_KEY"\n',
    );
    const config = await load(sandbox);
    expect(() => resolveCredential(config, {}, "/home/u/.scv/config.toml")).toThrow(
      "provider credential is not configured; set providers.local.api_key or providers.local.api_key_env (set LOCAL_KEY, or configure a provider in /home/u/.scv/config.toml; see docs/configuration.md)",
    );
  });
});
