// A file replaced in one step: the new bytes go to a file beside it, renamed over it, so a reader sees the old file or
// the new one, never a part. Not synced: for files that can be made again (indexes, packs of snapshots).
import { renameSync, rmSync, writeFileSync } from "node:fs";

/** Replaces `path` with `data` (permission bits `mode`); the file beside it is removed when anything fails. */
export function replaceFileSync(path: string, data: string | Uint8Array, mode: number): void {
  const temporary = `${path}.${process.pid}.tmp`;
  // A crashed process with this pid may have left one, read-only perhaps: it would refuse the write.
  rmSync(temporary, { force: true });
  try {
    writeFileSync(temporary, data, { mode });
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}
