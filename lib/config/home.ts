// The instance home of spec §7.1: `--scv-home`, else `SCV_HOME`, else `~/.scv`.
import { chmod, mkdir, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { describeFsError } from "./fs_error.ts";
import { ConfigError } from "./types.ts";

type Env = Record<string, string | undefined>;

/** The user's home directory: `HOME` when set, else the OS answer. */
export function userHome(env: Env): string {
  const home = env.HOME;
  return home !== undefined && home !== "" ? home : homedir();
}

/** Expands a leading `~` or `~/` to the user's home; other paths are returned unchanged. */
export function expandTilde(path: string, env: Env): string {
  if (path === "~") return userHome(env);
  if (path.startsWith("~/")) return join(userHome(env), path.slice(2));
  return path;
}

export function resolveHome(flag: string | undefined, env: Env): { home: string; explicit: boolean } {
  if (flag !== undefined && flag !== "") return { home: resolve(expandTilde(flag, env)), explicit: true };
  const fromEnv = env.SCV_HOME;
  if (fromEnv !== undefined && fromEnv !== "") return { home: resolve(expandTilde(fromEnv, env)), explicit: true };
  return { home: resolve(userHome(env), ".scv"), explicit: false };
}

/**
 * Creates the home if missing and makes it private (0700), also when it already existed; an existing
 * home that others could read is tightened with a warning, not silently.
 */
export async function ensureHome(home: string, warn: (message: string) => void = () => {}): Promise<void> {
  try {
    await mkdir(home, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new ConfigError(`create instance home ${home}: ${describeFsError(error)}`);
  }
  const mode = (await stat(home).catch(() => undefined))?.mode;
  if (mode !== undefined && (mode & 0o077) !== 0) {
    const octal = (mode & 0o777).toString(8).padStart(3, "0");
    warn(`instance home ${home} was readable by group or others (mode ${octal}); changed it to 700`);
  }
  try {
    await chmod(home, 0o700);
  } catch (error) {
    throw new ConfigError(`secure instance home ${home}: ${describeFsError(error)}`);
  }
}
