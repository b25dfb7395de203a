// Cross-field and range validation of spec §7.2, run on the fully merged configuration.
import { isAbsolute } from "node:path";
import { ConfigError, type ResolvedConfig } from "./types.ts";

const MAX_TIMEOUT_CAP = 86400;
const ESCAPING_SLACK = 65536;

function fail(message: string): never {
  throw new ConfigError(message);
}

/** Throws the first violated rule (profile, positivity, absolute bounds, then cross-field rules). */
export function validateConfig(config: ResolvedConfig): void {
  validateProfile(config);
  validatePositive(config);

  const { tools, web, context, protocol, provider_limits: limits, skills } = config;
  // Absolute bounds first: below 65536 every escaping check below would fail and hide the real cause.
  if (limits.max_retries > 10) fail("provider_limits.max_retries must be at most 10");
  if (protocol.max_client_frame_bytes < 4096) fail("protocol.max_client_frame_bytes must be at least 4096");
  if (protocol.max_server_frame_bytes < 65536) fail("protocol.max_server_frame_bytes must be at least 65536");
  if (tools.command_timeout_seconds > tools.max_timeout_seconds) {
    fail("tools.command_timeout_seconds exceeds tools.max_timeout_seconds");
  }
  if (web.fetch_timeout_seconds > tools.max_timeout_seconds) {
    fail("web.fetch_timeout_seconds exceeds tools.max_timeout_seconds");
  }
  if (tools.max_timeout_seconds > MAX_TIMEOUT_CAP) fail("tools.max_timeout_seconds must be at most 86400");
  if (context.reserve_output_tokens + context.safety_margin_tokens >= context.max_tokens) {
    const { max_tokens: max, reserve_output_tokens: reserve, safety_margin_tokens: margin } = context;
    fail(
      `context reserve and safety margin consume max_tokens: context.reserve_output_tokens (${reserve}) + ` +
        `context.safety_margin_tokens (${margin}) leave nothing of context.max_tokens (${max}); for a window this ` +
        `small set reserve_output_tokens = ${Math.floor(max / 4)} and safety_margin_tokens = ${
          Math.floor(max / 32)
        } in [context], or raise max_tokens above ${reserve + margin} if the model's window is larger`,
    );
  }

  const frame = protocol.max_server_frame_bytes;
  if (limits.max_assistant_bytes * 6 + ESCAPING_SLACK > frame) {
    fail("provider_limits.max_assistant_bytes can exceed protocol.max_server_frame_bytes after JSON escaping");
  }
  if (
    Math.max(tools.output_limit_bytes, tools.max_read_bytes) * 12 + ESCAPING_SLACK > frame ||
    skills.max_skill_bytes * 6 + ESCAPING_SLACK > frame ||
    limits.max_tool_arguments_bytes * 6 + ESCAPING_SLACK > frame
  ) {
    fail("tool or skill limits can exceed protocol.max_server_frame_bytes after JSON escaping");
  }
  if (limits.max_tool_arguments_bytes > limits.max_response_bytes) {
    fail("tool argument limit exceeds provider response limit");
  }
  if (limits.max_sse_event_bytes > limits.max_response_bytes) {
    fail("provider SSE event limit exceeds provider response limit");
  }
  if (!isContainedRelativePath(skills.project_dir)) fail("skills.project_dir must be a contained relative path");
  for (const name of tools.env_passthrough) {
    if (!ENV_NAME.test(name)) fail(`tools.env_passthrough entry "${name}" must be an environment variable name`);
  }

  if (config.compaction.auto_percent > 100) fail("compaction.auto_percent must be at most 100");
  for (const [model, price] of Object.entries(config.model_prices ?? {})) {
    if (!Number.isFinite(price.input) || !Number.isFinite(price.output)) {
      fail(`model_prices."${model}" needs input and output (USD per million tokens)`);
    }
  }
  for (const name of config.project_doc_fallback_filenames) {
    if (name === "" || name === "." || name === ".." || /[/\\\0]/.test(name)) {
      fail(`project_doc_fallback_filenames entry "${name}" must be a file name, not a path`);
    }
  }
  for (const hook of config.hooks) {
    if (hook.timeout_sec > tools.max_timeout_seconds) {
      fail(`a ${hook.event} hook's timeout_sec (${hook.file}) exceeds tools.max_timeout_seconds`);
    }
  }

  validateWeb(config);
  validateMcpServers(config);
}

/**
 * Server names become part of tool names (`mcp__<name>__<tool>`, other characters than `[A-Za-z0-9_-]` sanitised to
 * `_`) and of status lines, so any name but an empty one, an over-long one or one with control characters is fine.
 */
