// loadConfig: the six layers of spec §7.1, the project rules of §7.3 and the checks of §7.2.
import { realpath, stat } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { ANTHROPIC_PROFILE_DEFAULTS, defaultConfig, MCP_SERVER_DEFAULTS } from "./defaults.ts";
import { expandTilde, userHome } from "./home.ts";
import { deepMerge } from "./merge.ts";
import { checkProjectLayer } from "./project.ts";
import { layerHooks } from "./hooks.ts";
import { projectsOf } from "./trust.ts";
import { layerRules, permissionLists } from "./permissions.ts";
import { describeFsError } from "./fs_error.ts";
import { type LoadedFile, readConfigFile } from "./read_file.ts";
import { recordOrigins } from "./origins.ts";
import { isTable, type RawTable } from "./schema.ts";
import { validateConfig } from "./validate.ts";
import { logLevelProblem } from "../util/log.ts";
import {
  ConfigError,
  type ConfigFileRef,
  type LoadConfigOptions,
  type McpServerConfig,
  type ModelPrice,
  type ProviderProfile,
  type ResolvedConfig,
  type SecretsConfig,
} from "./types.ts";

type Env = Record<string, string | undefined>;

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === "" ? undefined : value;
}

export async function loadConfig(options: LoadConfigOptions): Promise<ResolvedConfig> {
  const { env, home, overrides } = options;
  // SCV_LOG is read before any configuration, but a typo there must not pass for the default level.
  const logProblem = logLevelProblem(env.SCV_LOG);
  if (logProblem !== undefined) throw new ConfigError(logProblem);
  const defaultUserDir = options.homeExplicit ? join(home, "skills") : join(userHome(env), ".scv", "skills");
  const defaults = defaultConfig(defaultUserDir);
  const { provider: _defaultProfile, ...defaultTables } = defaults;
  const layer1 = structuredClone(defaultTables) as unknown as RawTable;

  // Layer 2: the user file (optional, private).
  const userPath = join(home, "config.toml");
  const user = await readConfigFile(userPath, "user", { optional: true });
  const trusted = deepMerge(layer1, user?.table ?? {});
  const origins = options.origins;
  if (origins !== undefined && user !== undefined) recordOrigins(user.table, `user file ${userPath}`, origins);

  // Layer 3: the workspace file (optional, untrusted, exempt from the permission rule).
  const project = await readProjectLayer(options.workspace, user);
  if (project !== undefined) checkProjectLayer(project, trusted, join(options.workspace, ".scv", "config.toml"));
  if (origins !== undefined && project !== undefined) {
    recordOrigins(project, `project file ${join(options.workspace, ".scv", "config.toml")}`, origins);
  }

  // Layer 4: the explicit file (must exist, private).
  const explicitPath = nonEmpty(options.explicitConfigPath) ?? nonEmpty(env.SCV_CONFIG);
  const explicitFile = explicitPath === undefined ? undefined : resolve(expandTilde(explicitPath, env));
  const explicit = explicitFile === undefined
    ? undefined
    : await readConfigFile(explicitFile, "explicit", { optional: false });

  if (origins !== undefined && explicit !== undefined) {
    recordOrigins(explicit.table, `explicit file ${resolve(expandTilde(explicitPath!, env))}`, origins);
  }

  const projectFile = join(options.workspace, ".scv", "config.toml");
  const rules = [
    ...layerRules(user?.table, userPath, `user file ${userPath}`, false),
    ...layerRules(project, projectFile, `project file ${projectFile}`, true),
    ...(explicitFile === undefined
      ? []
      : layerRules(explicit?.table, explicitFile, `explicit file ${explicitFile}`, false)),
  ];

  let merged = deepMerge(trusted, project ?? {});
  merged = deepMerge(merged, explicit?.table ?? {});

  const requestedProfile = nonEmpty(overrides.provider) ?? nonEmpty(env.SCV_PROVIDER);
  const { profile, baseUrlVariable } = buildProfile(merged, defaults.provider, requestedProfile, env);
  const profileName = selectedProfileName(merged, requestedProfile);
  if (profileName !== undefined) origins?.set("#profile", profileName);
  if (baseUrlVariable !== undefined && !origins?.has("provider.base_url")) {
    origins?.set("provider.base_url", `env ${baseUrlVariable}`);
  }

  // Layer 5: environment overrides of the selected profile.
  const envModel = nonEmpty(env.SCV_MODEL);
  const envBaseUrl = nonEmpty(env.SCV_BASE_URL);
  const envKeyEnv = nonEmpty(env.SCV_API_KEY_ENV);
  if (envModel !== undefined) profile.model = envModel;
  if (envBaseUrl !== undefined) profile.base_url = envBaseUrl;
  if (envKeyEnv !== undefined) profile.api_key_env = envKeyEnv;
  if (envModel !== undefined) origins?.set("provider.model", "env SCV_MODEL");
  if (envBaseUrl !== undefined) origins?.set("provider.base_url", "env SCV_BASE_URL");
  if (envKeyEnv !== undefined) origins?.set("provider.api_key_env", "env SCV_API_KEY_ENV");

  // Layer 6: CLI flags and session.start fields.
  if (overrides.model !== undefined) profile.model = overrides.model;
  if (overrides.base_url !== undefined) profile.base_url = overrides.base_url;
  if (overrides.model !== undefined) origins?.set("provider.model", "flag --model");
  if (overrides.base_url !== undefined) origins?.set("provider.base_url", "flag --base-url");
  if (overrides.approval_policy !== undefined) origins?.set("tools.approval_policy", "flag --approval-policy");
  if (overrides.max_cost_usd !== undefined) origins?.set("session.max_cost_usd", "flag --max-cost");
  if (overrides.sandbox_mode !== undefined) origins?.set("sandbox_mode", "flag --sandbox");

  const configFiles = [
    userPath,
    join(options.workspace, ".scv", "config.toml"),
    ...(explicitFile ? [explicitFile] : []),
  ];
  const secrets = await collectSecrets(merged, profile, home, configFiles, env);
  const config = assemble(merged, defaults, profile, home, env, secrets);
  // Hooks are kept per layer (a project's run only in a trusted folder); trust comes from trusted layers only.
  config.hooks = [
    ...layerHooks(user?.table, "user", userPath),
    ...layerHooks(project, "project", configFiles[1]!),
    ...(explicitFile === undefined ? [] : layerHooks(explicit?.table, "explicit", explicitFile)),
  ];
  config.projects = { ...await projectsOf(user?.table, env), ...await projectsOf(explicit?.table, env) };
  config.permissions = permissionLists(rules);
  config.permission_rules = rules;
  const setsMaxTokens = (table: RawTable | undefined) =>
    isTable(table?.context) && table.context.max_tokens !== undefined;
  if (![user?.table, project, explicit?.table].some(setsMaxTokens)) config.context_max_tokens_default = true;
  if (overrides.approval_policy !== undefined) config.tools.approval_policy = overrides.approval_policy;
  if (overrides.max_cost_usd !== undefined) config.session.max_cost_usd = overrides.max_cost_usd;
  if (overrides.sandbox_mode !== undefined) config.sandbox_mode = overrides.sandbox_mode;
  const setsSandbox = (table: RawTable | undefined) => table?.sandbox_mode !== undefined;
  if (overrides.sandbox_mode === undefined && ![user?.table, project, explicit?.table].some(setsSandbox)) {
    config.sandbox_mode_default = true;
  }
  config.sandbox_workspace_write.writable_roots = config.sandbox_workspace_write.writable_roots.map((root) =>
    resolve(options.workspace, expandTilde(root, env))
  );
  if (profileName !== undefined) config.provider_name = profileName;
  validateConfig(config);
  return config;
}

