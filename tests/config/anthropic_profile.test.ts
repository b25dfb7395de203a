// `kind = "anthropic"` (issue 32): a profile of that kind starts from the Messages wire's defaults, and
// ANTHROPIC_BASE_URL names Anthropic's host the way the Anthropic SDKs and Claude Code read it.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../lib/config/index.ts";
import { type ConfigSandbox, createConfigSandbox } from "../support/config_files.ts";
import { load } from "./helpers.ts";

let sandbox: ConfigSandbox;
beforeEach(async () => {
  sandbox = await createConfigSandbox();
});
afterEach(async () => {
  await sandbox.cleanup();
});

describe('provider.kind = "anthropic"', () => {
  it("fills the Messages wire's defaults; thinking and max_output_tokens stay unset", async () => {
    await sandbox.writeUserConfig('[provider]\nkind = "anthropic"\n');
    const config = await load(sandbox);
    expect(config.provider).toEqual({
      kind: "anthropic",
      wire_api: "messages",
      model: "claude-sonnet-4-5",
      base_url: "https://api.anthropic.com/v1",
      api_key_env: "ANTHROPIC_API_KEY",
      timeout_seconds: 600,
      stream_idle_timeout_seconds: 300,
      headers: {},
      image_input: true,
      edit_tools: "auto",
    });
    expect(config.secrets.env_names).toContain("ANTHROPIC_API_KEY");
  });

  it("a named profile of that kind keeps its own keys over the kind's defaults", async () => {
    await sandbox.writeUserConfig(
      'provider_active = "claude"\n[providers.claude]\nkind = "anthropic"\nmodel = "claude-opus-4-1"\n' +
        "max_output_tokens = 20000\nthinking_budget_tokens = 4096\n",
    );
    const config = await load(sandbox);
    expect(config.provider).toMatchObject({
      kind: "anthropic",
      wire_api: "messages",
      model: "claude-opus-4-1",
      max_output_tokens: 20000,
      thinking_budget_tokens: 4096,
    });
  });

  it("ANTHROPIC_BASE_URL replaces the default base_url with /v1 appended, as the Anthropic SDKs do", async () => {
    await sandbox.writeUserConfig('[provider]\nkind = "anthropic"\n');
    const origins = new Map<string, string>();
    const config = await loadConfig({
      workspace: sandbox.workspace,
      home: sandbox.home,
      homeExplicit: true,
      env: sandbox.env({ ANTHROPIC_BASE_URL: "https://gateway.example/api/anthropic/" }),
      overrides: {},
      origins,
    });
    expect(config.provider.base_url).toBe("https://gateway.example/api/anthropic/v1");
    expect(origins.get("provider.base_url")).toBe("env ANTHROPIC_BASE_URL");
  });

  it("ANTHROPIC_BASE_URL leaves OpenAI profiles alone, and OPENAI_BASE_URL leaves Anthropic ones alone", async () => {
    const env = { ANTHROPIC_BASE_URL: "https://a.example", OPENAI_BASE_URL: "https://o.example/v1" };
    const openai = await load(sandbox, { env });
    expect(openai.provider.base_url).toBe("https://o.example/v1");
    await sandbox.writeUserConfig('[provider]\nkind = "anthropic"\n');
    const anthropic = await load(sandbox, { env });
    expect(anthropic.provider.base_url).toBe("https://a.example/v1");
  });

  it("a base_url in the file and SCV_BASE_URL win over ANTHROPIC_BASE_URL", async () => {
    await sandbox.writeUserConfig('[provider]\nkind = "anthropic"\nbase_url = "https://file.example/v1"\n');
    const env = { ANTHROPIC_BASE_URL: "https://a.example" };
    expect((await load(sandbox, { env })).provider.base_url).toBe("https://file.example/v1");
    const flagged = await load(sandbox, { env: { ...env, SCV_BASE_URL: "https://scv.example/v1" } });
    expect(flagged.provider.base_url).toBe("https://scv.example/v1");
  });
});
