// The approval policy a session is configured with and where it came from (chat's `/approvals`), read the way the
// engine reads it at session start and labelled the way `scv config` labels its rows.
import { realpath } from "node:fs/promises";
import { resolveHome } from "./home.ts";
import { loadConfig } from "./load.ts";
import type { ApprovalPolicy } from "./types.ts";

/** What a client passes the engine (structurally the server's options): the inputs of the session's config. */
export type SessionConfigInputs = {
  scvHome?: string;
  configPath?: string;
  env: Record<string, string | undefined>;
  provider?: string;
  model?: string;
  baseUrl?: string;
  approvalPolicy?: ApprovalPolicy;
};

export type PolicyOrigin = {
  policy: ApprovalPolicy;
  /** `default`, `user file <path>`, `project file <path>`, `explicit file <path>` or `flag --approval-policy`. */
  origin: string;
};

/** Rejects with the ConfigError the engine would have refused the session with. */
export async function configuredApprovalPolicy(inputs: SessionConfigInputs, cwd: string): Promise<PolicyOrigin> {
  const workspace = await realpath(cwd).catch(() => cwd);
  const { home, explicit } = resolveHome(inputs.scvHome, inputs.env);
  const origins = new Map<string, string>();
  const config = await loadConfig({
    workspace,
    home,
    homeExplicit: explicit,
    explicitConfigPath: inputs.configPath,
    env: inputs.env,
    overrides: {
      provider: inputs.provider,
      model: inputs.model,
      base_url: inputs.baseUrl,
      approval_policy: inputs.approvalPolicy,
    },
    origins,
  });
  return { policy: config.tools.approval_policy, origin: origins.get("tools.approval_policy") ?? "default" };
}
