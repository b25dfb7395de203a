// Layering (§7.1), profile selection and overrides (§7.2), and what the project layer may do (§7.3).
import { mkdir, rm, symlink } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { defaultConfig, loadConfig } from "../../lib/config/index.ts";
import { type ConfigSandbox, createConfigSandbox, fakeProfileToml, writeConfigFile } from "../support/config_files.ts";
import { expectConfigError, load } from "./helpers.ts";

let sandbox: ConfigSandbox;
beforeEach(async () => {
  sandbox = await createConfigSandbox();
});
afterEach(async () => {
  await sandbox.cleanup();
});

describe("defaults", () => {
  it("no files at all gives every default of §7.2", async () => {
    const { secrets: _secrets, ...config } = await load(sandbox);
    const { secrets: _none, ...defaults } = defaultConfig(join(sandbox.home, "skills"));
    expect(config).toEqual({ ...defaults, context_max_tokens_default: true, sandbox_mode_default: true });
    expect(config.provider).toEqual({
      kind: "openai-compatible",
      wire_api: "responses",
      model: "gpt-4.1-mini",
      base_url: "https://api.openai.com/v1",
      api_key_env: "OPENAI_API_KEY",
      timeout_seconds: 600,
      stream_idle_timeout_seconds: 300,
      headers: {},
      image_input: true,
      edit_tools: "auto",
    });
    expect(config.tools.approval_policy).toBe("on-risk");
    expect(config.context.max_tokens).toBe(128000);
    expect(config.protocol.max_server_frame_bytes).toBe(8388608);
    expect(config.web.search).toBe("off");
    expect("searxng_url" in config.web).toBe(false);
    expect("api_key" in config.provider).toBe(false);
  });

  it("skills.user_dir defaults to ~/.scv/skills when the home is implicit", async () => {
    const config = await loadConfig({
      workspace: sandbox.workspace,
      home: join(sandbox.userHome, ".scv"),
      homeExplicit: false,
      env: sandbox.env(),
      overrides: {},
    });
    expect(config.skills.user_dir).toBe(join(sandbox.userHome, ".scv", "skills"));
  });

  it("skills.user_dir is <home>/skills when the home is explicit", async () => {
    expect((await load(sandbox, { homeExplicit: true })).skills.user_dir).toBe(join(sandbox.home, "skills"));
  });

  it("a configured skills.user_dir is made absolute (~ expanded, relative to the home)", async () => {
    await sandbox.writeUserConfig('[skills]\nuser_dir = "~/my-skills"\n');
    expect((await load(sandbox)).skills.user_dir).toBe(join(sandbox.userHome, "my-skills"));
    await sandbox.writeUserConfig('[skills]\nuser_dir = "lib/skills"\n');
    expect((await load(sandbox)).skills.user_dir).toBe(join(sandbox.home, "lib", "skills"));
  });
});

