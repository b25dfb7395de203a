// The resolved configuration: the TOML tables of spec §7.2 with the same snake_case keys,
// every default filled in. Optional keys are absent (never null) when unset.

import type { ApprovalMode, RuleEntry, SandboxMode } from "../policy/index.ts";

/** The approval mode (`tools.approval_policy`); lib/policy/modes.ts holds the one list. */
export type ApprovalPolicy = ApprovalMode;
export type WireApi = "responses" | "chat" | "messages";
/** `openai-compatible` speaks the Responses or Chat Completions wire; `anthropic` speaks the Messages wire. */
export type ProviderKind = "openai-compatible" | "anthropic";
export type WebSearchBackend = "off" | "provider" | "searxng" | "brave";

/** One provider profile: `[provider]` or the selected `[providers.<name>]`, defaults filled in. */
export interface ProviderProfile {
  kind: ProviderKind;
  wire_api: WireApi;
  model: string;
  base_url: string;
  api_key?: string;
  api_key_env: string;
  timeout_seconds: number;
  /**
   * A stream that sends nothing for this long is cut and retried like a dropped connection (the defaults layer sets
   * it; a profile built without it has no idle limit).
   */
  stream_idle_timeout_seconds?: number;
  headers: Record<string, string>;
  reasoning_effort?: string;
  image_input: boolean;
  /**
   * Which file-editing tools this profile's model gets: `auto` (apply_patch and edit on the Responses wire, edit
   * on chat), `edit`, `apply_patch` or `both`.
   */
  edit_tools?: EditTools;
  /** Messages wire: `max_tokens` of each request; unset means a default for the model (lib/provider/claude_models.ts). */
  max_output_tokens?: number;
  /** Messages wire: extended thinking with this budget (at least 1024, below `max_output_tokens`); unset is off. */
  thinking_budget_tokens?: number;
}

/** `[sessions]`: persistence and pruning of session journals (docs/sessions.md). 0 keeps everything. */
export interface SessionsConfig {
  persist: boolean;
  keep_count: number;
  keep_days: number;
}

export type EditTools = "auto" | "edit" | "apply_patch" | "both";

export interface AgentConfig {
  max_steps: number;
  system_prompt: string;
  /** Sub-agents nest while a session's depth is below it (upstream's default 2 when unset). */
  max_delegation_depth?: number;
}

export interface SessionConfig {
  max_history_bytes: number;
  max_messages: number;
  /** The session's budget in USD: a turn stops (`budget_exceeded`) once the session has spent more. Unset: none. */
  max_cost_usd?: number;
}

/** `[compaction]`: when and how the model summarises a long conversation (docs/sessions.md#compaction). */
export interface CompactionConfig {
  /** Compact once the context in use passes this percentage of the window; 0 turns automatic compaction off. */
  auto_percent: number;
  /** How many of the newest turns (each a user message and what followed it) stay word for word. */
  keep_turns: number;
  /** The longest summary kept, in characters. */
  summary_max_chars: number;
}

/** `[snapshots]`: the workspace checkpoints undo and rewind restore from (docs/sessions.md#undo-and-rewind). */
export interface SnapshotsConfig {
  enabled: boolean;
  /** Files larger than this are left out of snapshots, so undo never touches them. */
  max_file_bytes: number;
  /** A workspace with more files to snapshot than this (outside .gitignore) is not snapshotted at all. */
  max_files: number;
}

/** One `[model_prices."<model>"]`: USD per million tokens. */
export interface ModelPrice {
  input: number;
  /** Default: `input`. */
  cached_input: number;
  output: number;
  /** Input written to the provider's prompt cache; default: `input`. */
  cache_write?: number;
}

export interface ContextConfig {
  max_tokens: number;
  reserve_output_tokens: number;
  safety_margin_tokens: number;
  bytes_per_token: number;
  summary_max_chars: number;
}

