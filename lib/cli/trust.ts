// `scv trust [PATH] [--revoke]`: records in the user file that the user trusts (or no longer trusts) the workspace
// scv would use in PATH (its repository root), Codex's `[projects."<path>"] trust_level`. Only then do the hooks of
// its `.scv/config.toml` run: hooks are code.
import { stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { ConfigError, ensureHome, resolveHome, setTrust } from "../config/index.ts";
import { startFolders } from "../util/repository_root.ts";
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from "./exit.ts";

export type TrustCliOptions = { revoke?: boolean; scvHome?: string };

export async function runTrust(pathArg: string | undefined, options: TrustCliOptions): Promise<number> {
  const env = process.env;
  const folder = resolve(pathArg ?? process.cwd());
  if (!(await stat(folder).catch(() => undefined))?.isDirectory()) {
    process.stderr.write(`scv trust: ${folder} is not a folder\n`);
    return EXIT_USAGE;
  }
  const { workspace, workingFolder } = await startFolders(folder, env);
  const { home } = resolveHome(options.scvHome, env);
  const userFile = join(home, "config.toml");
  const level = options.revoke === true ? "untrusted" : "trusted";
  try {
    await ensureHome(home, (warning) => process.stderr.write(`scv trust: ${warning}\n`));
    await setTrust(userFile, workspace, level);
  } catch (error) {
    const message = error instanceof ConfigError || error instanceof Error ? error.message : String(error);
    process.stderr.write(`scv trust: ${message}\n`);
    return EXIT_FAILURE;
  }
  const which = workspace === workingFolder ? workspace : `${workspace} (the repository root of ${workingFolder})`;
  process.stdout.write(
    level === "trusted"
      ? `Trusted ${which}: the hooks of its .scv/config.toml will run. Recorded in ${userFile}.\n`
      : `No longer trusted: ${which}: the hooks of its .scv/config.toml are skipped. Recorded in ${userFile}.\n`,
  );
  return EXIT_OK;
}
