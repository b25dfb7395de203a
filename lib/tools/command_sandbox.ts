// The session's command sandbox, opened from its configuration: the mode and folders `sandbox_mode` and
// `[sandbox_workspace_write]` ask for, and what no confined process may see (the user's secrets, scv's instance home
// and the configuration files it read). The back end is chosen by its self-test at first use (lib/confine).
import { homedir } from "node:os";
import type { ResolvedConfig } from "../config/index.ts";
import { CommandSandbox, hiddenPaths } from "../confine/index.ts";

export type CommandSandboxPlace = {
  workspace: string;
  /** The instance home (`$SCV_HOME`). */
  home: string;
  env: Record<string, string | undefined>;
  /** Where the chosen back end (or what is missing) is told: the server's log. */
  report?: (line: string, warning: boolean) => void;
};

/** The sandbox, not yet tested: its self-test runs at first use (`ready()`). */
export function openCommandSandbox(config: ResolvedConfig, place: CommandSandboxPlace): CommandSandbox {
  const userHome = place.env.HOME !== undefined && place.env.HOME !== "" ? place.env.HOME : homedir();
  // Missing ones are skipped by the layout.
  const configFiles = config.secrets.config_files.map((file) => file.path);
  return new CommandSandbox({
    mode: config.sandbox_mode,
    modeIsDefault: config.sandbox_mode_default === true,
    workspace: place.workspace,
    writableRoots: config.sandbox_workspace_write.writable_roots,
    network: config.sandbox_workspace_write.network_access,
    hidden: hiddenPaths({ userHome, scvHome: place.home, configFiles, env: place.env }),
    env: place.env,
    ...(place.report === undefined ? {} : { report: place.report }),
  });
}
