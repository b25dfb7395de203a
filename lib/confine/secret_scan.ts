// Secret-like files inside the writable folders (lib/policy's list: `.env`, keys, …), found by a
// bounded walk before each command so that a confined process can neither read nor replace them. The walk is
// shallow on purpose: it runs before every command. It looks at the folder itself and two levels below it
// (`./.env`, `./pkg/.env`, `./apps/web/.env`), at most SCAN_ENTRY_LIMIT entries, does not enter `node_modules`,
// `.git` or any folder that is itself secret-like (that one is hidden whole), and follows no symbolic link. A secret
// deeper down is not hidden; docs/security.md says so. `.git/config` stays readable (read-only): git cannot work
// without it, and without a network a token in a remote's URL has nowhere to go.
import { type Dirent, readdirSync } from "node:fs";
import { join } from "node:path";
import { isSecretLikePath } from "../policy/index.ts";

/** Folders below a writable root that are looked into: the root is level 0. */
export const SCAN_DEPTH = 2;
/** Directory entries looked at per writable root, at most. */
export const SCAN_ENTRY_LIMIT = 4096;
const NOT_ENTERED = new Set(["node_modules", ".git"]);

export type ScanResult = {
  /** Absolute paths of secret-like entries (files and folders), as found (not resolved). */
  found: string[];
  /** True when the entry limit cut the walk short. */
  cut: boolean;
};

export function scanSecrets(root: string): ScanResult {
  const found: string[] = [];
  let budget = SCAN_ENTRY_LIMIT;
  let cut = false;
  const walk = (dir: string, relative: string, depth: number): void => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (budget-- <= 0) {
        cut = true;
        return;
      }
      const path = join(dir, entry.name);
      const rel = relative === "" ? entry.name : `${relative}/${entry.name}`;
      if (isSecretLikePath(rel)) {
        found.push(path);
        continue;
      }
      if (entry.isDirectory() && depth < SCAN_DEPTH && !NOT_ENTERED.has(entry.name)) walk(path, rel, depth + 1);
    }
  };
  walk(root, "", 0);
  return { found, cut };
}
