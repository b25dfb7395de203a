// The standalone binary for the tests that run it (tests/e2e/binary.test.ts, chat_binary.test.ts): compiled at
// most once per suite run, whichever test file asks first, and only when dist/scv is missing or older than its
// sources. A lock directory keeps two test workers from compiling into dist/ at the same time (each would break
// the other's binary), and nobody uses dist/scv while a compile holds the lock.
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { BINARY, compileBinary } from "../../scripts/compile.ts";
import { ROOT } from "./cli_command.ts";
import { HANG_MS, waitFor } from "./wait.ts";
import { alive } from "./process_alive.ts";

const LOCK = join(ROOT, "dist", ".test-compile.lock");
// A compile takes minutes on a busy machine.
const COMPILE_TIMEOUT_MS = 2 * HANG_MS;
const SOURCES = ["main.ts", "lib", "scripts/build.ts", "scripts/compile.ts", "package-lock.json"];

async function newestSource(): Promise<number> {
  let newest = 0;
  const visit = async (path: string): Promise<void> => {
    const info = await stat(path);
    if (info.isDirectory()) {
      for (const entry of await readdir(path)) await visit(join(path, entry));
    } else if (path.endsWith(".ts") || path.endsWith(".json")) {
      newest = Math.max(newest, info.mtimeMs);
    }
  };
  for (const path of SOURCES) await visit(join(ROOT, path));
  return newest;
}

async function isFresh(): Promise<boolean> {
  return existsSync(BINARY) && (await stat(BINARY)).mtimeMs >= (await newestSource());
}

/** Takes the lock, or returns false when a live process holds it (a dead holder's lock is removed). */
async function tryLock(): Promise<boolean> {
  await mkdir(join(ROOT, "dist"), { recursive: true });
  try {
    await mkdir(LOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    const holder = Number(await readFile(join(LOCK, "pid"), "utf8").catch(() => ""));
    // No pid yet: the holder is between mkdir and writeFile; treat it as alive.
    if (holder > 0 && !alive(holder)) await rm(LOCK, { recursive: true, force: true });
    return false;
  }
  await writeFile(join(LOCK, "pid"), String(process.pid));
  return true;
}

/** The path of a dist/scv compiled from this checkout's current sources. */
export async function freshBinary(): Promise<string> {
  for (;;) {
    if (await tryLock()) {
      try {
        if (!(await isFresh())) await compileBinary();
        return BINARY;
      } finally {
        await rm(LOCK, { recursive: true, force: true });
      }
    }
    await waitFor(() => !existsSync(LOCK), {
      timeoutMs: COMPILE_TIMEOUT_MS,
      intervalMs: 200,
      what: `another test's compile of ${BINARY} (lock ${LOCK})`,
    });
  }
}
