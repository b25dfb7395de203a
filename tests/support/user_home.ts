// A user's home for the command sandbox's tests: a fresh folder outside /tmp (a confined process's /tmp is its own)
// holding an SSH key no confined process may read, and a folder beside it no sandbox may write.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import path from "node:path";

/** Makes the home under `outside`, with `secret` as the key's content. */
export function userHome(outside: string, secret: string): { home: string; target: string } {
  const home = mkdtempSync(path.join(outside, "home-"));
  mkdirSync(path.join(home, ".ssh"), { mode: 0o700 });
  writeFileSync(path.join(home, ".ssh", "id_ed25519"), `${secret}\n`, { mode: 0o600 });
  const target = path.join(home, "elsewhere");
  mkdirSync(target);
  return { home, target };
}
