import { DEFAULT_SANDBOX_MODE } from "../policy/index.ts";
import type { ProviderProfile, ResolvedConfig } from "./types.ts";

export const DEFAULT_SYSTEM_PROMPT =
  "You are SCV, a concise and careful coding agent. Use tools to inspect, change, and verify the workspace.";

/** The defaults of one `[mcp_servers.<name>]` (Codex's). */
export const MCP_SERVER_DEFAULTS = {
  args: [] as string[],
  env: {} as Record<string, string>,
  http_headers: {} as Record<string, string>,
  enabled: true,
  startup_timeout_sec: 10,
  tool_timeout_sec: 60,
  disabled_tools: [] as string[],
};

/** A hook's time limit when `timeout_sec` is not set (Claude Code's). */
export const HOOK_TIMEOUT_DEFAULT_SEC = 60;
/**
 * The defaults a profile with `kind = "anthropic"` starts from instead of the OpenAI ones: the Messages wire at
 * Anthropic's API, the key in ANTHROPIC_API_KEY (sent as `x-api-key` with `anthropic-version`, by the wire).
 */
export const ANTHROPIC_PROFILE_DEFAULTS: Pick<
  ProviderProfile,
  "kind" | "wire_api" | "model" | "base_url" | "api_key_env"
> = {
  kind: "anthropic",
  wire_api: "messages",
  model: "claude-sonnet-4-5",
  base_url: "https://api.anthropic.com/v1",
  api_key_env: "ANTHROPIC_API_KEY",
};

/** Layer 1 of spec §7.1. `skillsUserDir` is the resolved default of `skills.user_dir`. */
export function defaultConfig(skillsUserDir: string): ResolvedConfig {
  return {
    provider: {
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
    },
    agent: { max_steps: 128, system_prompt: DEFAULT_SYSTEM_PROMPT },
    session: { max_history_bytes: 16777216, max_messages: 10000 },
    sessions: { persist: true, keep_count: 0, keep_days: 0 },
    context: {
      max_tokens: 128000,
      reserve_output_tokens: 8192,
      safety_margin_tokens: 2048,
      bytes_per_token: 3,
      summary_max_chars: 6000,
    },
    compaction: { auto_percent: 85, keep_turns: 2, summary_max_chars: 24000 },
    snapshots: { enabled: true, max_file_bytes: 10485760, max_files: 50000 },
    model_prices: {},
    tools: {
      approval_policy: "on-risk",
      command_timeout_seconds: 600,
      max_timeout_seconds: 14400,
      output_limit_bytes: 65536,
      max_read_bytes: 262144,
      max_write_bytes: 1048576,
      search_timeout_seconds: 30,
      code_mode: true,
      login_shell: false,
      env_passthrough: [],
    },
    sandbox_mode: DEFAULT_SANDBOX_MODE,
    sandbox_workspace_write: { writable_roots: [], network_access: false },
    permissions: { allow: [], ask: [], deny: [] },
    permission_rules: [],
    protocol: { max_client_frame_bytes: 1048576, max_server_frame_bytes: 8388608 },
    tui: {
      max_transcript_bytes: 8388608,
      max_transcript_items: 10000,
      max_prompt_history_bytes: 1048576,
      max_prompt_history_items: 200,
    },
    provider_limits: {
      max_sse_event_bytes: 1048576,
      max_response_bytes: 67108864,
      max_assistant_bytes: 1048576,
      max_tool_calls: 32,
      max_tool_arguments_bytes: 262144,
      max_retries: 2,
    },
    skills: {
      user_dir: skillsUserDir,
      project_dir: ".scv/skills",
      scan_projects: true,
      max_skills: 128,
      max_skill_bytes: 262144,
    },
    web: {
      enabled: true,
      fetch_max_bytes: 2097152,
      fetch_timeout_seconds: 30,
      max_redirects: 5,
      auto_approve_domains: [
        "docs.rs",
        "crates.io",
        "doc.rust-lang.org",
        "docs.python.org",
        "pypi.org",
        "developer.mozilla.org",
      ],
      allow_private_addresses: false,
      search: "off",
      brave_url: "https://api.search.brave.com/res/v1/web/search",
      brave_api_key_env: "BRAVE_SEARCH_API_KEY",
      max_search_results: 8,
    },
    mcp_servers: {},
    project_doc_max_bytes: 32768,
    project_doc_fallback_filenames: [],
    hooks: [],
    projects: {},
    secrets: { home: "", config_files: [], env_names: [], values: [] },
  };
}
