// A file replaced in one step: the new bytes go to a file beside it, renamed over it, so a reader sees the old file or
// the new one, never a part. Not synced: for files that can be made again (indexes, packs of snapshots).
import { renameSync, rmSync, writeFileSync } from "node:fs";

/** Replaces `path` with `data` (permission bits `mode`); the file beside it is removed when anything fails. */
export function replaceFileSync(path: string, data: string | Uint8Array, mode: number): void {
  const temporary = `${path}.${process.pid}.tmp`;
  // A crashed process with this pid may have left one, read-only perhaps. The write then creates the file or fails
  // (O_EXCL): whatever appears there in between, a link included, is never written through.
  rmSync(temporary, { force: true });
  try {
    writeFileSync(temporary, data, { mode, flag: "wx" });
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}
