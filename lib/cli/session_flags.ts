// The session flags `scv server` and `scv acp` share, as the engine's ServerOptions for this process.
import type { ServerOptions } from "../server/index.ts";
import type { Logger } from "../util/log.ts";

/** The command-line flags: the session defaults of ServerOptions (`--max-cost` arrives as `maxCost`). */
export type SessionFlags = Omit<ServerOptions, "env" | "cwd" | "warn" | "sandboxMode" | "maxCostUsd"> & {
  /** `--sandbox MODE`. */
  sandbox?: ServerOptions["sandboxMode"];
  maxCost?: number;
};

export function serverOptionsFrom(flags: SessionFlags, log: Logger): ServerOptions {
  return {
    model: flags.model,
    baseUrl: flags.baseUrl,
    provider: flags.provider,
    approvalPolicy: flags.approvalPolicy,
    ...(flags.maxCost === undefined ? {} : { maxCostUsd: flags.maxCost }),
    sandboxMode: flags.sandbox,
    scvHome: flags.scvHome,
    configPath: flags.configPath,
    env: process.env,
    cwd: process.cwd(),
    warn: log.warn,
  };
}
