// `session.start` steps 1–5 (spec §6.2): canonical workspace, instance home, configuration, credential, then the
// system prompt (with the skills listing), tools and provider client. No network I/O but one bounded, silent
// context-window lookup on the chat wire when `[context] max_tokens` is unset (issue 14). Any failure throws
// StartError with the wire message.
import { realpath, stat } from "node:fs/promises";
import { homedir } from "node:os";
import path from "node:path";
import { contextForWindow } from "../agent/index.ts";
import {
  type ApprovalPolicy,
  ensureHome,
  loadConfig,
  type McpServerConfig,
  resolveCredential,
  type ResolvedConfig,
  resolveHome,
  type TrustLevel,
  trustLevel,
} from "../config/index.ts";
import {
  type ContextWindowSource,
  createProvider,
  discoverContextWindow,
  knownContextWindow,
  type ProviderClient,
} from "../provider/index.ts";
import {
  buildToolRegistry,
  type CommandSandbox,
  createRegistry,
  discoverSkills,
  ExecSandbox,
  McpManager,
  openCommandSandbox,
  ProcessGroups,
  skillsPromptSection,
  type ToolRegistry,
} from "../tools/index.ts";
import { type CustomCommand, discoverCommands } from "../commands/index.ts";
import { type Logger, silentLogger } from "../util/log.ts";
import { RuleSet, type SandboxMode } from "../policy/index.ts";
import type { ClientMessage } from "../protocol/index.ts";
import { createAgentTool, offersAgent } from "./agent_tool.ts";
import { buildSystemPrompt, clientSystemPromptError } from "./system_prompt.ts";
import { type ProjectInstructions, projectInstructions } from "./project_instructions.ts";

/** What the command line contributes to every session of this process. */
export type ServerOptions = {
  model?: string;
  baseUrl?: string;
  provider?: string;
  approvalPolicy?: ApprovalPolicy;
  /** `--max-cost`: the session budget in USD (`session.max_cost_usd`). */
  maxCostUsd?: number;
  /** `--sandbox`: overrides `sandbox_mode`. */
  sandboxMode?: SandboxMode;
  scvHome?: string;
  configPath?: string;
  env: Record<string, string | undefined>;
  /** The directory a relative `cwd` resolves against. */
  cwd: string;
  /** Non-fatal setup warnings (e.g. a skills root outside the workspace); they go to the log. */
  warn?: (text: string) => void;
  /** The server's log (MCP servers' stderr and state changes go there). */
  log?: Logger;
  /**
   * MCP servers a client declared for its sessions (`scv acp`'s `mcpServers`), beside the configured ones; one of
   * the same name replaces the configured entry. Checked by the client; no wire message carries them.
   */
  mcpServers?: Record<string, McpServerConfig>;
  /**
   * The client is the user's own terminal (`scv chat`, `scv exec`): an attachment may lie outside the workspace, as
   * the user chose it. The model's tools stay confined. A remote client's attachments must be inside.
   */
  userAttachments?: boolean;
};

/** The fields of `session.start` that shape the session (`auto_approve` has no effect). */
export type StartRequest = Pick<
  Extract<ClientMessage, { type: "session.start" }>,
  "cwd" | "provider" | "model" | "base_url" | "no_tools" | "system_prompt" | "delegation_depth" | "working_folder"
>;

export type SessionParts = {
  workspace: string;
  /** The folder the user works in: the workspace or a folder below it (`session.start.working_folder`). */
  workingFolder: string;
  /** The AGENTS.md files in the system prompt, and those still to join on first touch. */
  projectInstructions: ProjectInstructions;
  /** The custom commands (`$SCV_HOME/commands/`, `<workspace>/.scv/commands/`), sorted by name. */
  commands: CustomCommand[];
  /** What the user file says of the workspace (`[projects."<path>"]`): project hooks run only when `trusted`. */
  workspaceTrust?: TrustLevel;
  config: ResolvedConfig;
  tools: ToolRegistry;
  /** The bash process groups the session's tools started and that still run; the session's shutdown kills them. */
  processGroups: ProcessGroups;
  /** The session's exec sandbox: its sandbox processes end with the session, no other's. */
  execSandbox: ExecSandbox;
  /** Where the session's commands run: the OS sandbox `sandbox_mode` asks for, its back end, or what is missing. */
  commandSandbox?: CommandSandbox;
  provider: ProviderClient;
  instructions: string;
  /** The session's MCP servers (absent without any): started once `session.started` is written. */
  mcp?: McpManager;
  /** The context window the budget uses (`config.context.max_tokens`) and where it came from. */
  contextWindow: SessionContextWindow;
  /** The instance home (sessions are journalled under it). */
  home: string;
  /** The profile the session was started with, when one was named (recorded in the journal). */
  profile?: string;
  /** Values the journal must never hold: the provider credential and every configured secret value. */
  secrets: string[];
  /** The server's environment (the snapshot store runs git with its PATH). */
  env: Record<string, string | undefined>;
  /** Attachments may lie outside the workspace (ServerOptions.userAttachments). */
  userAttachments?: boolean;
  /** The permission rules in force (with their origins) and where the approval mode came from. */
  policy: SessionPolicy;
};

