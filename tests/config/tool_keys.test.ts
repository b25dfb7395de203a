// The configuration keys of issue 15: `provider.edit_tools` (per profile) and `tools.login_shell`.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type ConfigSandbox, createConfigSandbox } from "../support/config_files.ts";
import { expectConfigError, load } from "./helpers.ts";

let sandbox: ConfigSandbox;
beforeEach(async () => {
  sandbox = await createConfigSandbox();
});
afterEach(async () => {
  await sandbox.cleanup();
});

describe("issue 15 keys", () => {
  it("default to auto edit tools and a non-login shell", async () => {
    const config = await load(sandbox);
    expect(config.provider.edit_tools).toBe("auto");
    expect(config.tools.login_shell).toBe(false);
  });

  it("take edit_tools from the selected profile and login_shell from [tools]", async () => {
    await sandbox.writeUserConfig(
      '[provider]\nactive = "local"\n\n[providers.local]\nwire_api = "chat"\nmodel = "m"\nbase_url = "http://127.0.0.1:1/v1"\nedit_tools = "both"\n\n[tools]\nlogin_shell = true\n',
    );
    const config = await load(sandbox);
    expect(config.provider.edit_tools).toBe("both");
    expect(config.tools.login_shell).toBe(true);
  });

  it("refuses an unknown edit_tools value and a non-boolean login_shell", async () => {
    await sandbox.writeUserConfig('[provider]\nedit_tools = "patch"\n');
    await expectConfigError(load(sandbox), 'provider.edit_tools must be "auto", "edit", "apply_patch" or "both"');
    await sandbox.writeUserConfig("[tools]\nlogin_shell = 1\n");
    await expect(load(sandbox)).rejects.toThrow(/login_shell/);
  });
});
