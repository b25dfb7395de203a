// The shape of every TOML table of spec §7.2: which keys exist and what type each holds.
// One description serves unknown-key detection, type checking and value normalisation.
import { APPROVAL_MODE_IDS, SANDBOX_MODE_IDS } from "../policy/index.ts";
import { nearestName } from "../util/nearest.ts";
import { ConfigError } from "./types.ts";

export type KeySpec =
  | { kind: "count" } // a non-negative integer
  | { kind: "number" } // a non-negative finite number, integer or float (prices, budgets)
  | { kind: "seconds" } // a non-negative number, fractions allowed
  | { kind: "bool" }
  | { kind: "string" }
  | { kind: "enum"; values: readonly string[] }
  | { kind: "strings" } // array of strings
  | { kind: "string_map" } // a table of strings
  | { kind: "ignored_table" } // accepted, any content
  | { kind: "table"; keys: Record<string, KeySpec> }
  | { kind: "named_tables"; of: KeySpec } // `[providers.<name>]`
  | { kind: "table_list"; of: TableSpec }; // `[[hooks.PreToolUse]]`

const count: KeySpec = { kind: "count" };
const number: KeySpec = { kind: "number" };
const bool: KeySpec = { kind: "bool" };
const string: KeySpec = { kind: "string" };

export const PROFILE_SPEC: KeySpec = {
  kind: "table",
  keys: {
    active: string,
    kind: string,
    wire_api: string,
    model: string,
    base_url: string,
    api_key: string,
    api_key_env: string,
    timeout_seconds: count,
    stream_idle_timeout_seconds: { kind: "seconds" },
    headers: { kind: "string_map" },
    reasoning_effort: string,
    image_input: bool,
    edit_tools: string,
    max_output_tokens: count,
    thinking_budget_tokens: count,
  },
};

export type TableSpec = { kind: "table"; keys: Record<string, KeySpec> };

/** One `[mcp_servers.<name>]`, with Codex's key names: stdio (`command`…) or streamable HTTP (`url`…). */
export const MCP_SERVER_SPEC: KeySpec = {
  kind: "table",
  keys: {
    command: string,
    args: { kind: "strings" },
    env: { kind: "string_map" },
    cwd: string,
    url: string,
    bearer_token_env_var: string,
    http_headers: { kind: "string_map" },
    enabled: bool,
    startup_timeout_sec: count,
    tool_timeout_sec: count,
    enabled_tools: { kind: "strings" },
    disabled_tools: { kind: "strings" },
    sandbox: { kind: "enum", values: SANDBOX_MODE_IDS },
  },
};

/** One `[[hooks.<Event>]]` (issue 30): Claude Code's semantics in Codex's TOML. */
export const HOOK_SPEC: TableSpec = {
  kind: "table",
  keys: { matcher: string, command: string, timeout_sec: count },
};

const HOOK_LIST: KeySpec = { kind: "table_list", of: HOOK_SPEC };

export const ROOT_SPEC: TableSpec = {
  kind: "table",
  keys: {
    provider_active: string,
    provider: PROFILE_SPEC,
    providers: { kind: "named_tables", of: PROFILE_SPEC },
    agent: {
      kind: "table",
      keys: {
        max_steps: count,
        system_prompt: string,
        max_delegation_depth: count,
        // Ignored, type-checked only.
        max_conversations: count,
        conversation_idle_seconds: count,
        max_background: count,
        prefer: { kind: "strings" },
        // Newer upstream scv keys, accepted so a shared ~/.scv keeps working; scv does not use them.
        on_busy: string,
        max_queued_turns: count,
      },
    },
    session: { kind: "table", keys: { max_history_bytes: count, max_messages: count, max_cost_usd: number } },
    sessions: { kind: "table", keys: { persist: bool, keep_count: count, keep_days: count } },
    context: {
      kind: "table",
      keys: {
        max_tokens: count,
        reserve_output_tokens: count,
        safety_margin_tokens: count,
        bytes_per_token: count,
        summary_max_chars: count,
      },
    },
    compaction: { kind: "table", keys: { auto_percent: count, keep_turns: count, summary_max_chars: count } },
    snapshots: { kind: "table", keys: { enabled: bool, max_file_bytes: count, max_files: count } },
    model_prices: {
      kind: "named_tables",
      of: { kind: "table", keys: { input: number, cached_input: number, output: number, cache_write: number } },
    },
    tools: {
      kind: "table",
      keys: {
        approval_policy: { kind: "enum", values: APPROVAL_MODE_IDS },
        command_timeout_seconds: count,
        max_timeout_seconds: count,
        output_limit_bytes: count,
        max_read_bytes: count,
        max_write_bytes: count,
        search_timeout_seconds: count,
        code_mode: bool,
        login_shell: bool,
        env_passthrough: { kind: "strings" },
        agent_timeout_seconds: count, // ignored
      },
    },
    sandbox_mode: { kind: "enum", values: SANDBOX_MODE_IDS },
    sandbox_workspace_write: {
      kind: "table",
      keys: {
        writable_roots: { kind: "strings" },
        network_access: bool,
        // Codex's, accepted so a copied table keeps working: scv's /tmp is always the command's own.
        exclude_tmpdir_env_var: bool,
        exclude_slash_tmp: bool,
      },
    },
    permissions: {
      kind: "table",
      keys: { allow: { kind: "strings" }, ask: { kind: "strings" }, deny: { kind: "strings" } },
    },
    protocol: { kind: "table", keys: { max_client_frame_bytes: count, max_server_frame_bytes: count } },
    tui: {
      kind: "table",
      keys: {
        max_transcript_bytes: count,
        max_transcript_items: count,
        max_prompt_history_bytes: count,
        max_prompt_history_items: count,
      },
    },
    provider_limits: {
      kind: "table",
      keys: {
        max_sse_event_bytes: count,
        max_response_bytes: count,
        max_assistant_bytes: count,
        max_tool_calls: count,
        max_tool_arguments_bytes: count,
        max_retries: count,
      },
    },
    skills: {
      kind: "table",
      keys: { user_dir: string, project_dir: string, scan_projects: bool, max_skills: count, max_skill_bytes: count },
    },
    web: {
      kind: "table",
      keys: {
        enabled: bool,
        fetch_max_bytes: count,
        fetch_timeout_seconds: count,
        max_redirects: count,
        auto_approve_domains: { kind: "strings" },
        allow_private_addresses: bool,
        search: { kind: "enum", values: ["off", "provider", "searxng", "brave"] },
        searxng_url: string,
        brave_url: string,
        brave_api_key: string,
        brave_api_key_env: string,
        max_search_results: count,
      },
    },
    mcp_servers: { kind: "named_tables", of: MCP_SERVER_SPEC },
    project_doc_max_bytes: count,
    project_doc_fallback_filenames: { kind: "strings" },
    hooks: {
      kind: "table",
      keys: {
        SessionStart: HOOK_LIST,
        UserPromptSubmit: HOOK_LIST,
        PreToolUse: HOOK_LIST,
        PostToolUse: HOOK_LIST,
        Stop: HOOK_LIST,
        SessionEnd: HOOK_LIST,
      },
    },
    projects: {
      kind: "named_tables",
      of: { kind: "table", keys: { trust_level: { kind: "enum", values: ["trusted", "untrusted"] } } },
    },
    agents: { kind: "ignored_table" },
    update: { kind: "ignored_table" },
    notify: { kind: "ignored_table" },
    channels: { kind: "ignored_table" },
  },
};

