// What a confined process may do, as the engine's policy decides it: the one input every back end (bubblewrap,
// unshare, Seatbelt) turns into its own launch.
import { join } from "node:path";
import type { SandboxMode } from "../policy/index.ts";

/**
 * Folders inside a writable folder that stay read-only: a version control's hooks and configuration run as code when
 * the user runs it there (git's `.git`, Mercurial's `.hg/hgrc` hooks, Jujutsu's `.jj` repository config), and scv's
 * own configuration.
 */
export const PROTECTED_NAMES: readonly string[] = [".git", ".hg", ".jj", ".scv"];

export type ConfinePolicy = {
  /** `read-only` or `workspace-write` (`danger-full-access` confines nothing and never reaches a back end). */
  mode: Exclude<SandboxMode, "danger-full-access">;
  /** The working folder of the process; writable under `workspace-write`. */
  workspace: string;
  /** Further folders writable under `workspace-write` (`[sandbox_workspace_write] writable_roots`), absolute. */
  writableRoots: readonly string[];
  /** Keep the host's network (`network_access`); otherwise a fresh network namespace with nothing in it. */
  network: boolean;
  /** Absolute paths hidden from the process (the user's secrets, scv's home and configuration files). */
  hidden: readonly string[];
};

/** The user's credentials that no sandboxed process may read, relative to the user's home folder. */
export const HOME_SECRETS: readonly string[] = [".ssh", ".aws", ".gnupg", ".config/gh", ".netrc", ".npmrc"];

/**
 * Sockets through which a process could ask something outside the sandbox to act for it (the system and session
 * message buses, whose service managers start processes; container engines), hidden like secrets.
 */
export const ESCAPE_SOCKETS: readonly string[] = [
  "/run/dbus",
  "/var/run/dbus",
  "/run/systemd/private",
  "/run/docker.sock",
  "/var/run/docker.sock",
  "/run/containerd",
  "/run/podman",
];

/**
 * Every path a confined process must not see: the user's secrets under `userHome`, scv's instance home, the
 * configuration files scv read, the user's runtime folder (session bus, agents) and the escape sockets.
 */
export function hiddenPaths(options: {
  userHome: string;
  scvHome: string;
  configFiles?: readonly string[];
  env?: Record<string, string | undefined>;
}): string[] {
  const runtime = options.env?.XDG_RUNTIME_DIR;
  return [
    ...HOME_SECRETS.map((name) => join(options.userHome, name)),
    options.scvHome,
    ...(options.configFiles ?? []),
    ...(runtime !== undefined && runtime.startsWith("/") ? [runtime] : []),
    ...ESCAPE_SOCKETS,
  ];
}