async function readProjectLayer(workspace: string, user: LoadedFile | undefined): Promise<RawTable | undefined> {
  const display = join(workspace, ".scv", "config.toml");
  let real: string;
  try {
    real = await realpath(display);
  } catch (error) {
    // Missing, a dangling link or a `.scv` that is not a directory: there is no project layer.
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw new ConfigError(`read configuration ${display}: ${describeFsError(error)}`);
  }
  const stats = await stat(real).catch(() => undefined);
  if (stats === undefined || !stats.isFile()) return undefined;
  // A workspace whose .scv is the home (e.g. working in ~) has no project layer: it is the user file.
  if (user !== undefined && stats.dev === user.dev && stats.ino === user.ino) return undefined;
  const root = await realpath(workspace).catch(() => resolve(workspace));
  const inside = relative(root, real);
  if (inside === "" || inside === ".." || inside.startsWith(`..${sep}`) || isAbsolute(inside)) {
    throw new ConfigError("project configuration escaped workspace");
  }
  const file = await readConfigFile(display, "none", { optional: true, openPath: real });
  return file?.table;
}

/** The `[providers.<name>]` in effect: the flag or SCV_PROVIDER, then `provider_active`, then `provider.active`. */
function selectedProfileName(merged: RawTable, requested: string | undefined): string | undefined {
  const provider = isTable(merged.provider) ? merged.provider : {};
  return (
    requested ??
      nonEmpty(typeof merged.provider_active === "string" ? merged.provider_active : undefined) ??
      nonEmpty(typeof provider.active === "string" ? provider.active : undefined)
  );
}

