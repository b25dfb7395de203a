// Engine options for a session served by the replay provider. The replay server must never receive a real
// credential or custom headers, so the session selects a profile of its own from a private, session-only
// configuration file (the explicit layer, which wins over the user's files): a placeholder `api_key` (which wins
// over any `api_key_env`), the replay URL and the Responses wire API. The file is removed by `close`. Its model is
// the recording's (else `replay`), so the session shows what was recorded rather than the default model or
// SCV_MODEL; `--model` still wins, as over any file.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ServerOptions } from "../server/index.ts";

export const REPLAY_PROFILE = "scv-replay";
export const REPLAY_PLACEHOLDER_KEY = "scv-replay-placeholder";
/** The model of a replay whose recording names none. */
export const REPLAY_MODEL = "replay";

/** Variables that would select another provider profile, configuration file or model. */
const OVERRIDDEN = ["SCV_PROVIDER", "SCV_CONFIG", "SCV_BASE_URL", "SCV_API_KEY_ENV", "SCV_MODEL"];

export type ReplaySessionOptions = { options: ServerOptions; close(): Promise<void> };

export async function replaySessionOptions(
  base: ServerOptions,
  replayUrl: string,
  model: string = REPLAY_MODEL,
): Promise<ReplaySessionOptions> {
  const directory = await mkdtemp(join(tmpdir(), "scv-replay-"));
  const configPath = join(directory, "config.toml");
  const toml = [
    `provider_active = ${JSON.stringify(REPLAY_PROFILE)}`,
    "",
    `[providers.${REPLAY_PROFILE}]`,
    `base_url = ${JSON.stringify(replayUrl)}`,
    `model = ${JSON.stringify(model)}`,
    `api_key = ${JSON.stringify(REPLAY_PLACEHOLDER_KEY)}`,
    `wire_api = "responses"`,
    "",
  ].join("\n");
  await writeFile(configPath, toml, { mode: 0o600 });
  const env: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(base.env)) if (!OVERRIDDEN.includes(key)) env[key] = value;
  return {
    options: { ...base, provider: undefined, baseUrl: replayUrl, configPath, env },
    close: () => rm(directory, { recursive: true, force: true }),
  };
}