describe("layers and deep merge", () => {
  it("tables merge across layers; scalars and arrays replace", async () => {
    await sandbox.writeUserConfig(
      '[tools]\nmax_read_bytes = 1000\n[web]\nauto_approve_domains = ["a.example", "b.example"]\n[provider.headers]\nX-One = "1"\n',
    );
    const explicit = await sandbox.writeExplicitConfig(
      '[tools]\noutput_limit_bytes = 2000\n[web]\nauto_approve_domains = ["c.example"]\n[provider.headers]\nX-Two = "2"\n',
    );
    const config = await load(sandbox, { explicitConfigPath: explicit });
    expect(config.tools.max_read_bytes).toBe(1000);
    expect(config.tools.output_limit_bytes).toBe(2000);
    expect(config.tools.max_write_bytes).toBe(1048576);
    expect(config.web.auto_approve_domains).toEqual(["c.example"]);
    expect(config.provider.headers).toEqual({ "X-One": "1", "X-Two": "2" });
  });

  it("explicit beats project beats user", async () => {
    await sandbox.writeUserConfig("[agent]\nmax_steps = 50\n[session]\nmax_messages = 500\n");
    await sandbox.writeProjectConfig("[agent]\nmax_steps = 40\n[session]\nmax_messages = 400\n");
    const explicit = await sandbox.writeExplicitConfig("[agent]\nmax_steps = 30\n");
    const config = await load(sandbox, { explicitConfigPath: explicit });
    expect(config.agent.max_steps).toBe(30);
    expect(config.session.max_messages).toBe(400);
  });

  it("SCV_CONFIG is the explicit layer when no path is given, and the given path wins over it", async () => {
    const fromEnv = await sandbox.writeExplicitConfig("[agent]\nmax_steps = 7\n", 0o600, "env.toml");
    const fromFlag = await sandbox.writeExplicitConfig("[agent]\nmax_steps = 9\n", 0o600, "flag.toml");
    expect((await load(sandbox, { env: { SCV_CONFIG: fromEnv } })).agent.max_steps).toBe(7);
    expect((await load(sandbox, { env: { SCV_CONFIG: fromEnv }, explicitConfigPath: fromFlag })).agent.max_steps).toBe(
      9,
    );
  });

  it("the explicit layer may loosen what the project tightened", async () => {
    await sandbox.writeProjectConfig('[tools]\napproval_policy = "never"\n');
    const explicit = await sandbox.writeExplicitConfig('[tools]\napproval_policy = "on-risk"\n');
    expect((await load(sandbox)).tools.approval_policy).toBe("never");
    expect((await load(sandbox, { explicitConfigPath: explicit })).tools.approval_policy).toBe("on-risk");
  });

  it("accepted-but-ignored keys and tables are type-checked, then dropped", async () => {
    await sandbox.writeUserConfig(
      '[agent]\nprefer = ["codex"]\nmax_delegation_depth = 2\nmax_conversations = 3\nconversation_idle_seconds = 4\nmax_background = 5\n' +
        '[tools]\nagent_timeout_seconds = 60\n[agents.reviewer]\nmodel = "x"\n[update]\nchannel = "beta"\n[channels.slack]\ntoken_env = "T"\n',
    );
    const config = await load(sandbox);
    // max_delegation_depth bounds the agent tool since issue 20.
    expect(Object.keys(config.agent).sort()).toEqual(["max_delegation_depth", "max_steps", "system_prompt"]);
    expect("agent_timeout_seconds" in config.tools).toBe(false);
    expect("agents" in config).toBe(false);
  });

  it("a symlinked 0600 user file is read; the mode of the target counts", async () => {
    const target = await writeConfigFile(join(sandbox.root, "real.toml"), "[agent]\nmax_steps = 11\n", 0o600);
    await symlink(target, join(sandbox.home, "config.toml"));
    expect((await load(sandbox)).agent.max_steps).toBe(11);
    await writeConfigFile(target, "[agent]\nmax_steps = 11\n", 0o644);
    await expectConfigError(
      load(sandbox),
      `user configuration is readable by group or others; run chmod 600 ${join(sandbox.home, "config.toml")}`,
    );
  });

  it("the project file is exempt from the permission rule", async () => {
    await sandbox.writeProjectConfig("[agent]\nmax_steps = 12\n", 0o666);
    expect((await load(sandbox)).agent.max_steps).toBe(12);
  });
});

describe("provider profiles", () => {
  const profiles = '[provider]\nmodel = "base-model"\napi_key = "base-key"\n[provider.headers]\nX-Base = "1"\n' +
    '[providers.alpha]\nmodel = "alpha-model"\nbase_url = "http://127.0.0.1:1/v1"\n' +
    '[providers.beta]\nmodel = "beta-model"\nwire_api = "chat"\napi_key = "beta-key"\n';

  it("[provider] is the profile when none is selected", async () => {
    await sandbox.writeUserConfig(profiles);
    const config = await load(sandbox);
    expect(config.provider.model).toBe("base-model");
    expect(config.provider.api_key).toBe("base-key");
    expect(config.provider.headers).toEqual({ "X-Base": "1" });
  });

  it("the chosen profile replaces [provider] whole; defaults fill its gaps", async () => {
    await sandbox.writeUserConfig(profiles.replace("[provider]\n", '[provider]\nactive = "alpha"\n'));
    const config = await load(sandbox);
    expect(config.provider).toEqual({
      kind: "openai-compatible",
      wire_api: "responses",
      model: "alpha-model",
      base_url: "http://127.0.0.1:1/v1",
      api_key_env: "OPENAI_API_KEY",
      timeout_seconds: 600,
      stream_idle_timeout_seconds: 300,
      headers: {},
      image_input: true,
      edit_tools: "auto",
    });
  });

  it("selection order: override, then SCV_PROVIDER, then provider_active, then provider.active", async () => {
    await sandbox.writeUserConfig(
      `provider_active = "beta"\n${profiles.replace("[provider]\n", '[provider]\nactive = "alpha"\n')}`,
    );
    expect((await load(sandbox)).provider.model).toBe("beta-model");
    expect((await load(sandbox, { env: { SCV_PROVIDER: "alpha" } })).provider.model).toBe("alpha-model");
    expect((await load(sandbox, { env: { SCV_PROVIDER: "alpha" }, overrides: { provider: "beta" } })).provider.wire_api)
      .toBe(
        "chat",
      );
  });

  it("the seed's fake profile loads with its key", async () => {
    await sandbox.writeUserConfig(fakeProfileToml({ baseUrl: "http://127.0.0.1:9/v1" }));
    const config = await load(sandbox);
    expect(config.provider.model).toBe("fake-model");
    expect(config.provider.base_url).toBe("http://127.0.0.1:9/v1");
    expect(config.provider.api_key).toBe("test-only");
  });

  it("environment (layer 5) beats files; flags (layer 6) beat the environment", async () => {
    await sandbox.writeUserConfig(profiles.replace("[provider]\n", '[provider]\nactive = "alpha"\n'));
    const env = { SCV_MODEL: "env-model", SCV_BASE_URL: "http://127.0.0.1:2/v1", SCV_API_KEY_ENV: "MY_KEY" };
    const fromEnv = await load(sandbox, { env });
    expect(fromEnv.provider.model).toBe("env-model");
    expect(fromEnv.provider.base_url).toBe("http://127.0.0.1:2/v1");
    expect(fromEnv.provider.api_key_env).toBe("MY_KEY");
    const fromFlags = await load(sandbox, {
      env,
      overrides: { model: "flag-model", base_url: "http://127.0.0.1:3/v1" },
    });
    expect(fromFlags.provider.model).toBe("flag-model");
    expect(fromFlags.provider.base_url).toBe("http://127.0.0.1:3/v1");
  });

  it("empty environment overrides are ignored", async () => {
    const config = await load(sandbox, { env: { SCV_MODEL: "", SCV_BASE_URL: "", SCV_PROVIDER: "", SCV_CONFIG: "" } });
    expect(config.provider.model).toBe("gpt-4.1-mini");
  });

  it("--approval-policy overrides the files, even weakening them", async () => {
    await sandbox.writeUserConfig('[tools]\napproval_policy = "never"\n');
    expect((await load(sandbox, { overrides: { approval_policy: "on-risk" } })).tools.approval_policy).toBe("on-risk");
  });
});

