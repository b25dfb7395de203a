// A configuration file replaced in one step: written to a new file beside it (created exclusively, with `mode`,
// synced) and renamed over it, so a reader sees the old text or the new, never a part.
import { constants } from "node:fs";
import { open, rename, unlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import { describeFsError } from "./fs_error.ts";
import { ConfigError } from "./types.ts";

export async function writeAtomically(path: string, text: string, mode: number): Promise<void> {
  const temporary = join(dirname(path), `.config.toml.${process.pid}.${Date.now()}.tmp`);
  try {
    const handle = await open(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, mode);
    try {
      await handle.writeFile(text, "utf8");
      await handle.chmod(mode);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
  } catch (error) {
    await unlink(temporary).catch(() => {});
    throw new ConfigError(`write configuration ${path}: ${describeFsError(error)}`);
  }
}
