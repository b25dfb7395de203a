// The offline demo: the recorded script of examples/demo replayed by the local replay provider against a fresh
// copy of the demo workspace in a temp directory, with a temp SCV_HOME, so the checkout and the user's own
// configuration are never touched and no API key or network is needed. Script and workspace are embedded
// (lib/chat/demo_assets.ts, generated from examples/demo), so the compiled binary plays the demo from anywhere.
import { chmod, mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { DEMO_SCRIPT, DEMO_WORKSPACE } from "./demo_assets.ts";
import { type ClientFlags, parseReplayScript, type PreparedOptions, startReplaySession } from "../embed/index.ts";

export type Demo = {
  workspace: string;
  prompts: string[];
  prepare(flags: ClientFlags): Promise<PreparedOptions>;
  cleanup(): Promise<void>;
};

export const DEMO_MODEL = "scv-demo";

/** Variables that would pull the user's own scv configuration or credentials into the demo. */
const ISOLATED = [
  "SCV_HOME",
  "SCV_CONFIG",
  "SCV_MODEL",
  "SCV_PROVIDER",
  "SCV_BASE_URL",
  "SCV_API_KEY_ENV",
  "OPENAI_API_KEY",
  "BRAVE_SEARCH_API_KEY",
];

export async function prepareDemo(
  env: Record<string, string | undefined>,
  options: { delayMs?: number } = {},
): Promise<Demo> {
  const script = parseReplayScript(DEMO_SCRIPT);
  const root = await realpath(await mkdtemp(join(tmpdir(), "scv-demo-")));
  const workspace = join(root, "workspace");
  const home = join(root, "home");
  try {
    for (const file of DEMO_WORKSPACE) {
      const path = join(workspace, ...file.path.split("/"));
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, file.content);
      await chmod(path, file.mode);
    }
    await mkdir(home, { mode: 0o700 });
  } catch (error) {
    await rm(root, { recursive: true, force: true });
    throw error;
  }
  const demoEnv: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(env)) if (!ISOLATED.includes(key)) demoEnv[key] = value;
  demoEnv.SCV_HOME = home;
  return {
    workspace,
    prompts: script.prompts,
    prepare(flags) {
      const base = {
        model: flags.model ?? DEMO_MODEL,
        approvalPolicy: flags.approvalPolicy,
        env: demoEnv,
        cwd: workspace,
      };
      return startReplaySession(script, base, options);
    },
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}