describe("project layer", () => {
  it("may tighten everything it is allowed to touch", async () => {
    await sandbox.writeProjectConfig(
      "[agent]\nmax_steps = 10\n[context]\nreserve_output_tokens = 9000\nbytes_per_token = 2\n" +
        '[tools]\napproval_policy = "always"\ncode_mode = false\n[skills]\nscan_projects = false\nproject_dir = "skills"\n' +
        '[web]\nenabled = false\nsearch = "off"\nmax_redirects = 0\n',
    );
    const config = await load(sandbox);
    expect(config.agent.max_steps).toBe(10);
    expect(config.context.reserve_output_tokens).toBe(9000);
    expect(config.context.bytes_per_token).toBe(2);
    expect(config.tools.approval_policy).toBe("always");
    expect(config.tools.code_mode).toBe(false);
    expect(config.skills.scan_projects).toBe(false);
    expect(config.skills.project_dir).toBe("skills");
    expect(config.web.enabled).toBe(false);
    expect(config.web.max_redirects).toBe(0);
  });

  it("limits are relative to the user layer, and equal values are not raises", async () => {
    await sandbox.writeUserConfig('[agent]\nmax_steps = 300\n[web]\nsearch = "provider"\n');
    await sandbox.writeProjectConfig('[agent]\nmax_steps = 300\n[web]\nsearch = "provider"\n');
    const config = await load(sandbox);
    expect(config.agent.max_steps).toBe(300);
    expect(config.web.search).toBe("provider");
  });

  it("is skipped when it is the same file as the user layer", async () => {
    // The home is the workspace's .scv directory: both layers name one file, read once as trusted.
    const home = join(sandbox.workspace, ".scv");
    await mkdir(home, { mode: 0o700 });
    await writeConfigFile(join(home, "config.toml"), fakeProfileToml({ baseUrl: "http://127.0.0.1:9/v1" }), 0o600);
    const config = await loadConfig({
      workspace: sandbox.workspace,
      home,
      homeExplicit: true,
      env: sandbox.env(),
      overrides: {},
    });
    expect(config.provider.model).toBe("fake-model");
  });

  it("a .scv directory without config.toml is no layer", async () => {
    await mkdir(join(sandbox.workspace, ".scv"));
    expect((await load(sandbox)).agent.max_steps).toBe(128);
  });

  it("a .scv file, or a config.toml directory, is no layer", async () => {
    await writeConfigFile(join(sandbox.workspace, ".scv"), "[agent]\nmax_steps = 1\n");
    expect((await load(sandbox)).agent.max_steps).toBe(128);
    await rm(join(sandbox.workspace, ".scv"));
    await mkdir(join(sandbox.workspace, ".scv", "config.toml"), { recursive: true });
    expect((await load(sandbox)).agent.max_steps).toBe(128);
  });
});
