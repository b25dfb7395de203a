// `scv config [path]`: the effective configuration for a workspace and where each value came from, or
// the files scv reads. Reads files only; secrets are shown as `[set]`.
import { realpath, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { startFolders } from "../util/repository_root.ts";
import { ConfigError, expandTilde, loadConfig, type ResolvedConfig, resolveHome } from "../config/index.ts";
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from "./exit.ts";
import { refusesLogLevel } from "./log_level.ts";

export type ConfigCliOptions = {
  scvHome?: string;
  configPath?: string;
  provider?: string;
  cd?: string;
  json?: boolean;
};

type Env = Record<string, string | undefined>;
type Located = { workspace: string; home: string; homeExplicit: boolean; explicit?: string };

const SECRET_KEYS = new Set(["provider.api_key", "web.brave_api_key"]);

export async function runConfig(action: string | undefined, options: ConfigCliOptions): Promise<number> {
  const env = process.env;
  if (refusesLogLevel("config", env.SCV_LOG)) return EXIT_USAGE;
  let located: Located;
  try {
    located = await locate(options, env);
  } catch (error) {
    process.stderr.write(`scv config: ${(error as Error).message}\n`);
    return EXIT_FAILURE;
  }
  if (action === "path") {
    for (const file of await filesRead(located)) process.stdout.write(`${file}\n`);
    return EXIT_OK;
  }
  const origins = new Map<string, string>();
  let config: ResolvedConfig;
  try {
    config = await loadConfig({
      workspace: located.workspace,
      home: located.home,
      homeExplicit: located.homeExplicit,
      explicitConfigPath: located.explicit,
      env,
      overrides: { provider: options.provider },
      origins,
    });
  } catch (error) {
    const message = error instanceof ConfigError ? error.message : String(error);
    process.stderr.write(`scv config: ${message}\n`);
    return EXIT_FAILURE;
  }
  const rows = describeConfig(config, origins);
  if (options.json) {
    process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return EXIT_OK;
  }
  const profile = origins.get("#profile");
  process.stdout.write(`# scv configuration for ${located.workspace}${profile ? ` (profile ${profile})` : ""}\n`);
  for (const row of rows) process.stdout.write(`${row.key} = ${row.value}  # ${row.origin}\n`);
  return EXIT_OK;
}

export type ConfigRow = { key: string; value: string; origin: string };

/** One row per resolved key, in the order of the resolved tables, secrets as `[set]`. */
export function describeConfig(config: ResolvedConfig, origins: Map<string, string>): ConfigRow[] {
  const profile = origins.get("#profile");
  const rows: ConfigRow[] = [];
  for (const [table, values] of Object.entries(config)) {
    // Not configuration but what the tools must not see (the keys' values among it): never printed. And a note for
    // the session start, not a key.
    if (table === "secrets" || table === "context_max_tokens_default" || table === "sandbox_mode_default") continue;
    // A value of its own (the selected profile's name, sandbox_mode), not a table of keys.
    if (typeof values !== "object" || values === null) {
      const origin = table === "provider_name" ? "the selected [providers.<name>]" : origins.get(table) ?? "default";
      rows.push({ key: table, value: JSON.stringify(values), origin });
      continue;
    }
    for (const [key, value] of Object.entries(values as Record<string, unknown>)) {
      const dotted = `${table}.${key}`;
      rows.push({ key: dotted, value: display(dotted, value), origin: originOf(dotted, origins, profile) });
    }
  }
  return rows;
}

function originOf(dotted: string, origins: Map<string, string>, profile: string | undefined): string {
  const direct = origins.get(dotted) ?? tableOrigin(dotted, origins);
  if (!dotted.startsWith("provider.") || profile === undefined) return direct ?? "default";
  // A named profile replaces [provider] whole; only environment and flag overrides sit above it.
  if (direct !== undefined && (direct.startsWith("env ") || direct.startsWith("flag "))) return direct;
  return origins.get(`providers.${profile}.${dotted.slice("provider.".length)}`) ?? "default";
}

/** A row that is a whole table (`mcp_servers.<name>`): the layers its keys came from. */
function tableOrigin(dotted: string, origins: Map<string, string>): string | undefined {
  const found = new Set<string>();
  for (const [key, origin] of origins) if (key.startsWith(`${dotted}.`)) found.add(origin);
  return found.size === 0 ? undefined : [...found].join(", ");
}

function display(dotted: string, value: unknown): string {
  if (SECRET_KEYS.has(dotted)) return value === undefined || value === "" ? '""' : "[set]";
  if (dotted === "provider.headers") {
    const names = Object.keys(value as Record<string, string>);
    return `{ ${names.map((name) => `${JSON.stringify(name)} = [set]`).join(", ")}${names.length ? " " : ""}}`;
  }
  // An MCP server's env and headers often carry tokens: their names only.
  if (dotted.startsWith("mcp_servers.") && typeof value === "object" && value !== null) {
    const server = value as Record<string, unknown>;
    const names = (table: unknown) => Object.fromEntries(Object.keys(table as object).map((name) => [name, "[set]"]));
    return JSON.stringify({ ...server, env: names(server.env ?? {}), http_headers: names(server.http_headers ?? {}) });
  }
  return JSON.stringify(value);
}

async function locate(options: ConfigCliOptions, env: Env): Promise<Located> {
  const directory = resolve(options.cd ?? process.cwd());
  await realpath(directory).catch(() => {
    throw new Error(`workspace ${directory} does not exist`);
  });
  // The workspace chat and exec would use here: the repository root when this is a subfolder of one.
  const { workspace } = await startFolders(directory, env);
  const { home, explicit: homeExplicit } = resolveHome(options.scvHome, env);
  const explicitFlag = options.configPath ?? (env.SCV_CONFIG === "" ? undefined : env.SCV_CONFIG);
  const explicit = explicitFlag === undefined ? undefined : resolve(expandTilde(explicitFlag, env));
  return { workspace, home, homeExplicit, explicit };
}

/** The configuration files scv reads for this workspace, lowest layer first; missing optional ones left out. */
async function filesRead(located: Located): Promise<string[]> {
  const candidates = [join(located.home, "config.toml"), join(located.workspace, ".scv", "config.toml")];
  const present: string[] = [];
  for (const file of candidates) {
    if ((await stat(file).catch(() => undefined))?.isFile()) present.push(file);
  }
  if (located.explicit !== undefined) present.push(located.explicit);
  return [...new Set(present)];
}
