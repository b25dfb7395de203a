// The session flags `scv server` and `scv acp` share, as the engine's ServerOptions for this process.
import type { ServerOptions } from "../server/index.ts";
import type { Logger } from "../util/log.ts";

/** The command-line flags: the session defaults of ServerOptions. */
export type SessionFlags = Omit<ServerOptions, "env" | "cwd" | "warn" | "sandboxMode"> & {
  /** `--sandbox MODE`. */
  sandbox?: ServerOptions["sandboxMode"];
};

export function serverOptionsFrom(flags: SessionFlags, log: Logger): ServerOptions {
  return {
    model: flags.model,
    baseUrl: flags.baseUrl,
    provider: flags.provider,
    approvalPolicy: flags.approvalPolicy,
    sandboxMode: flags.sandbox,
    scvHome: flags.scvHome,
    configPath: flags.configPath,
    env: process.env,
    cwd: process.cwd(),
    warn: log.warn,
  };
}
