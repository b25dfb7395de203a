// The back ends that confine a process, which of them this system has, and the one launch function over them:
// bubblewrap, else util-linux `unshare` with the same layout made by hand (Linux); Seatbelt (macOS); none elsewhere.
// SCV_SANDBOX_BACKEND picks one (tests run each; users debugging their setup can too).
import { existsSync } from "node:fs";
import { BWRAP, bwrapLaunch } from "./bwrap.ts";
import type { Launch, Program } from "./launch.ts";
import type { Layout } from "./layout.ts";
import { SANDBOX_EXEC, seatbeltLaunch } from "./seatbelt.ts";
import { CHROOT_PATHS, SETPRIV, UNSHARE, unshareLaunch } from "./unshare.ts";

export type BackendName = "bwrap" | "unshare" | "seatbelt";

export const BACKEND_NAMES: readonly BackendName[] = ["bwrap", "unshare", "seatbelt"];
export const BACKEND_ENV = "SCV_SANDBOX_BACKEND";

/** The programs each back end runs, by absolute path (never looked up on PATH). */
const TOOLS: Record<BackendName, readonly string[]> = {
  bwrap: [BWRAP],
  unshare: [UNSHARE, SETPRIV, "/bin/sh"],
  seatbelt: [SANDBOX_EXEC],
};

/** The back ends to try here, best first; SCV_SANDBOX_BACKEND names exactly one (or `none`). */
export function backendCandidates(
  env: Record<string, string | undefined>,
  platform: NodeJS.Platform = process.platform,
): BackendName[] {
  const forced = env[BACKEND_ENV];
  if (forced !== undefined && forced !== "") {
    if (forced === "none") return [];
    if ((BACKEND_NAMES as readonly string[]).includes(forced)) return [forced as BackendName];
    throw new Error(
      `${BACKEND_ENV}=${forced} is not a sandbox back end; use ${BACKEND_NAMES.join(", ")} or none`,
    );
  }
  if (platform === "linux") return ["bwrap", "unshare"];
  if (platform === "darwin") return ["seatbelt"];
  return [];
}

/** The programs `name` needs that this system lacks (empty when it has them all). */
export function missingTools(name: BackendName): string[] {
  const missing = TOOLS[name].filter((path) => !existsSync(path));
  if (name === "unshare" && !CHROOT_PATHS.some((path) => existsSync(path))) missing.push("chroot");
  return missing;
}

export function launchWith(name: BackendName, layout: Layout, program: Program): Launch {
  switch (name) {
    case "bwrap":
      return bwrapLaunch(layout, program);
    case "unshare":
      return unshareLaunch(layout, program);
    case "seatbelt":
      return seatbeltLaunch(layout, program);
  }
}
