// Builds the engine's ServerOptions for `scv chat` and `scv exec`, starting the replay provider when a
// recorded script is given (`--fake-responses FILE` or SCV_FAKE_RESPONSES) with a placeholder credential.
import type { ApprovalMode as ApprovalPolicy, SandboxMode } from "../policy/index.ts";
import type { ServerOptions } from "../server/index.ts";
import { loadReplayScript, type ReplayScript, type ReplayServer, startReplayServer } from "./replay.ts";
import { replaySessionOptions } from "./replay_session.ts";

export type ClientFlags = {
  model?: string;
  provider?: string;
  approvalPolicy?: ApprovalPolicy;
  /** `--max-cost`: the session budget in USD. */
  maxCost?: number;
  /** `--sandbox MODE`. */
  sandbox?: SandboxMode;
  fakeResponses?: string;
  scvHome?: string;
  baseUrl?: string;
  configPath?: string;
};

export type PreparedOptions = {
  options: ServerOptions;
  replay: ReplayServer | undefined;
  script: ReplayScript | undefined;
  close(): Promise<void>;
};

export function fakeResponsesPath(flags: ClientFlags, env: Record<string, string | undefined>): string | undefined {
  const fromEnv = env.SCV_FAKE_RESPONSES;
  return flags.fakeResponses ?? (fromEnv !== undefined && fromEnv !== "" ? fromEnv : undefined);
}

export async function prepareOptions(
  flags: ClientFlags,
  env: Record<string, string | undefined>,
  cwd: string,
  replayOptions: { delayMs?: number } = {},
): Promise<PreparedOptions> {
  const options: ServerOptions = {
    model: flags.model,
    provider: flags.provider,
    approvalPolicy: flags.approvalPolicy,
    ...(flags.maxCost === undefined ? {} : { maxCostUsd: flags.maxCost }),
    sandboxMode: flags.sandbox,
    scvHome: flags.scvHome,
    baseUrl: flags.baseUrl,
    configPath: flags.configPath,
    env,
    cwd,
    // chat and exec are the user's own terminal: an image the user names may lie outside the workspace.
    userAttachments: true,
  };
  const path = fakeResponsesPath(flags, env);
  if (path === undefined) return { options, replay: undefined, script: undefined, close: async () => {} };
  return startReplaySession(await loadReplayScript(path), options, replayOptions);
}

/** Starts the replay provider for `script` and points a session of `options` at it. */
export async function startReplaySession(
  script: ReplayScript,
  options: ServerOptions,
  replayOptions: { delayMs?: number } = {},
): Promise<PreparedOptions> {
  const replay = await startReplayServer(script, replayOptions);
  const session = await replaySessionOptions(options, replay.url, script.model).catch(async (error: unknown) => {
    await replay.close();
    throw error;
  });
  return {
    options: session.options,
    replay,
    script,
    close: async () => {
      await replay.close();
      await session.close();
    },
  };
}
