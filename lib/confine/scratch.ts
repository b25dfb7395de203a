// This process's own folder on the host for confining commands, made on first use and removed at exit: the empty
// file that stands in for a hidden file (mode 000, so reading it fails instead of reading as empty) and the staging
// folder of the unshare back end.
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export type Scratch = {
  /** An empty file no one without capabilities can read (mode 000). */
  hiddenFile: string;
  /** An empty folder a namespace mounts its staging root on. */
  stage: string;
};

let scratch: Scratch | undefined;

export function scratchFolder(): Scratch {
  if (scratch === undefined) {
    const root = realpathSync(mkdtempSync(join(tmpdir(), "scv-confine-")));
    process.once("exit", () => rmSync(root, { recursive: true, force: true }));
    const hiddenFile = join(root, "hidden");
    writeFileSync(hiddenFile, "", { mode: 0 });
    chmodSync(hiddenFile, 0);
    const stage = join(root, "stage");
    mkdirSync(stage, { mode: 0o700 });
    scratch = { hiddenFile, stage };
  }
  return scratch;
}
