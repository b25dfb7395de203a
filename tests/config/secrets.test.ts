// config.secrets (issue 12): what loadConfig records for the tools to keep away from, and tools.env_passthrough.
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type ConfigSandbox, createConfigSandbox, writeConfigFile } from "../support/config_files.ts";
import { expectConfigError, load } from "./helpers.ts";

let sandbox: ConfigSandbox;
beforeEach(async () => {
  sandbox = await createConfigSandbox();
});
afterEach(async () => {
  await sandbox.cleanup();
});

describe("config.secrets", () => {
  it("names the real home and every configuration file, present or not, with identities of those present", async () => {
    const user = await sandbox.writeUserConfig("[tools]\nmax_read_bytes = 1000\n");
    const explicit = await sandbox.writeExplicitConfig("");
    const config = await load(sandbox, { explicitConfigPath: explicit });
    expect(config.secrets.home).toBe(sandbox.home);
    expect(config.secrets.config_files.map((file) => file.path)).toEqual([
      user,
      join(sandbox.workspace, ".scv", "config.toml"),
      explicit,
    ]);
    expect(config.secrets.config_files[0]!.ino).toBeTypeOf("number");
    expect(config.secrets.config_files[1]!.ino).toBeUndefined();
  });

  it("collects every profile's key variable and key, the search key, and the variables' values", async () => {
    await sandbox.writeUserConfig(
      [
        "[provider]",
        'api_key_env = "MAIN_KEY"',
        'headers = { Authorization = "Bearer header-token-value", "X-Org" = "plain-org" }',
        "[providers.other]",
        'model = "m"',
        'base_url = "http://127.0.0.1:9/v1"',
        'api_key = "other-profile-key"',
        'api_key_env = "OTHER_KEY"',
        "[web]",
        'brave_api_key_env = "MY_BRAVE"',
        'brave_api_key = "brave-configured"',
        "",
      ].join("\n"),
    );
    const config = await load(sandbox, {
      env: { MAIN_KEY: "main-value", OTHER_KEY: "other-value", MY_BRAVE: "brave-value" },
    });
    expect(config.secrets.env_names).toEqual([
      "ANTHROPIC_API_KEY",
      "BRAVE_SEARCH_API_KEY",
      "MAIN_KEY",
      "MY_BRAVE",
      "OPENAI_API_KEY",
      "OTHER_KEY",
    ]);
    expect([...config.secrets.values].sort()).toEqual(
      [
        "Bearer header-token-value",
        "brave-configured",
        "brave-value",
        "main-value",
        "other-profile-key",
        "other-value",
        "test-only",
      ].sort(),
    );
  });
});

describe("scv config", () => {
  it("never prints config.secrets (the keys' values are in it)", async () => {
    const { describeConfig } = await import("../../lib/cli/config.ts");
    const config = await load(sandbox, { env: { OPENAI_API_KEY: "sk-must-not-print-1234" } });
    expect(config.secrets.values).toContain("sk-must-not-print-1234");
    const rows = describeConfig(config, new Map());
    expect(rows.some((row) => row.key.startsWith("secrets."))).toBe(false);
    expect(JSON.stringify(rows)).not.toContain("sk-must-not-print-1234");
    expect(rows.find((row) => row.key === "tools.env_passthrough")).toMatchObject({ value: "[]" });
  });
});

describe("tools.env_passthrough", () => {
  it("defaults to none and accepts variable names", async () => {
    expect((await load(sandbox)).tools.env_passthrough).toEqual([]);
    await sandbox.writeUserConfig('[tools]\nenv_passthrough = ["OPENAI_API_KEY", "_X1"]\n');
    expect((await load(sandbox)).tools.env_passthrough).toEqual(["OPENAI_API_KEY", "_X1"]);
  });

  it("refuses a non-list, a bad name, a project file setting it, and unknown keys beside it", async () => {
    const file = await sandbox.writeUserConfig('[tools]\nenv_passthrough = "OPENAI_API_KEY"\n');
    await expectConfigError(load(sandbox), `parse configuration ${file}: invalid value for tools.env_passthrough`);
    await sandbox.writeUserConfig('[tools]\nenv_passthrough = ["BAD-NAME"]\n');
    await expectConfigError(
      load(sandbox),
      'tools.env_passthrough entry "BAD-NAME" must be an environment variable name',
    );
    await sandbox.writeUserConfig("[tools]\nenv_pass = []\n");
    await expectConfigError(load(sandbox), `parse configuration ${file}: unknown key tools.env_pass`);
    await sandbox.writeUserConfig('[secrets]\nhome = "/"\n');
    await expectConfigError(load(sandbox), `parse configuration ${file}: unknown key secrets`);
    await sandbox.writeUserConfig("");
    await writeConfigFile(
      join(sandbox.workspace, ".scv", "config.toml"),
      '[tools]\nenv_passthrough = ["OPENAI_API_KEY"]\n',
      0o644,
    );
    await expectConfigError(load(sandbox), "project configuration cannot set tools.env_passthrough");
  });
});
