// Every exact message of spec §7 (and the credential message of §6.2), each triggered by the
// matching bad input in real files under a temp home and workspace.
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { resolveCredential } from "../../lib/config/index.ts";
import { type ConfigSandbox, createConfigSandbox, writeConfigFile } from "../support/config_files.ts";
import { expectConfigError, expectConfigErrorPrefix, load, type LoadOptions } from "./helpers.ts";

interface Case {
  name?: string;
  user?: string;
  userMode?: number;
  project?: string;
  explicit?: string;
  explicitMode?: number;
  options?: LoadOptions;
  setup?: (sandbox: ConfigSandbox) => Promise<void>;
  message: string | ((sandbox: ConfigSandbox) => string);
  prefix?: boolean;
}

let sandbox: ConfigSandbox;
beforeEach(async () => {
  sandbox = await createConfigSandbox();
});
afterEach(async () => {
  await sandbox.cleanup();
});

async function run(testCase: Case): Promise<void> {
  if (testCase.user !== undefined) await sandbox.writeUserConfig(testCase.user, testCase.userMode);
  if (testCase.project !== undefined) await sandbox.writeProjectConfig(testCase.project);
  let explicitConfigPath = testCase.options?.explicitConfigPath;
  if (testCase.explicit !== undefined) {
    explicitConfigPath = await sandbox.writeExplicitConfig(testCase.explicit, testCase.explicitMode);
  }
  await testCase.setup?.(sandbox);
  const message = typeof testCase.message === "function" ? testCase.message(sandbox) : testCase.message;
  const work = load(sandbox, { ...testCase.options, explicitConfigPath });
  if (testCase.prefix) await expectConfigErrorPrefix(work, message);
  else await expectConfigError(work, message);
}

const userPath = (s: ConfigSandbox) => join(s.home, "config.toml");
const explicitPath = (s: ConfigSandbox) => join(s.root, "explicit.toml");
const projectPath = (s: ConfigSandbox) => join(s.workspace, ".scv", "config.toml");

