// The offline demo: examples/demo/script.json replayed by the local replay provider against a fresh copy of
// examples/demo/workspace in a temp directory, with a temp SCV_HOME, so the checkout and the user's own
// configuration are never touched and no API key or network is needed.
import { existsSync } from "node:fs";
import { cp, mkdir, mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadReplayScript, replayEnv, startReplayServer } from "./replay.ts";
import type { ClientFlags, PreparedOptions } from "./session_options.ts";

export type Demo = {
  workspace: string;
  prompts: string[];
  prepare(flags: ClientFlags): Promise<PreparedOptions>;
  cleanup(): Promise<void>;
};

export const DEMO_MODEL = "scv-demo";

function demoDirectory(): string {
  const candidates: string[] = [];
  try {
    candidates.push(fileURLToPath(new URL("../../examples/demo/", import.meta.url)));
  } catch {
    // Bundled builds have no module URL; fall back to the working directory.
  }
  candidates.push(join(process.cwd(), "examples", "demo"));
  const found = candidates.find((candidate) => existsSync(join(candidate, "script.json")));
  if (!found) throw new Error("examples/demo/script.json was not found (run the demo from the scv checkout)");
  return found;
}

/** Variables that would pull the user's own scv configuration or credentials into the demo. */
const ISOLATED = ["SCV_HOME", "SCV_CONFIG", "SCV_MODEL", "SCV_PROVIDER", "SCV_BASE_URL", "SCV_API_KEY_ENV", "OPENAI_API_KEY", "BRAVE_SEARCH_API_KEY"];

export async function prepareDemo(env: Record<string, string | undefined>, options: { delayMs?: number } = {}): Promise<Demo> {
  const directory = demoDirectory();
  const script = await loadReplayScript(join(directory, "script.json"));
  const root = await realpath(await mkdtemp(join(tmpdir(), "scv-demo-")));
  const workspace = join(root, "workspace");
  const home = join(root, "home");
  await cp(join(directory, "workspace"), workspace, { recursive: true });
  await mkdir(home, { mode: 0o700 });
  const demoEnv: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(env)) if (!ISOLATED.includes(key)) demoEnv[key] = value;
  demoEnv.SCV_HOME = home;
  return {
    workspace,
    prompts: script.prompts,
    async prepare(flags) {
      const replay = await startReplayServer(script, options);
      return {
        options: {
          model: flags.model ?? DEMO_MODEL,
          approvalPolicy: flags.approvalPolicy,
          baseUrl: replay.url,
          env: replayEnv(demoEnv),
          cwd: workspace,
        },
        replay,
        script,
        close: () => replay.close(),
      };
    },
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}
