import { constants } from "node:fs";
import { open } from "node:fs/promises";

/** Makes a new directory entry durable; failures only cost durability, never correctness. */
export async function syncDirectory(dir: string): Promise<void> {
  try {
    const handle = await open(dir, constants.O_RDONLY | constants.O_DIRECTORY);
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // some file systems refuse fsync on directories
  }
}