/**
 * Selects `[providers.<name>]` (replacing `[provider]` whole) or `[provider]`, then fills the defaults of its kind.
 * The kind's SDK variable (OPENAI_BASE_URL, ANTHROPIC_BASE_URL) replaces the default base_url; `baseUrlVariable`
 * names it when it is the base_url in effect. Files and SCV_BASE_URL win over it.
 */
function buildProfile(
  merged: RawTable,
  defaults: ProviderProfile,
  requested: string | undefined,
  env: Env,
): { profile: ProviderProfile; baseUrlVariable?: string } {
  const provider = isTable(merged.provider) ? merged.provider : {};
  const name = selectedProfileName(merged, requested);
  let raw: RawTable = provider;
  if (name !== undefined) {
    const profiles = isTable(merged.providers) ? merged.providers : {};
    const selected = Object.hasOwn(profiles, name) ? profiles[name] : undefined;
    if (!isTable(selected)) throw new ConfigError(`active provider profile "${name}" was not found`);
    raw = selected;
  }
  const { active: _active, ...keys } = raw;
  const anthropic = keys.kind === "anthropic";
  const kindDefaults: ProviderProfile = anthropic
    ? { ...structuredClone(defaults), ...ANTHROPIC_PROFILE_DEFAULTS }
    : structuredClone(defaults);
  const variable = anthropic ? "ANTHROPIC_BASE_URL" : "OPENAI_BASE_URL";
  const fromEnv = nonEmpty(env[variable]);
  // The Anthropic SDKs append `/v1` to ANTHROPIC_BASE_URL (it names the host, as Claude Code uses it).
  if (fromEnv !== undefined) kindDefaults.base_url = anthropic ? `${fromEnv.replace(/\/+$/, "")}/v1` : fromEnv;
  const profile = { ...kindDefaults, ...structuredClone(keys) } as ProviderProfile;
  const fromVariable = fromEnv !== undefined && keys.base_url === undefined;
  return fromVariable ? { profile, baseUrlVariable: variable } : { profile };
}

/** Copies the known keys of each table (dropping accepted-but-ignored ones) over the defaults. */
function assemble(
  merged: RawTable,
  defaults: ResolvedConfig,
  provider: ProviderProfile,
  home: string,
  env: Env,
  secrets: SecretsConfig,
): ResolvedConfig {
  const pick = <T extends object>(name: string, base: T, optional: readonly string[] = []): T => {
    const source = isTable(merged[name]) ? merged[name] : {};
    const out = { ...base } as Record<string, unknown>;
    for (const key of [...Object.keys(base), ...optional]) {
      if (source[key] !== undefined) out[key] = structuredClone(source[key]);
    }
    return out as T;
  };
  const skills = pick("skills", defaults.skills);
  const rawSkills = isTable(merged.skills) ? merged.skills : {};
  if (typeof rawSkills.user_dir === "string") skills.user_dir = resolve(home, expandTilde(rawSkills.user_dir, env));
  return {
    provider,
    agent: pick("agent", defaults.agent, ["max_delegation_depth"]),
    session: pick("session", defaults.session, ["max_cost_usd"]),
    sessions: pick("sessions", defaults.sessions),
    context: pick("context", defaults.context),
    compaction: pick("compaction", defaults.compaction),
    snapshots: pick("snapshots", defaults.snapshots),
    model_prices: modelPrices(merged),
    tools: pick("tools", defaults.tools),
    permissions: defaults.permissions,
    permission_rules: [],
    protocol: pick("protocol", defaults.protocol),
    tui: pick("tui", defaults.tui),
    provider_limits: pick("provider_limits", defaults.provider_limits),
    skills,
    web: pick("web", defaults.web, ["searxng_url", "brave_api_key"]),
    sandbox_mode: typeof merged.sandbox_mode === "string"
      ? (merged.sandbox_mode as ResolvedConfig["sandbox_mode"])
      : defaults.sandbox_mode,
    sandbox_workspace_write: pick("sandbox_workspace_write", defaults.sandbox_workspace_write),
    mcp_servers: mcpServers(merged),
    project_doc_max_bytes: typeof merged.project_doc_max_bytes === "number"
      ? merged.project_doc_max_bytes
      : defaults.project_doc_max_bytes,
    project_doc_fallback_filenames: Array.isArray(merged.project_doc_fallback_filenames)
      ? [...merged.project_doc_fallback_filenames as string[]]
      : [],
    hooks: [],
    projects: {},
    secrets,
  };
}

