// One writer at a time for a file that several sessions and processes edit (the user config): a lock file
// created exclusively next to it (`<file>.lock`), and a queue for the writers of this process. A lock left by a
// process that died is taken over once it is older than STALE_MS; waiting for it sleeps, it never spins.
import { open, stat, unlink } from "node:fs/promises";
import { describeFsError } from "./fs_error.ts";
import { ConfigError } from "./types.ts";

const STALE_MS = 30_000;
const GIVE_UP_MS = 60_000;
const queues = new Map<string, Promise<unknown>>();

/** Runs `work` while holding `path`'s lock; the lock is released however `work` ends. */
export function withFileLock<T>(path: string, work: () => Promise<T>): Promise<T> {
  const before = queues.get(path) ?? Promise.resolve();
  const run = before.catch(() => undefined).then(() => holding(path, work));
  const settled = run.catch(() => undefined);
  queues.set(path, settled);
  void settled.then(() => {
    if (queues.get(path) === settled) queues.delete(path);
  });
  return run;
}

async function holding<T>(path: string, work: () => Promise<T>): Promise<T> {
  const lockPath = `${path}.lock`;
  await acquire(lockPath);
  try {
    return await work();
  } finally {
    await unlink(lockPath).catch(() => undefined);
  }
}

async function acquire(lockPath: string): Promise<void> {
  const started = Date.now();
  for (let attempt = 0;; attempt += 1) {
    try {
      const handle = await open(lockPath, "wx", 0o600);
      await handle.writeFile(`${process.pid}\n`);
      await handle.close();
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT") return; // No folder yet: the writer creates the file, nobody else can hold it.
      if (code !== "EEXIST") throw new ConfigError(`lock ${lockPath}: ${describeFsError(error)}`);
    }
    if (await stale(lockPath)) {
      await unlink(lockPath).catch(() => undefined);
      continue;
    }
    if (Date.now() - started > GIVE_UP_MS) {
      throw new ConfigError(
        `${lockPath} has been held for over ${GIVE_UP_MS / 1000} s: another scv is editing the file; remove the ` +
          "lock file if no scv is running",
      );
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(5 * 2 ** attempt, 200)));
  }
}

async function stale(lockPath: string): Promise<boolean> {
  try {
    return Date.now() - (await stat(lockPath)).mtimeMs > STALE_MS;
  } catch {
    return false; // Released meanwhile: the next attempt takes it.
  }
}
