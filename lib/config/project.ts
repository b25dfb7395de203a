// Spec §7.3: the workspace layer is untrusted. It may not set provider, identity or network
// trust keys, and may only tighten limits and policies relative to layers 1–2.
import { isApprovalMode, isSandboxMode, modeInfo, sandboxStrictness } from "../policy/index.ts";
import { ConfigError } from "./types.ts";
import { isTable, type RawTable } from "./schema.ts";

// `sessions`: a cloned repository must not prune (delete) the user's sessions or switch their journal off.
// `snapshots`: nor switch off the checkpoints undo relies on; `model_prices`: nor price a model at 0 to lift a budget.
// `projects`: a checkout must not declare itself (or anything) trusted. `project_doc_fallback_filenames`: it must not
// point the instructions at a file such as `.env`, which would send it to the provider.
const FORBIDDEN_TABLES = [
  "provider",
  "providers",
  "provider_active",
  "agents",
  "update",
  "channels",
  "sessions",
  "snapshots",
  "model_prices",
  "projects",
  "project_doc_fallback_filenames",
];

const PROVIDER_TABLES = ["provider", "providers", "provider_active"];

const FORBIDDEN_WEB_KEYS = [
  "auto_approve_domains",
  "allow_private_addresses",
  "searxng_url",
  "brave_url",
  "brave_api_key",
  "brave_api_key_env",
];

/** Numeric limits the project may lower but not raise. */
const NO_RAISE: Record<string, readonly string[]> = {
  agent: ["max_steps"],
  // A budget may be set or lowered (unset in the trusted layers, any value tightens), never raised.
  session: ["max_history_bytes", "max_messages", "max_cost_usd"],
  context: ["max_tokens", "summary_max_chars"],
  tools: [
    "command_timeout_seconds",
    "max_timeout_seconds",
    "output_limit_bytes",
    "max_read_bytes",
    "max_write_bytes",
    "search_timeout_seconds",
  ],
  protocol: ["max_client_frame_bytes", "max_server_frame_bytes"],
  tui: ["max_transcript_bytes", "max_transcript_items", "max_prompt_history_bytes", "max_prompt_history_items"],
  provider_limits: [
    "max_sse_event_bytes",
    "max_response_bytes",
    "max_assistant_bytes",
    "max_tool_calls",
    "max_tool_arguments_bytes",
    "max_retries",
  ],
  skills: ["max_skills", "max_skill_bytes"],
  web: ["fetch_max_bytes", "fetch_timeout_seconds", "max_redirects", "max_search_results"],
};

/** How strict an approval mode is (lib/policy/modes.ts): a project may only pick one at least as strict. */
function strictness(mode: unknown): number {
  return isApprovalMode(mode) ? modeInfo(mode).strictness : 0;
}

function fail(message: string): never {
  throw new ConfigError(`project configuration ${message}`);
}

/**
 * Checks the schema-checked project table against `trusted`, the merge of layers 1–2
 * (with every default present). Throws the first violation.
 */
