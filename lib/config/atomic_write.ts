// A configuration file edited in one step: read with its mode (from one descriptor), then written to a new file
// beside it (created exclusively, with that mode, synced) and renamed over it, so a reader sees the old text or the
// new, never a part.
import { constants } from "node:fs";
import { open, rename, unlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import { describeFsError } from "./fs_error.ts";
import { ConfigError } from "./types.ts";

/** The file's text and permission bits, or no text (and 0600, for the file to create) when it does not exist. */
export async function readForEdit(path: string): Promise<{ text: string | undefined; mode: number }> {
  let handle;
  try {
    handle = await open(path, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { text: undefined, mode: 0o600 };
    throw new ConfigError(`read configuration ${path}: ${describeFsError(error)}`);
  }
  try {
    return { text: await handle.readFile("utf8"), mode: (await handle.stat()).mode & 0o777 };
  } catch (error) {
    throw new ConfigError(`read configuration ${path}: ${describeFsError(error)}`);
  } finally {
    await handle.close();
  }
}

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