export type SessionPolicy = {
  rules: RuleSet;
  /** `default`, `user file <path>`, `project file <path>`, `explicit file <path>`, `flag --approval-policy`. */
  modeOrigin: string;
  /** The user file, where "always" answers add their rules. */
  userFile: string;
};

export type SessionContextWindow = {
  tokens: number;
  source: "config" | "default" | ContextWindowSource;
  warning?: string;
};

export class StartError extends Error {
  override name = "StartError";
}

export async function prepareSession(request: StartRequest, options: ServerOptions): Promise<SessionParts> {
  const promptError = clientSystemPromptError(request);
  if (promptError !== undefined) throw new StartError(promptError);
  const workspace = await canonicalWorkspace(request.cwd, options.cwd);
  const workingFolder = request.working_folder === undefined
    ? workspace
    : await canonicalWorkingFolder(request.working_folder, workspace);
  const env = options.env;
  const { home, explicit } = await step(() => resolveHome(options.scvHome, env));
  await step(() => ensureHome(home, options.warn));
  const origins = new Map<string, string>();
  const loaded = await step(() =>
    loadConfig({
      origins,
      workspace,
      home,
      homeExplicit: explicit,
      explicitConfigPath: options.configPath,
      env,
      overrides: {
        provider: request.provider ?? options.provider,
        model: request.model ?? options.model,
        base_url: request.base_url ?? options.baseUrl,
        approval_policy: options.approvalPolicy,
        ...(options.maxCostUsd === undefined ? {} : { max_cost_usd: options.maxCostUsd }),
        sandbox_mode: options.sandboxMode,
      },
    })
  );
  const credential = await step(() => resolveCredential(loaded, env, path.join(home, "config.toml")));
  const contextWindow = await findContextWindow(loaded, credential, env);
  if (contextWindow.warning) options.warn?.(contextWindow.warning);
  const windowed: ResolvedConfig = contextWindow.source === "config" || contextWindow.source === "default"
    ? loaded
    : { ...loaded, context: contextForWindow(loaded.context, contextWindow.tokens) };
  const config: ResolvedConfig = options.mcpServers === undefined
    ? windowed
    : { ...windowed, mcp_servers: { ...windowed.mcp_servers, ...options.mcpServers } };
  const noTools = request.no_tools ?? false;
  const skills = noTools ? [] : await step(() => discoverSkills(config, workspace, { warn: options.warn }));
  // A tool-free client may bring its whole system prompt: then none of the configured instructions reach the model.
  const project = await projectInstructions({
    config,
    home,
    workspace,
    workingFolder,
    userHome: nonEmpty(env.HOME) ?? homedir(),
    none: request.system_prompt !== undefined,
  });
  const instructions = request.system_prompt ?? buildSystemPrompt({
    systemPrompt: config.agent.system_prompt,
    workspace,
    workingFolder,
    instructionsSection: project.section,
    skillsSection: skillsPromptSection(skills),
  });
  const trust = trustLevel(config.projects, workspace);
  const commands = await discoverCommands({
    user: path.join(home, "commands"),
    project: path.join(workspace, ".scv", "commands"),
    ...(options.warn === undefined ? {} : { warn: options.warn }),
  });
  const processGroups = new ProcessGroups();
  const log = options.log;
  const commandSandbox = noTools ? undefined : openCommandSandbox(config, {
    workspace,
    home,
    env,
    ...(log === undefined ? {} : { report: (line: string, warning: boolean) => (warning ? log.warn : log.info)(line) }),
  });
  const mcp = noTools || Object.keys(config.mcp_servers).length === 0 ? undefined : new McpManager(
    config.mcp_servers,
    { workspace, env, log: options.log ?? silentLogger, ...(commandSandbox ? { commandSandbox } : {}) },
  );
  const execSandbox = new ExecSandbox();
  const ownTools = await step(() =>
    buildToolRegistry(config, {
      noTools,
      skills,
      processGroups,
      execSandbox,
      ...(mcp ? { mcp } : {}),
      ...(commandSandbox ? { commandSandbox } : {}),
    })
  );
  // A client that is itself a delegated agent declares its depth; sub-agents count from it (upstream semantics).
  const depth = request.delegation_depth ?? 0;
  const tools = noTools || !offersAgent(config, depth)
    ? ownTools
    // The session's own tools stay live (MCP servers add theirs as they start); `agent` is added beside them.
    : createRegistry([
      createAgentTool({
        config,
        workspace,
        depth,
        provider: () => provider,
        processGroups,
        execSandbox,
        instructionsFor: project.sectionFor,
        ...(commandSandbox ? { commandSandbox } : {}),
      }),
    ], () => ownTools.list());
  const provider = await step(() =>
    createProvider({
      profile: config.provider,
      limits: config.provider_limits,
      credential,
      hostedWebSearch: !noTools && config.web.enabled && config.web.search === "provider",
      ...(options.warn === undefined ? {} : { warn: options.warn }),
    })
  );
  const profile = request.provider ?? options.provider ?? nonEmpty(env.SCV_PROVIDER);
  const secrets = [credential, ...config.secrets.values];
  const policy: SessionPolicy = {
    rules: await step(() => RuleSet.of(config.permission_rules)),
    modeOrigin: origins.get("tools.approval_policy") ?? "default",
    userFile: path.join(home, "config.toml"),
  };
  return {
    workspace,
    workingFolder,
    projectInstructions: project,
    commands,
    ...(trust === undefined ? {} : { workspaceTrust: trust }),
    config,
    tools,
    processGroups,
    execSandbox,
    ...(commandSandbox ? { commandSandbox } : {}),
    provider,
    instructions,
    contextWindow,
    ...(mcp && mcp.size > 0 ? { mcp } : {}),
    home,
    secrets,
    env,
    policy,
    ...(profile ? { profile } : {}),
    ...(options.userAttachments === true ? { userAttachments: true } : {}),
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value !== undefined && value !== "" ? value : undefined;
}

/**
 * `[context] max_tokens` when set; else, on the chat wire, what the server says (one short lookup, silent on
 * failure: the only network I/O of session.start); else the known table (OpenAI and Claude models); else the default.
 */
async function findContextWindow(
  config: ResolvedConfig,
  credential: string,
  env: Record<string, string | undefined>,
): Promise<SessionContextWindow> {
  if (!config.context_max_tokens_default) return { tokens: config.context.max_tokens, source: "config" };
  if (config.provider.wire_api === "chat") {
    const found = await discoverContextWindow({ profile: config.provider, credential, env });
    if (found) return found;
  }
  const known = knownContextWindow(config.provider.model, config.provider.headers);
  if (known !== undefined) return { tokens: known, source: "known_model" };
  return { tokens: config.context.max_tokens, source: "default" };
}

async function canonicalWorkspace(cwd: string, base: string): Promise<string> {
  const absolute = path.resolve(base, cwd);
  let resolved: string;
  try {
    resolved = await realpath(absolute);
  } catch (error) {
    throw new StartError(`resolve cwd ${cwd}: ${describeFsError(error)}`);
  }
  const info = await stat(resolved).catch(() => undefined);
  if (!info?.isDirectory()) throw new StartError("cwd is not a directory");
  return resolved;
}

/** `working_folder`: resolved against the workspace, and inside it. */
async function canonicalWorkingFolder(folder: string, workspace: string): Promise<string> {
  const resolved = await canonicalWorkspace(folder, workspace).catch((error: Error) => {
    throw new StartError(
      error.message.replace(/^resolve cwd/, "resolve working_folder").replace(/^cwd/, "working_folder"),
    );
  });
  const below = path.relative(workspace, resolved);
  if (below === ".." || below.startsWith(`..${path.sep}`) || path.isAbsolute(below)) {
    throw new StartError("working_folder must be the workspace (cwd) or a folder inside it");
  }
  return resolved;
}

function describeFsError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  switch (code) {
    case "ENOENT":
      return "No such file or directory";
    case "EACCES":
      return "Permission denied";
    case "ENOTDIR":
      return "Not a directory";
    case "ELOOP":
      return "Too many levels of symbolic links";
    default:
      return error instanceof Error ? error.message : String(error);
  }
}

/** Runs one setup step; whatever it throws becomes a StartError carrying the wire message. */
async function step<T>(run: () => T | Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw new StartError(error instanceof Error ? error.message : String(error));
  }
}