export function checkProjectLayer(project: RawTable, trusted: RawTable, file?: string): void {
  // MCP servers run commands with the user's rights: an untrusted checkout may neither add nor change one.
  if ("mcp_servers" in project) {
    fail(
      `${
        file === undefined ? "" : `${file} `
      }cannot set [mcp_servers]: MCP servers are defined only in the user file or --config-path`,
    );
  }
  const named = file === undefined ? "" : `${file} `;
  for (const key of Object.keys(project)) {
    if (!FORBIDDEN_TABLES.includes(key)) continue;
    // The provider is where the key goes: a cloned repository must not pick it. Say where it may be set instead.
    if (PROVIDER_TABLES.includes(key)) {
      fail(
        `${named}cannot set [${key}]: the provider is chosen only in the user file (~/.scv/config.toml, or ` +
          "$SCV_HOME/config.toml), a --config-path file or the environment (SCV_PROVIDER, SCV_MODEL, SCV_BASE_URL); " +
          "move it there or remove it",
      );
    }
    fail(`${named}cannot set [${key}]`);
  }
  // An untrusted checkout may add deny and ask rules, never allow anything (lib/config/permissions.ts).
  if (isTable(project.permissions) && "allow" in project.permissions) {
    fail(
      `${
        file === undefined ? "" : `${file} `
      }cannot set permissions.allow: only the user file and --config-path may allow tool calls; the workspace ` +
        "may add ask and deny rules",
    );
  }
  const table = (name: string): RawTable => (isTable(project[name]) ? project[name] : {});
  const base = (name: string): RawTable => (isTable(trusted[name]) ? trusted[name] : {});

  const agent = table("agent");
  if ("system_prompt" in agent) fail("cannot replace agent.system_prompt");
  if ("prefer" in agent) fail("cannot set agent.prefer");
  if ("user_dir" in table("skills")) fail("cannot set skills.user_dir");
  if ("env_passthrough" in table("tools")) fail("cannot set tools.env_passthrough");
  for (const key of FORBIDDEN_WEB_KEYS) {
    if (key in table("web")) fail(`cannot set web.${key}`);
  }

  for (const [name, keys] of Object.entries(NO_RAISE)) {
    const values = table(name);
    for (const key of keys) {
      const value = values[key];
      if (typeof value === "number" && value > (base(name)[key] as number)) fail(`cannot raise ${name}.${key}`);
    }
  }

  const docBytes = project.project_doc_max_bytes;
  if (typeof docBytes === "number" && docBytes > (trusted.project_doc_max_bytes as number)) {
    fail("cannot raise project_doc_max_bytes");
  }

  // Unset means upstream's default 2 (issue 20): a project may lower the sub-agent nesting, never raise it.
  const depth = agent.max_delegation_depth;
  const trustedDepth = base("agent").max_delegation_depth;
  if (typeof depth === "number" && depth > (typeof trustedDepth === "number" ? trustedDepth : 2)) {
    fail("cannot raise agent.max_delegation_depth");
  }

  const context = table("context");
  for (const key of ["reserve_output_tokens", "safety_margin_tokens"]) {
    const value = context[key];
    if (typeof value === "number" && value < (base("context")[key] as number)) fail("cannot lower context reserves");
  }
  const bytesPerToken = context.bytes_per_token;
  if (typeof bytesPerToken === "number" && bytesPerToken > (base("context").bytes_per_token as number)) {
    fail("cannot raise context.bytes_per_token");
  }

  const policy = table("tools").approval_policy;
  if (typeof policy === "string" && strictness(policy) < strictness(base("tools").approval_policy)) {
    fail("cannot weaken tools.approval_policy");
  }
  if (table("skills").scan_projects === true && base("skills").scan_projects !== true) {
    fail("cannot enable skills.scan_projects");
  }
  const web = table("web");
  if (web.enabled === true && base("web").enabled !== true) fail("cannot enable web");
  if (typeof web.search === "string" && web.search !== "off" && web.search !== base("web").search) {
    fail("can only turn web.search off");
  }
  if (table("tools").code_mode === true && base("tools").code_mode !== true) fail("cannot enable tools.code_mode");

  // The command sandbox: a checkout may confine commands more, never less.
  const sandbox = project.sandbox_mode;
  const trustedSandbox = trusted.sandbox_mode;
  if (
    isSandboxMode(sandbox) && isSandboxMode(trustedSandbox) &&
    sandboxStrictness(sandbox) < sandboxStrictness(trustedSandbox)
  ) {
    fail("cannot weaken sandbox_mode");
  }
  const workspaceWrite = table("sandbox_workspace_write");
  if ("writable_roots" in workspaceWrite) fail("cannot set sandbox_workspace_write.writable_roots");
  if (workspaceWrite.network_access === true && base("sandbox_workspace_write").network_access !== true) {
    fail("cannot enable sandbox_workspace_write.network_access");
  }
}