// deno-lint-ignore no-control-regex -- control characters are what the rule refuses
const MCP_SERVER_NAME = /^[^\u0000-\u001f\u007f-\u009f]{1,64}$/u;

function validateMcpServers(config: ResolvedConfig): void {
  for (const [name, server] of Object.entries(config.mcp_servers ?? {})) {
    const key = `mcp_servers.${name}`;
    if (!MCP_SERVER_NAME.test(name)) {
      fail(`mcp_servers.${JSON.stringify(name)}: a server name must be 1 to 64 characters without control characters`);
    }
    const stdio = server.command !== undefined;
    const http = server.url !== undefined;
    if (stdio === http) fail(`${key} needs exactly one of command (stdio) or url (streamable HTTP)`);
    if (stdio) {
      if (isBlank(server.command)) fail(`${key}.command must be non-empty`);
      for (const field of ["bearer_token_env_var", "http_headers"] as const) {
        const value = server[field];
        if (value !== undefined && (typeof value === "string" || Object.keys(value).length > 0)) {
          fail(`${key}.${field} applies to url servers only`);
        }
      }
      for (const envName of Object.keys(server.env)) {
        if (!ENV_NAME.test(envName)) fail(`${key}.env: "${envName}" is not an environment variable name`);
      }
    } else {
      if (!isHttpUrl(server.url!)) fail(`${key}.url must be an http or https URL`);
      if (server.args.length > 0 || Object.keys(server.env).length > 0 || server.cwd !== undefined) {
        fail(`${key}: args, env and cwd apply to command servers only`);
      }
      if (server.bearer_token_env_var !== undefined && !ENV_NAME.test(server.bearer_token_env_var)) {
        fail(`${key}.bearer_token_env_var must name an environment variable`);
      }
    }
    if (server.startup_timeout_sec <= 0) fail(`${key}.startup_timeout_sec must be positive`);
    if (server.tool_timeout_sec <= 0) fail(`${key}.tool_timeout_sec must be positive`);
    if (server.startup_timeout_sec > MAX_TIMEOUT_CAP || server.tool_timeout_sec > MAX_TIMEOUT_CAP) {
      fail(`${key}: timeouts must be at most ${MAX_TIMEOUT_CAP} seconds`);
    }
  }
}

function validateProfile(config: ResolvedConfig): void {
  const profile = config.provider;
  if (profile.kind !== "openai-compatible" && profile.kind !== "anthropic") {
    fail('provider.kind must be "openai-compatible" or "anthropic"');
  }
  if (profile.kind === "anthropic" && profile.wire_api !== "messages") {
    fail('provider.kind = "anthropic" speaks wire_api = "messages" only');
  }
  if (profile.kind === "openai-compatible" && profile.wire_api !== "responses" && profile.wire_api !== "chat") {
    fail(
      profile.wire_api === "messages"
        ? 'provider.wire_api = "messages" needs provider.kind = "anthropic"'
        : 'provider.wire_api must be "responses" or "chat" (or "messages" with provider.kind = "anthropic")',
    );
  }
  validateOutputTokens(profile);
  if (profile.edit_tools !== undefined && !["auto", "edit", "apply_patch", "both"].includes(profile.edit_tools)) {
    fail('provider.edit_tools must be "auto", "edit", "apply_patch" or "both"');
  }
  if (
    isBlank(profile.model) || isBlank(profile.base_url) || (isBlank(profile.api_key) && isBlank(profile.api_key_env))
  ) {
    fail("provider model and base_url must be non-empty; configure api_key or api_key_env");
  }
}

/** The API's floor for a thinking budget. */
const MIN_THINKING_BUDGET = 1024;

function validateOutputTokens(profile: ResolvedConfig["provider"]): void {
  const { max_output_tokens: max, thinking_budget_tokens: budget } = profile;
  if (max !== undefined && max <= 0) fail("provider.max_output_tokens must be positive");
  if (budget === undefined) return;
  if (budget < MIN_THINKING_BUDGET) fail(`provider.thinking_budget_tokens must be at least ${MIN_THINKING_BUDGET}`);
  if (max !== undefined && budget >= max) {
    fail("provider.thinking_budget_tokens must be below provider.max_output_tokens (the budget is part of the output)");
  }
}

