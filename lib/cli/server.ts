// `scv server --stdio`: argument handling, then one protocol connection over stdin/stdout.
import type { ApprovalPolicy } from "../config/types.ts";
import { createLogger } from "../server/log.ts";
import { serveStdio } from "../server/stdio.ts";
import { EXIT_USAGE } from "./exit.ts";

export type ServerCliOptions = {
  stdio?: boolean;
  model?: string;
  baseUrl?: string;
  provider?: string;
  approvalPolicy?: ApprovalPolicy;
  scvHome?: string;
  configPath?: string;
};

// Handles that a finished connection may leave behind (keep-alive sockets, killed children's pipes)
// must not keep the process alive past the spec's exit deadlines.
const FORCED_EXIT_MS = 250;

export async function runServer(options: ServerCliOptions): Promise<number> {
  if (!options.stdio) {
    process.stderr.write("scv server currently supports only --stdio\n");
    return EXIT_USAGE;
  }
  const log = createLogger(process.env.SCV_LOG);
  const result = await serveStdio(
    process.stdin,
    process.stdout,
    {
      model: options.model,
      baseUrl: options.baseUrl,
      provider: options.provider,
      approvalPolicy: options.approvalPolicy,
      scvHome: options.scvHome,
      configPath: options.configPath,
      env: process.env,
      cwd: process.cwd(),
      warn: log.warn,
    },
    log,
  );
  process.stdin.destroy();
  setTimeout(() => process.exit(result.exitCode), FORCED_EXIT_MS).unref();
  return result.exitCode;
}