export interface ToolsConfig {
  approval_policy: ApprovalPolicy;
  command_timeout_seconds: number;
  max_timeout_seconds: number;
  output_limit_bytes: number;
  max_read_bytes: number;
  max_write_bytes: number;
  /** A `grep` whose regular expression works this long on one batch of files without an answer fails. */
  search_timeout_seconds: number;
  code_mode: boolean;
  /** Run `bash -lc` (a login shell, the user's profile files on every call) instead of `bash -c`. */
  login_shell: boolean;
  /** Variables scv reads secrets from that tool processes still receive, on the user's purpose. */
  env_passthrough: string[];
}

/**
 * `[permissions]`: rules that allow, ask about or deny tool calls (lib/policy/rule.ts). The lists are those of
 * every layer together; the workspace file may add `ask` and `deny` only.
 */
export interface PermissionsConfig {
  allow: string[];
  ask: string[];
  deny: string[];
}

export interface ProtocolConfig {
  max_client_frame_bytes: number;
  max_server_frame_bytes: number;
}

export interface TuiConfig {
  max_transcript_bytes: number;
  max_transcript_items: number;
  max_prompt_history_bytes: number;
  max_prompt_history_items: number;
}

export interface ProviderLimitsConfig {
  max_sse_event_bytes: number;
  max_response_bytes: number;
  max_assistant_bytes: number;
  max_tool_calls: number;
  max_tool_arguments_bytes: number;
  max_retries: number;
}

export interface SkillsConfig {
  /** Absolute path (a leading `~` is expanded). */
  user_dir: string;
  /** Relative to the workspace, contained (validated). */
  project_dir: string;
  scan_projects: boolean;
  max_skills: number;
  max_skill_bytes: number;
}

export interface WebConfig {
  enabled: boolean;
  fetch_max_bytes: number;
  fetch_timeout_seconds: number;
  max_redirects: number;
  auto_approve_domains: string[];
  allow_private_addresses: boolean;
  search: WebSearchBackend;
  searxng_url?: string;
  brave_url: string;
  brave_api_key?: string;
  brave_api_key_env: string;
  max_search_results: number;
}

/** One `[mcp_servers.<name>]` (Codex's key names), defaults filled in; `command` xor `url` (validated). */
export interface McpServerConfig {
  command?: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  url?: string;
  bearer_token_env_var?: string;
  http_headers: Record<string, string>;
  enabled: boolean;
  startup_timeout_sec: number;
  tool_timeout_sec: number;
  enabled_tools?: string[];
  disabled_tools: string[];
  /** Run a stdio server inside the command sandbox with this mode (lib/confine); unset runs it as is. */
  sandbox?: SandboxMode;
}

/** `[sandbox_workspace_write]` (Codex's names): what `workspace-write` adds to the workspace. */
export interface SandboxWorkspaceWriteConfig {
  /** Further writable folders, absolute (a leading `~` expanded, a relative one resolved against the workspace). */
  writable_roots: string[];
  /** Keep the network inside the sandbox. */
  network_access: boolean;
}

/** The moments a hook can run at (Claude Code's event names). */
export const HOOK_EVENTS = [
  "SessionStart",
  "UserPromptSubmit",
  "PreToolUse",
  "PostToolUse",
  "Stop",
  "SessionEnd",
] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

/** One `[[hooks.<Event>]]`, with the layer it came from (project hooks run only in a trusted folder). */
export interface HookConfig {
  event: HookEvent;
  /**
   * A regular expression on the whole tool name (PreToolUse, PostToolUse), the source (SessionStart: `startup`,
   * `resume`) or the reason (SessionEnd); absent, empty or `*` matches everything. Ignored for the other events.
   */
  matcher?: string;
  /** Run with `/bin/sh -c` in the working folder. */
  command: string;
  timeout_sec: number;
  origin: "user" | "project" | "explicit";
  /** The file that defined it. */
  file: string;
}

/** `[projects."<path>"]` (Codex's key): whether the user trusts a folder with its project hooks. */
export interface ProjectTrust {
  trust_level: "trusted" | "untrusted";
}

/** A configuration file scv read (or would read): its real path and, when it existed, its identity. */
export interface ConfigFileRef {
  path: string;
  dev?: number;
  ino?: number;
}

/**
 * What scv keeps from its own tools. Not a TOML table: loadConfig fills it in from the instance home,
 * the files it read and the environment (defaultConfig leaves it empty).
 */