/** Every count, size and timeout but `max_retries` and `max_redirects` (and the context reserves). */
function validatePositive(config: ResolvedConfig): void {
  const checked: Array<[string, number]> = [
    ["provider.timeout_seconds", config.provider.timeout_seconds],
    ["provider.stream_idle_timeout_seconds", config.provider.stream_idle_timeout_seconds ?? 1],
    ["agent.max_steps", config.agent.max_steps],
    ["session.max_history_bytes", config.session.max_history_bytes],
    ["session.max_messages", config.session.max_messages],
    ["context.max_tokens", config.context.max_tokens],
    ["context.bytes_per_token", config.context.bytes_per_token],
    ["context.summary_max_chars", config.context.summary_max_chars],
    ["compaction.summary_max_chars", config.compaction.summary_max_chars],
    ["snapshots.max_file_bytes", config.snapshots.max_file_bytes],
    ["snapshots.max_files", config.snapshots.max_files],
    ["tools.command_timeout_seconds", config.tools.command_timeout_seconds],
    ["tools.max_timeout_seconds", config.tools.max_timeout_seconds],
    ["tools.output_limit_bytes", config.tools.output_limit_bytes],
    ["tools.max_read_bytes", config.tools.max_read_bytes],
    ["tools.max_write_bytes", config.tools.max_write_bytes],
    ["tools.search_timeout_seconds", config.tools.search_timeout_seconds],
    ["protocol.max_client_frame_bytes", config.protocol.max_client_frame_bytes],
    ["protocol.max_server_frame_bytes", config.protocol.max_server_frame_bytes],
    ["tui.max_transcript_bytes", config.tui.max_transcript_bytes],
    ["tui.max_transcript_items", config.tui.max_transcript_items],
    ["tui.max_prompt_history_bytes", config.tui.max_prompt_history_bytes],
    ["tui.max_prompt_history_items", config.tui.max_prompt_history_items],
    ["provider_limits.max_sse_event_bytes", config.provider_limits.max_sse_event_bytes],
    ["provider_limits.max_response_bytes", config.provider_limits.max_response_bytes],
    ["provider_limits.max_assistant_bytes", config.provider_limits.max_assistant_bytes],
    ["provider_limits.max_tool_calls", config.provider_limits.max_tool_calls],
    ["provider_limits.max_tool_arguments_bytes", config.provider_limits.max_tool_arguments_bytes],
    ["skills.max_skills", config.skills.max_skills],
    ["skills.max_skill_bytes", config.skills.max_skill_bytes],
    ["web.fetch_max_bytes", config.web.fetch_max_bytes],
    ["web.fetch_timeout_seconds", config.web.fetch_timeout_seconds],
    ["web.max_search_results", config.web.max_search_results],
  ];
  for (const [key, value] of checked) {
    if (value <= 0) fail(`${key} must be positive`);
  }
}

function validateWeb(config: ResolvedConfig): void {
  const web = config.web;
  if (web.fetch_max_bytes > 67108864) fail("web.fetch_max_bytes must be at most 67108864");
  if (web.max_redirects > 10) fail("web.max_redirects must be at most 10");
  if (web.max_search_results > 20) fail("web.max_search_results must be at most 20");
  if (web.auto_approve_domains.length > 256) fail("web.auto_approve_domains may list at most 256 hosts");
  for (const entry of web.auto_approve_domains) {
    if (!isHostPattern(entry)) {
      fail(`web.auto_approve_domains entry "${entry}" must be a host name such as docs.rs or *.example.com`);
    }
  }
  if (!isHttpUrl(web.brave_url)) fail("web.brave_url must be an http or https URL");
  if (web.search === "searxng" && (web.searxng_url === undefined || !isHttpUrl(web.searxng_url))) {
    fail('web.search = "searxng" requires web.searxng_url (an http or https URL)');
  }
  if (web.search === "brave" && isBlank(web.brave_api_key) && isBlank(web.brave_api_key_env)) {
    fail('web.search = "brave" requires web.brave_api_key or web.brave_api_key_env');
  }
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

/** An optional `*.` prefix, then at most 253 characters of 1–63 character labels. */
export function isHostPattern(entry: string): boolean {
  const host = entry.startsWith("*.") ? entry.slice(2) : entry;
  if (host.length === 0 || host.length > 253) return false;
  return host.split(".").every((label) => LABEL.test(label));
}

export function isHttpUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
}

/** Relative, with no `..` component (so it stays inside the workspace). */
export function isContainedRelativePath(value: string): boolean {
  if (isAbsolute(value) || value.includes("\0")) return false;
  return !value.split(/[\\/]+/).includes("..");
}

function isBlank(value: string | undefined): boolean {
  return value === undefined || value.trim() === "";
}