/** Header names whose values are credentials (redacted like keys). */
const SECRET_HEADER = /auth|key|token|secret|cookie|session|password/i;

/**
 * What the tools must never see (issue 12): the instance home and every configuration file (refused to the
 * file tools), the variables scv reads keys from (dropped from tool processes) and every key value (redacted).
 * Every profile counts, not only the selected one, as do the defaults' variable names.
 */
async function collectSecrets(
  merged: RawTable,
  selected: ProviderProfile,
  home: string,
  configFiles: string[],
  env: Env,
): Promise<SecretsConfig> {
  const profiles: RawTable[] = [selected as unknown as RawTable];
  if (isTable(merged.provider)) profiles.push(merged.provider);
  if (isTable(merged.providers)) profiles.push(...Object.values(merged.providers).filter(isTable));
  const web = isTable(merged.web) ? merged.web : {};
  const names = new Set<string>(["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "BRAVE_SEARCH_API_KEY"]);
  const values = new Set<string>();
  const addString = (target: Set<string>, value: unknown) => {
    if (typeof value === "string" && value.trim() !== "") target.add(value);
  };
  for (const profile of profiles) {
    addString(names, profile.api_key_env);
    addString(values, profile.api_key);
    if (isTable(profile.headers)) {
      for (const [name, value] of Object.entries(profile.headers))
        if (SECRET_HEADER.test(name)) addString(values, value);
    }
  }
  addString(names, web.brave_api_key_env);
  addString(values, web.brave_api_key);
  // MCP credentials: a bearer token's variable, and header or env values named like credentials.
  const mcpServers = isTable(merged.mcp_servers) ? Object.values(merged.mcp_servers).filter(isTable) : [];
  for (const server of mcpServers) {
    addString(names, server.bearer_token_env_var);
    for (const table of [server.http_headers, server.env]) {
      if (!isTable(table)) continue;
      for (const [name, value] of Object.entries(table)) if (SECRET_HEADER.test(name)) addString(values, value);
    }
  }
  for (const name of names) addString(values, env[name]);
  return {
    home: await realpath(home).catch(() => resolve(home)),
    config_files: await Promise.all(configFiles.map(fileRef)),
    env_names: [...names].sort(),
    values: [...values],
  };
}

/** The real path and identity of a configuration file; for a missing one, its real parent plus its name. */
async function fileRef(path: string): Promise<ConfigFileRef> {
  try {
    const real = await realpath(path);
    const info = await stat(real);
    return { path: real, dev: info.dev, ino: info.ino };
  } catch {
    const parent = await realpath(dirname(path)).catch(() => dirname(path));
    return { path: join(parent, basename(path)) };
  }
}

/** Each `[model_prices."<model>"]`, with `cached_input` defaulting to `input` (validated: input and output set). */
function modelPrices(merged: RawTable): Record<string, ModelPrice> {
  const tables = isTable(merged.model_prices) ? merged.model_prices : {};
  const out: Record<string, ModelPrice> = {};
  for (const [model, raw] of Object.entries(tables)) {
    if (!isTable(raw)) continue;
    const price = raw as Partial<ModelPrice>;
    out[model] = {
      input: price.input ?? Number.NaN,
      cached_input: price.cached_input ?? price.input ?? Number.NaN,
      output: price.output ?? Number.NaN,
      ...(price.cache_write === undefined ? {} : { cache_write: price.cache_write }),
    };
  }
  return out;
}

/** Each `[mcp_servers.<name>]` over Codex's defaults; a relative `cwd` stays as written (the client resolves it). */
function mcpServers(merged: RawTable): Record<string, McpServerConfig> {
  const servers = isTable(merged.mcp_servers) ? merged.mcp_servers : {};
  const out: Record<string, McpServerConfig> = {};
  for (const [name, raw] of Object.entries(servers)) {
    if (!isTable(raw)) continue;
    out[name] = { ...structuredClone(MCP_SERVER_DEFAULTS), ...(structuredClone(raw) as Partial<McpServerConfig>) };
  }
  return out;
}