describe("§7.1 file messages", () => {
  const cases: Case[] = [
    {
      name: "user file 0644",
      user: "",
      userMode: 0o644,
      message: (s) => `user configuration is readable by group or others; run chmod 600 ${userPath(s)}`,
    },
    {
      name: "user file 0640",
      user: "",
      userMode: 0o640,
      message: (s) => `user configuration is readable by group or others; run chmod 600 ${userPath(s)}`,
    },
    {
      name: "user file 0602",
      user: "",
      userMode: 0o602,
      message: (s) => `user configuration is readable by group or others; run chmod 600 ${userPath(s)}`,
    },
    {
      name: "explicit file 0644",
      explicit: "",
      explicitMode: 0o644,
      message: (s) => `explicit configuration is readable by group or others; run chmod 600 ${explicitPath(s)}`,
    },
    {
      name: "explicit file 0660",
      explicit: "",
      explicitMode: 0o660,
      message: (s) => `explicit configuration is readable by group or others; run chmod 600 ${explicitPath(s)}`,
    },
    {
      name: "user file over 1 MiB",
      user: `# ${"x".repeat(1024 * 1024)}\n`,
      message: (s) => `configuration ${userPath(s)} exceeds 1 MiB`,
    },
    {
      name: "explicit file over 1 MiB",
      explicit: `# ${"x".repeat(1024 * 1024)}\n`,
      message: (s) => `configuration ${explicitPath(s)} exceeds 1 MiB`,
    },
    {
      name: "project file over 1 MiB",
      project: `# ${"x".repeat(1024 * 1024)}\n`,
      message: (s) => `configuration ${projectPath(s)} exceeds 1 MiB`,
    },
    {
      name: "missing explicit file",
      options: { explicitConfigPath: "/nonexistent/scv/explicit.toml" },
      message: "read configuration /nonexistent/scv/explicit.toml",
      prefix: true,
    },
    {
      name: "missing SCV_CONFIG file",
      options: { env: { SCV_CONFIG: "/nonexistent/scv/env.toml" } },
      message: "read configuration /nonexistent/scv/env.toml",
      prefix: true,
    },
    {
      name: "TOML syntax error (user)",
      user: "[agent]\nmax_steps = = 3\n",
      message: (s) => `parse configuration ${userPath(s)}`,
      prefix: true,
    },
    {
      name: "TOML syntax error (explicit)",
      explicit: "[agent\n",
      message: (s) => `parse configuration ${explicitPath(s)}`,
      prefix: true,
    },
    {
      name: "TOML syntax error (project)",
      project: "a = \n",
      message: (s) => `parse configuration ${projectPath(s)}`,
      prefix: true,
    },
    {
      name: "invalid UTF-8",
      setup: async (s) => {
        await writeConfigFile(join(s.home, "config.toml"), new Uint8Array([0x23, 0x20, 0xff, 0xfe, 0x0a]));
      },
      message: (s) => `parse configuration ${userPath(s)}`,
      prefix: true,
    },
    {
      name: "unknown top-level key",
      user: "colour = 1\n",
      message: (s) => `parse configuration ${userPath(s)}: unknown key colour`,
    },
    {
      name: "unknown table",
      user: "[telemetry]\nx = 1\n",
      message: (s) => `parse configuration ${userPath(s)}: unknown key telemetry`,
    },
    {
      name: "unknown nested key",
      user: "[tools]\nmax_reads = 3\n",
      message: (s) => `parse configuration ${userPath(s)}: unknown key tools.max_reads`,
    },
    {
      name: "unknown profile key",
      user: '[providers.fake]\nmodle = "x"\n',
      message: (s) => `parse configuration ${userPath(s)}: unknown key providers.fake.modle; did you mean model?`,
    },
    {
      name: "unknown key in the project file",
      project: "[web]\nturbo = true\n",
      message: (s) => `parse configuration ${projectPath(s)}: unknown key web.turbo`,
    },
    {
      name: "unknown key in the explicit file",
      explicit: "[context]\nmax_token = 3\n",
      message: (s) => `parse configuration ${explicitPath(s)}: unknown key context.max_token; did you mean max_tokens?`,
    },
    {
      name: "string for a count",
      user: '[agent]\nmax_steps = "many"\n',
      message: (s) => `parse configuration ${userPath(s)}: invalid value for agent.max_steps`,
    },
    {
      name: "float for a count",
      user: "[agent]\nmax_steps = 1.5\n",
      message: (s) => `parse configuration ${userPath(s)}: invalid value for agent.max_steps`,
    },
    {
      name: "negative count",
      user: "[session]\nmax_messages = -1\n",
      message: (s) => `parse configuration ${userPath(s)}: invalid value for session.max_messages`,
    },
    {
      name: "bad policy",
      user: '[tools]\napproval_policy = "sometimes"\n',
      message: (s) =>
        `parse configuration ${
          userPath(s)
        }: invalid value for tools.approval_policy (expected one of: on-risk, accept-edits, auto, plan, always, never)`,
    },
    {
      name: "bad search",
      user: '[web]\nsearch = "bing"\n',
      message: (s) =>
        `parse configuration ${
          userPath(s)
        }: invalid value for web.search (expected one of: off, provider, searxng, brave)`,
    },
    {
      name: "string for a bool",
      user: '[web]\nenabled = "yes"\n',
      message: (s) => `parse configuration ${userPath(s)}: invalid value for web.enabled`,
    },
    {
      name: "string for an array",
      user: '[web]\nauto_approve_domains = "docs.rs"\n',
      message: (s) => `parse configuration ${userPath(s)}: invalid value for web.auto_approve_domains`,
    },
    {
      name: "non-string header",
      user: "[provider.headers]\nX-Trace = 1\n",
      message: (s) => `parse configuration ${userPath(s)}: invalid value for provider.headers.X-Trace`,
    },
    {
      name: "string for agent.prefer",
      user: '[agent]\nprefer = "codex"\n',
      message: (s) => `parse configuration ${userPath(s)}: invalid value for agent.prefer`,
    },
    {
      name: "scalar for a table",
      user: "tools = 3\n",
      message: (s) => `parse configuration ${userPath(s)}: invalid value for tools`,
    },
    {
      name: "negative seconds",
      user: "[provider]\nstream_idle_timeout_seconds = -0.5\n",
      message: (s) => `parse configuration ${userPath(s)}: invalid value for provider.stream_idle_timeout_seconds`,
    },
    {
      name: "a string for seconds",
      user: '[provider]\nstream_idle_timeout_seconds = "5"\n',
      message: (s) => `parse configuration ${userPath(s)}: invalid value for provider.stream_idle_timeout_seconds`,
    },
    {
      name: "bad type in a named profile",
      explicit: "[providers.local]\ntimeout_seconds = true\n",
      message: (s) => `parse configuration ${explicitPath(s)}: invalid value for providers.local.timeout_seconds`,
    },
  ];
  for (const testCase of cases) it(testCase.name ?? String(testCase.message), () => run(testCase));

  it("explicit path is a directory", async () => {
    const path = join(sandbox.root, "dir.toml");
    await mkdir(path);
    await expectConfigError(load(sandbox, { explicitConfigPath: path }), `read configuration ${path}: is a directory`);
  });
});

