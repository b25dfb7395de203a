// `[mcp_servers.<name>]` (issue 18): Codex's key names and defaults, and only trusted layers may define servers.
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type ConfigSandbox, createConfigSandbox, writeConfigFile } from "../support/config_files.ts";
import { expectConfigError, expectConfigErrorPrefix, load } from "./helpers.ts";

let sandbox: ConfigSandbox;
beforeEach(async () => {
  sandbox = await createConfigSandbox();
});
afterEach(async () => {
  await sandbox.cleanup();
});

describe("mcp_servers", () => {
  it("reads stdio and HTTP entries with Codex's defaults", async () => {
    await sandbox.writeUserConfig(
      '[mcp_servers.fs]\ncommand = "mcp-server-filesystem"\nargs = ["/tmp"]\nenv = { A = "1" }\n' +
        '[mcp_servers.web]\nurl = "http://127.0.0.1:9/mcp"\nbearer_token_env_var = "TOKEN"\ntool_timeout_sec = 5\n' +
        'disabled_tools = ["x"]\nenabled = false\n',
    );
    const config = await load(sandbox);
    expect(config.mcp_servers.fs).toEqual({
      command: "mcp-server-filesystem",
      args: ["/tmp"],
      env: { A: "1" },
      http_headers: {},
      enabled: true,
      startup_timeout_sec: 10,
      tool_timeout_sec: 60,
      disabled_tools: [],
    });
    expect(config.mcp_servers.web).toMatchObject({
      url: "http://127.0.0.1:9/mcp",
      enabled: false,
      tool_timeout_sec: 5,
    });
  });

  it("the explicit file may define a server too", async () => {
    const path = await writeConfigFile(join(sandbox.home, "extra.toml"), '[mcp_servers.e]\ncommand = "echo"\n');
    const config = await load(sandbox, { explicitConfigPath: path });
    expect(config.mcp_servers.e?.command).toBe("echo");
  });

  it("counts MCP credentials as secrets: the bearer token's variable and value, credential-named headers and env", async () => {
    await sandbox.writeUserConfig(
      '[mcp_servers.web]\nurl = "http://127.0.0.1:9/mcp"\nbearer_token_env_var = "MCP_TOKEN"\nhttp_headers = { "X-Api-Key" = "hdr-secret", Accept = "x" }\n' +
        '[mcp_servers.gh]\ncommand = "gh-mcp"\nenv = { GITHUB_TOKEN = "env-secret", LANG = "C" }\n',
    );
    const config = await load(sandbox, { env: { MCP_TOKEN: "bearer-secret" } });
    expect(config.secrets.env_names).toContain("MCP_TOKEN");
    expect(config.secrets.values).toEqual(expect.arrayContaining(["bearer-secret", "hdr-secret", "env-secret"]));
    expect(config.secrets.values).not.toContain("C");
    expect(config.secrets.values).not.toContain("x");
  });

  it("unknown keys are errors", async () => {
    await sandbox.writeUserConfig('[mcp_servers.fs]\ncommand = "x"\ntimeout = 3\n');
    await expectConfigErrorPrefix(
      load(sandbox),
      `parse configuration ${join(sandbox.home, "config.toml")}: unknown key mcp_servers.fs.timeout`,
    );
  });

  it("needs exactly one of command or url", async () => {
    await sandbox.writeUserConfig('[mcp_servers.fs]\ncommand = "x"\nurl = "http://127.0.0.1:1/"\n');
    await expectConfigError(
      load(sandbox),
      "mcp_servers.fs needs exactly one of command (stdio) or url (streamable HTTP)",
    );
    await sandbox.writeUserConfig("[mcp_servers.fs]\nenabled = true\n");
    await expectConfigError(
      load(sandbox),
      "mcp_servers.fs needs exactly one of command (stdio) or url (streamable HTTP)",
    );
  });

  it("takes a name with a dot or a space (tool names sanitise it) and refuses control characters", async () => {
    await sandbox.writeUserConfig('[mcp_servers."my.mock"]\ncommand = "x"\n[mcp_servers."a b"]\ncommand = "y"\n');
    const config = await load(sandbox);
    expect(Object.keys(config.mcp_servers).sort()).toEqual(["a b", "my.mock"]);
    await sandbox.writeUserConfig('[mcp_servers."a\\u001bb"]\ncommand = "x"\n');
    await expectConfigError(
      load(sandbox),
      'mcp_servers."a\\u001bb": a server name must be 1 to 64 characters without control characters',
    );
  });

  it("the workspace file can neither add nor change a server, and the error names the file", async () => {
    await sandbox.writeUserConfig('[mcp_servers.fs]\ncommand = "mcp-server-filesystem"\n');
    const file = join(sandbox.workspace, ".scv", "config.toml");
    const message =
      `project configuration ${file} cannot set [mcp_servers]: MCP servers are defined only in the user file or --config-path`;
    await sandbox.writeProjectConfig('[mcp_servers.evil]\ncommand = "touch"\nargs = ["/tmp/pwned"]\n');
    await expectConfigError(load(sandbox), message);
    await sandbox.writeProjectConfig('[mcp_servers.fs]\ncommand = "sh"\n');
    await expectConfigError(load(sandbox), message);
    await sandbox.writeProjectConfig("[mcp_servers.fs]\nenabled = false\n");
    await expectConfigError(load(sandbox), message);
  });
});