export interface SecretsConfig {
  /** The instance home as a real path (empty when unknown); refused to every file tool. */
  home: string;
  /** Every configuration file scv reads (user, workspace, explicit); refused to every file tool. */
  config_files: ConfigFileRef[];
  /** Variables scv reads secrets from (each profile's `api_key_env`, the search key variable). */
  env_names: string[];
  /** Every secret value scv knows (configured keys, those variables' values), redacted from tool output. */
  values: string[];
}

export interface ResolvedConfig {
  /** The selected profile, with layers 5 and 6 (environment and flag overrides) applied. */
  provider: ProviderProfile;
  agent: AgentConfig;
  session: SessionConfig;
  sessions: SessionsConfig;
  context: ContextConfig;
  compaction: CompactionConfig;
  snapshots: SnapshotsConfig;
  /** Prices that extend or replace the shipped table (lib/pricing), by model name. */
  model_prices: Record<string, ModelPrice>;
  tools: ToolsConfig;
  protocol: ProtocolConfig;
  tui: TuiConfig;
  provider_limits: ProviderLimitsConfig;
  skills: SkillsConfig;
  web: WebConfig;
  /** What commands may write (lib/confine enforces it): Codex's `sandbox_mode`. */
  sandbox_mode: SandboxMode;
  sandbox_workspace_write: SandboxWorkspaceWriteConfig;
  /**
   * True when no layer or flag set `sandbox_mode`: the default confines commands where a sandbox holds, and where
   * none does commands run as before (an explicit mode makes every command ask instead). Absent means set.
   */
  sandbox_mode_default?: boolean;
  permissions: PermissionsConfig;
  /** Every rule of `permissions` with its list and the file it came from, in the order the layers were read. */
  permission_rules: RuleEntry[];
  /** Only the user file and `--config-path` define these (the project layer may not). */
  mcp_servers: Record<string, McpServerConfig>;
  /** The bound of the project instructions' total (the AGENTS.md files a session starts with), in bytes. */
  project_doc_max_bytes: number;
  /** Names read in a folder that has no AGENTS.md (e.g. `CLAUDE.md`), first found wins; not in the project file. */
  project_doc_fallback_filenames: string[];
  /** Every hook of every layer, in the order the layers were read (user, project, explicit). */
  hooks: HookConfig[];
  /** `[projects."<path>"]` of the user file and `--config-path`, keyed by real path (the project file may not). */
  projects: Record<string, ProjectTrust>;
  secrets: SecretsConfig;
  /**
   * True when no layer set `[context] max_tokens`: the default applies, and the session may learn the model's
   * context window from the server instead (lib/provider/context_window.ts). Absent means set.
   */
  context_max_tokens_default?: boolean;
  /** The `[providers.<name>]` in effect; absent when `[provider]` itself is. */
  provider_name?: string;
}

export interface ConfigOverrides {
  provider?: string;
  model?: string;
  base_url?: string;
  approval_policy?: ApprovalPolicy;
  /** `--max-cost`: the session budget in USD. */
  max_cost_usd?: number;
  /** `--sandbox`. */
  sandbox_mode?: SandboxMode;
}

export interface LoadConfigOptions {
  /** The canonical workspace directory. */
  workspace: string;
  /** The instance home (see resolveHome). */
  home: string;
  /** True when the home came from `--scv-home` or `SCV_HOME`. */
  homeExplicit: boolean;
  /** `--config-path`; when absent, `SCV_CONFIG` from `env` is used. */
  explicitConfigPath?: string;
  env: Record<string, string | undefined>;
  /** Layer 6: CLI flags, then `session.start` fields (already combined by the caller). */
  overrides: ConfigOverrides;
  /**
   * When given, filled with where each dotted key of the layers came from (`user file <path>`,
   * `project file <path>`, `explicit file <path>`, `env SCV_MODEL`, `flag`); keys absent were defaults.
   */
  origins?: Map<string, string>;
}

/** A configuration failure; `message` is the exact spec text sent to the client. */
export class ConfigError extends Error {
  override name = "ConfigError";
}