describe("§7.2 provider messages", () => {
  const cases: Case[] = [
    {
      name: "--provider names a missing profile",
      options: { overrides: { provider: "nope" } },
      message: 'active provider profile "nope" was not found',
    },
    {
      name: "SCV_PROVIDER names a missing profile",
      options: { env: { SCV_PROVIDER: "gone" } },
      message: 'active provider profile "gone" was not found',
    },
    {
      name: "provider_active names a missing profile",
      user: 'provider_active = "x"\n',
      message: 'active provider profile "x" was not found',
    },
    {
      name: "provider.active names a missing profile",
      user: '[provider]\nactive = "y"\n',
      message: 'active provider profile "y" was not found',
    },
    {
      name: "bad kind",
      user: '[provider]\nkind = "claude"\n',
      message: 'provider.kind must be "openai-compatible" or "anthropic"',
    },
    {
      name: "bad kind in a profile",
      user: '[provider]\nactive = "p"\n[providers.p]\nkind = "x"\n',
      message: 'provider.kind must be "openai-compatible" or "anthropic"',
    },
    {
      name: "bad wire_api",
      user: '[provider]\nwire_api = "completions"\n',
      message: 'provider.wire_api must be "responses" or "chat" (or "messages" with provider.kind = "anthropic")',
    },
    {
      name: "the Messages wire without the anthropic kind",
      user: '[provider]\nwire_api = "messages"\n',
      message: 'provider.wire_api = "messages" needs provider.kind = "anthropic"',
    },
    {
      name: "the anthropic kind on an OpenAI wire",
      user: '[provider]\nkind = "anthropic"\nwire_api = "chat"\n',
      message: 'provider.kind = "anthropic" speaks wire_api = "messages" only',
    },
    {
      name: "a thinking budget under the API's floor",
      user: '[provider]\nkind = "anthropic"\nthinking_budget_tokens = 512\n',
      message: "provider.thinking_budget_tokens must be at least 1024",
    },
    {
      name: "a thinking budget that leaves no room for the answer",
      user: '[provider]\nkind = "anthropic"\nmax_output_tokens = 4096\nthinking_budget_tokens = 4096\n',
      message:
        "provider.thinking_budget_tokens must be below provider.max_output_tokens (the budget is part of the output)",
    },
    {
      name: "no output tokens",
      user: '[provider]\nkind = "anthropic"\nmax_output_tokens = 0\n',
      message: "provider.max_output_tokens must be positive",
    },
    {
      name: "blank model",
      user: '[provider]\nmodel = "  "\n',
      message: "provider model and base_url must be non-empty; configure api_key or api_key_env",
    },
    {
      name: "empty model",
      user: '[provider]\nmodel = ""\n',
      message: "provider model and base_url must be non-empty; configure api_key or api_key_env",
    },
    {
      name: "empty base_url",
      user: '[provider]\nbase_url = ""\n',
      message: "provider model and base_url must be non-empty; configure api_key or api_key_env",
    },
    {
      name: "no api_key and empty api_key_env",
      user: '[provider]\napi_key_env = ""\n',
      message: "provider model and base_url must be non-empty; configure api_key or api_key_env",
    },
    {
      name: "empty model override",
      options: { overrides: { model: "" } },
      message: "provider model and base_url must be non-empty; configure api_key or api_key_env",
    },
  ];
  for (const testCase of cases) it(testCase.name ?? String(testCase.message), () => run(testCase));

  it("missing credential", async () => {
    const config = await load(sandbox);
    expect(() => resolveCredential(config, {})).toThrow(
      "provider credential is not configured; set provider.api_key or provider.api_key_env (set OPENAI_API_KEY, or configure a provider in ~/.scv/config.toml; see docs/configuration.md)",
    );
    let message = "";
    try {
      resolveCredential(config, { OPENAI_API_KEY: "" });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toBe(
      "provider credential is not configured; set provider.api_key or provider.api_key_env (set OPENAI_API_KEY, or configure a provider in ~/.scv/config.toml; see docs/configuration.md)",
    );
  });
});

describe("§7.2 validation messages", () => {
  const positiveKeys: Array<[string, string]> = [
    ["provider", "timeout_seconds"],
    ["agent", "max_steps"],
    ["session", "max_history_bytes"],
    ["session", "max_messages"],
    ["context", "max_tokens"],
    ["context", "bytes_per_token"],
    ["context", "summary_max_chars"],
    ["tools", "command_timeout_seconds"],
    ["tools", "max_timeout_seconds"],
    ["tools", "output_limit_bytes"],
    ["tools", "max_read_bytes"],
    ["tools", "max_write_bytes"],
    ["protocol", "max_client_frame_bytes"],
    ["protocol", "max_server_frame_bytes"],
    ["tui", "max_transcript_bytes"],
    ["tui", "max_transcript_items"],
    ["tui", "max_prompt_history_bytes"],
    ["tui", "max_prompt_history_items"],
    ["provider_limits", "max_sse_event_bytes"],
    ["provider_limits", "max_response_bytes"],
    ["provider_limits", "max_assistant_bytes"],
    ["provider_limits", "max_tool_calls"],
    ["provider_limits", "max_tool_arguments_bytes"],
    ["skills", "max_skills"],
    ["skills", "max_skill_bytes"],
    ["web", "fetch_max_bytes"],
    ["web", "fetch_timeout_seconds"],
    ["web", "max_search_results"],
    ["provider", "stream_idle_timeout_seconds"],
  ];
  for (const [table, key] of positiveKeys) {
    it(`${table}.${key} = 0`, () =>
      run({ user: `[${table}]\n${key} = 0\n`, message: `${table}.${key} must be positive` }));
  }

  const smallLimits =
    "[provider_limits]\nmax_assistant_bytes = 1\nmax_tool_arguments_bytes = 1\n[tools]\noutput_limit_bytes = 1\nmax_read_bytes = 1\n[skills]\nmax_skill_bytes = 1\n";
  const frameMessage = "tool or skill limits can exceed protocol.max_server_frame_bytes after JSON escaping";
  const cases: Case[] = [
    {
      name: "command timeout over max",
      user: "[tools]\ncommand_timeout_seconds = 101\nmax_timeout_seconds = 100\n",
      message: "tools.command_timeout_seconds exceeds tools.max_timeout_seconds",
    },
    {
      name: "fetch timeout over max",
      user: "[tools]\ncommand_timeout_seconds = 10\nmax_timeout_seconds = 20\n[web]\nfetch_timeout_seconds = 21\n",
      message: "web.fetch_timeout_seconds exceeds tools.max_timeout_seconds",
    },
    {
      name: "max timeout over a day",
      user: "[tools]\nmax_timeout_seconds = 86401\n",
      message: "tools.max_timeout_seconds must be at most 86400",
    },
    {
      name: "reserves consume max_tokens",
      user: "[context]\nmax_tokens = 10240\nreserve_output_tokens = 8192\nsafety_margin_tokens = 2048\n",
      message: "context reserve and safety margin consume max_tokens: context.reserve_output_tokens (8192) + " +
        "context.safety_margin_tokens (2048) leave nothing of context.max_tokens (10240); for a window this small " +
        "set reserve_output_tokens = 2560 and safety_margin_tokens = 320 in [context], or raise max_tokens above " +
        "10240 if the model's window is larger",
    },
    {
      name: "assistant limit vs frame",
      user: "[provider_limits]\nmax_assistant_bytes = 1387179\n",
      message: "provider_limits.max_assistant_bytes can exceed protocol.max_server_frame_bytes after JSON escaping",
    },
    { name: "output limit vs frame", user: "[tools]\noutput_limit_bytes = 693590\n", message: frameMessage },
    { name: "read limit vs frame", user: "[tools]\nmax_read_bytes = 693590\n", message: frameMessage },
    { name: "skill limit vs frame", user: "[skills]\nmax_skill_bytes = 1387179\n", message: frameMessage },
    {
      name: "argument limit vs frame",
      user: "[provider_limits]\nmax_tool_arguments_bytes = 1387179\n",
      message: frameMessage,
    },
    {
      name: "argument limit vs response",
      user: "[provider_limits]\nmax_tool_arguments_bytes = 200\nmax_response_bytes = 100\nmax_sse_event_bytes = 50\n",
      message: "tool argument limit exceeds provider response limit",
    },
    {
      name: "SSE limit vs response",
      user: "[provider_limits]\nmax_response_bytes = 100\nmax_tool_arguments_bytes = 50\nmax_sse_event_bytes = 101\n",
      message: "provider SSE event limit exceeds provider response limit",
    },
    {
      name: "max_retries over 10",
      user: "[provider_limits]\nmax_retries = 11\n",
      message: "provider_limits.max_retries must be at most 10",
    },
    {
      name: "client frame under 4096",
      user: "[protocol]\nmax_client_frame_bytes = 4095\n",
      message: "protocol.max_client_frame_bytes must be at least 4096",
    },
    {
      name: "server frame under 65536",
      user: `${smallLimits}[protocol]\nmax_server_frame_bytes = 65535\n`,
      message: "protocol.max_server_frame_bytes must be at least 65536",
    },
    {
      name: "project_dir with ..",
      user: '[skills]\nproject_dir = "../skills"\n',
      message: "skills.project_dir must be a contained relative path",
    },
    {
      name: "absolute project_dir",
      user: '[skills]\nproject_dir = "/etc/skills"\n',
      message: "skills.project_dir must be a contained relative path",
    },
    {
      name: "inner .. in project_dir",
      user: '[skills]\nproject_dir = "a/../../b"\n',
      message: "skills.project_dir must be a contained relative path",
    },
    {
      name: "fetch_max_bytes over 64 MiB",
      user: "[web]\nfetch_max_bytes = 67108865\n",
      message: "web.fetch_max_bytes must be at most 67108864",
    },
    {
      name: "max_redirects over 10",
      user: "[web]\nmax_redirects = 11\n",
      message: "web.max_redirects must be at most 10",
    },
    {
      name: "max_search_results over 20",
      user: "[web]\nmax_search_results = 21\n",
      message: "web.max_search_results must be at most 20",
    },
    {
      name: "257 auto-approved hosts",
      user: `[web]\nauto_approve_domains = [${
        Array.from({ length: 257 }, (_, i) => `"h${i}.example.com"`).join(",")
      }]\n`,
      message: "web.auto_approve_domains may list at most 256 hosts",
    },
    ...[
      "-bad.example",
      "bad-.example",
      "a..b",
      "https://docs.rs",
      "docs.rs/path",
      "*",
      "*.",
      "**.x.org",
      "x.*.org",
      "under_score.org",
      "",
      `${"a".repeat(64)}.org`,
      `${"a.".repeat(127)}ab`,
    ].map(
      (entry): Case => ({
        name: `bad host pattern ${JSON.stringify(entry.slice(0, 20))}`,
        user: `[web]\nauto_approve_domains = [${JSON.stringify(entry)}]\n`,
        message: `web.auto_approve_domains entry "${entry}" must be a host name such as docs.rs or *.example.com`,
      }),
    ),
    {
      name: "brave_url not http",
      user: '[web]\nbrave_url = "ftp://search.example"\n',
      message: "web.brave_url must be an http or https URL",
    },
    {
      name: "brave_url not a URL",
      user: '[web]\nbrave_url = "search"\n',
      message: "web.brave_url must be an http or https URL",
    },
    {
      name: "searxng without URL",
      user: '[web]\nsearch = "searxng"\n',
      message: 'web.search = "searxng" requires web.searxng_url (an http or https URL)',
    },
    {
      name: "searxng with a bad URL",
      user: '[web]\nsearch = "searxng"\nsearxng_url = "file:///x"\n',
      message: 'web.search = "searxng" requires web.searxng_url (an http or https URL)',
    },
    {
      name: "brave without a key",
      user: '[web]\nsearch = "brave"\nbrave_api_key_env = ""\n',
      message: 'web.search = "brave" requires web.brave_api_key or web.brave_api_key_env',
    },
  ];
  for (const testCase of cases) it(testCase.name ?? String(testCase.message), () => run(testCase));
});

describe("§7.3 project messages", () => {
  const providerHint = ": the provider is chosen only in the user file (~/.scv/config.toml, or " +
    "$SCV_HOME/config.toml), a --config-path file or the environment (SCV_PROVIDER, SCV_MODEL, SCV_BASE_URL); move " +
    "it there or remove it";
  // Forbidden tables name the file (issue 27); the provider's say where it may be set instead.
  const tables: Array<[string, string]> = [
    ['[provider]\nmodel = "evil"\n', `cannot set [provider]${providerHint}`],
    ['[providers.evil]\nmodel = "x"\n', `cannot set [providers]${providerHint}`],
    ['provider_active = "evil"\n', `cannot set [provider_active]${providerHint}`],
    ["[agents.helper]\nx = 1\n", "cannot set [agents]"],
    ['[update]\nchannel = "beta"\n', "cannot set [update]"],
    ["[channels.slack]\nx = 1\n", "cannot set [channels]"],
  ];
  for (const [project, rest] of tables) {
    it(`project configuration <file> ${rest.split(":")[0]}`, () =>
      run({ project, message: (s) => `project configuration ${projectPath(s)} ${rest}` }));
  }
  const forbidden: Array<[string, string]> = [
    ['[skills]\nuser_dir = "/tmp/skills"\n', "project configuration cannot set skills.user_dir"],
    ['[agent]\nsystem_prompt = "obey"\n', "project configuration cannot replace agent.system_prompt"],
    ['[agent]\nprefer = ["x"]\n', "project configuration cannot set agent.prefer"],
    ['[web]\nauto_approve_domains = ["evil.example"]\n', "project configuration cannot set web.auto_approve_domains"],
    ["[web]\nallow_private_addresses = true\n", "project configuration cannot set web.allow_private_addresses"],
    ['[web]\nsearxng_url = "http://evil.example"\n', "project configuration cannot set web.searxng_url"],
    ['[web]\nbrave_url = "http://evil.example"\n', "project configuration cannot set web.brave_url"],
    ['[web]\nbrave_api_key = "k"\n', "project configuration cannot set web.brave_api_key"],
    ['[web]\nbrave_api_key_env = "HOME"\n', "project configuration cannot set web.brave_api_key_env"],
  ];
  for (const [project, message] of forbidden) {
    it(message, () => run({ project, message }));
  }

  const raisable: Array<[string, string, number]> = [
    ["agent", "max_steps", 129],
    ["session", "max_history_bytes", 16777217],
    ["session", "max_messages", 10001],
    ["context", "max_tokens", 128001],
    ["context", "summary_max_chars", 6001],
    ["tools", "command_timeout_seconds", 601],
    ["tools", "max_timeout_seconds", 14401],
    ["tools", "output_limit_bytes", 65537],
    ["tools", "max_read_bytes", 262145],
    ["tools", "max_write_bytes", 1048577],
    ["protocol", "max_client_frame_bytes", 1048577],
    ["protocol", "max_server_frame_bytes", 8388609],
    ["tui", "max_transcript_bytes", 8388609],
    ["tui", "max_transcript_items", 10001],
    ["tui", "max_prompt_history_bytes", 1048577],
    ["tui", "max_prompt_history_items", 201],
    ["provider_limits", "max_sse_event_bytes", 1048577],
    ["provider_limits", "max_response_bytes", 67108865],
    ["provider_limits", "max_assistant_bytes", 1048577],
    ["provider_limits", "max_tool_calls", 33],
    ["provider_limits", "max_tool_arguments_bytes", 262145],
    ["provider_limits", "max_retries", 3],
    ["skills", "max_skills", 129],
    ["skills", "max_skill_bytes", 262145],
    ["web", "fetch_max_bytes", 2097153],
    ["web", "fetch_timeout_seconds", 31],
    ["web", "max_redirects", 6],
    ["web", "max_search_results", 9],
  ];
  for (const [table, key, value] of raisable) {
    it(`cannot raise ${table}.${key}`, () =>
      run({
        project: `[${table}]\n${key} = ${value}\n`,
        message: `project configuration cannot raise ${table}.${key}`,
      }));
  }

  const cases: Case[] = [
    {
      name: "lower the output reserve",
      project: "[context]\nreserve_output_tokens = 8191\n",
      message: "project configuration cannot lower context reserves",
    },
    {
      name: "lower the safety margin",
      project: "[context]\nsafety_margin_tokens = 0\n",
      message: "project configuration cannot lower context reserves",
    },
    {
      name: "raise bytes_per_token",
      project: "[context]\nbytes_per_token = 4\n",
      message: "project configuration cannot raise context.bytes_per_token",
    },
    {
      name: "weaken always to on-risk",
      user: '[tools]\napproval_policy = "always"\n',
      project: '[tools]\napproval_policy = "on-risk"\n',
      message: "project configuration cannot weaken tools.approval_policy",
    },
    {
      name: "weaken never to always",
      user: '[tools]\napproval_policy = "never"\n',
      project: '[tools]\napproval_policy = "always"\n',
      message: "project configuration cannot weaken tools.approval_policy",
    },
    {
      name: "enable scan_projects",
      user: "[skills]\nscan_projects = false\n",
      project: "[skills]\nscan_projects = true\n",
      message: "project configuration cannot enable skills.scan_projects",
    },
    {
      name: "enable web",
      user: "[web]\nenabled = false\n",
      project: "[web]\nenabled = true\n",
      message: "project configuration cannot enable web",
    },
    {
      name: "turn search on",
      project: '[web]\nsearch = "provider"\n',
      message: "project configuration can only turn web.search off",
    },
    {
      name: "switch search backend",
      user: '[web]\nsearch = "provider"\n',
      project: '[web]\nsearch = "brave"\n',
      message: "project configuration can only turn web.search off",
    },
    {
      name: "enable code_mode",
      user: "[tools]\ncode_mode = false\n",
      project: "[tools]\ncode_mode = true\n",
      message: "project configuration cannot enable tools.code_mode",
    },
    {
      name: "raise over the user layer",
      user: "[agent]\nmax_steps = 50\n",
      project: "[agent]\nmax_steps = 60\n",
      message: "project configuration cannot raise agent.max_steps",
    },
    {
      name: "project file escapes the workspace",
      setup: async (s) => {
        const outside = join(s.root, "outside");
        await mkdir(outside);
        await writeFile(join(outside, "config.toml"), "[agent]\nmax_steps = 3\n");
        await symlink(outside, join(s.workspace, ".scv"));
      },
      message: "project configuration escaped workspace",
    },
    {
      name: "project config.toml is a symlink out of the workspace",
      setup: async (s) => {
        await mkdir(join(s.workspace, ".scv"));
        await writeFile(join(s.root, "elsewhere.toml"), "");
        await symlink(join(s.root, "elsewhere.toml"), join(s.workspace, ".scv", "config.toml"));
      },
      message: "project configuration escaped workspace",
    },
  ];
  for (const testCase of cases) it(testCase.name ?? String(testCase.message), () => run(testCase));
});