export type RawTable = Record<string, unknown>;

export function isTable(value: unknown): value is RawTable {
  // TOML dates parse to Date objects, which are values, not tables.
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/**
 * Checks a parsed file against the schema: unknown keys and wrong types throw with the exact
 * spec messages naming the dotted key. Returns a copy with integers as plain numbers.
 */
export function checkAgainstSchema(document: RawTable, file: string): RawTable {
  return checkTable(document, ROOT_SPEC, "", file);
}

function checkTable(table: RawTable, spec: TableSpec, prefix: string, file: string): RawTable {
  const out: RawTable = {};
  for (const [key, value] of Object.entries(table)) {
    const dotted = prefix === "" ? key : `${prefix}.${key}`;
    const keySpec = Object.hasOwn(spec.keys, key) ? spec.keys[key] : undefined;
    if (keySpec === undefined) {
      const suggestion = nearestName(key, Object.keys(spec.keys));
      const hint = suggestion === undefined ? "" : `; did you mean ${suggestion}?`;
      throw new ConfigError(`parse configuration ${file}: unknown key ${dotted}${hint}`);
    }
    out[key] = checkValue(value, keySpec, dotted, file);
  }
  return out;
}

function checkValue(value: unknown, spec: KeySpec, dotted: string, file: string): unknown {
  const invalid = () => new ConfigError(`parse configuration ${file}: invalid value for ${dotted}`);
  switch (spec.kind) {
    case "count": {
      if (typeof value === "bigint") {
        if (value < 0n || value > BigInt(Number.MAX_SAFE_INTEGER)) throw invalid();
        return Number(value);
      }
      if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return value;
      throw invalid();
    }
    case "number": {
      const numeric = typeof value === "bigint" ? Number(value) : value;
      if (typeof numeric !== "number" || !Number.isFinite(numeric) || numeric < 0) throw invalid();
      return numeric;
    }
    case "seconds": {
      const seconds = typeof value === "bigint" ? Number(value) : value;
      if (typeof seconds === "number" && Number.isFinite(seconds) && seconds >= 0) return seconds;
      throw invalid();
    }
    case "bool":
      if (typeof value !== "boolean") throw invalid();
      return value;
    case "string":
      if (typeof value !== "string") throw invalid();
      return value;
    case "enum":
      if (typeof value !== "string" || !spec.values.includes(value)) {
        throw new ConfigError(
          `parse configuration ${file}: invalid value for ${dotted} (expected one of: ${spec.values.join(", ")})`,
        );
      }
      return value;
    case "strings":
      if (!Array.isArray(value) || !value.every((item) => typeof item === "string")) throw invalid();
      return [...value];
    case "string_map": {
      if (!isTable(value)) throw invalid();
      const out: Record<string, string> = {};
      for (const [key, item] of Object.entries(value)) {
        if (typeof item !== "string") {
          throw new ConfigError(`parse configuration ${file}: invalid value for ${dotted}.${key}`);
        }
        out[key] = item;
      }
      return out;
    }
    case "ignored_table":
      if (!isTable(value)) throw invalid();
      return value;
    case "table":
      if (!isTable(value)) throw invalid();
      return checkTable(value, spec, dotted, file);
    case "named_tables": {
      if (!isTable(value)) throw invalid();
      const out: RawTable = {};
      for (const [name, item] of Object.entries(value)) {
        out[name] = checkValue(item, spec.of, `${dotted}.${name}`, file);
      }
      return out;
    }
    case "table_list": {
      if (!Array.isArray(value)) throw invalid();
      return value.map((item, index) => {
        if (!isTable(item)) throw new ConfigError(`parse configuration ${file}: invalid value for ${dotted}[${index}]`);
        return checkTable(item, spec.of, `${dotted}[${index}]`, file);
      });
    }
  }
}
