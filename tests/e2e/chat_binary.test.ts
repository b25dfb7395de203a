// `dist/scv chat --demo` from a directory with no checkout: the demo script and workspace are embedded in the
// bundle. Compiles only when dist/scv is missing or older than its sources (tests/e2e/binary.test.ts always does).
import { spawn } from "node:child_process";
import { copyFile, mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VERSION } from "../../lib/version.ts";
import { BINARY, compileBinary } from "../../scripts/compile.ts";
import { UNDER_DENO } from "../support/cli_command.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
let dir = "";
let binary = "";

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
  for (const path of ["main.ts", "lib", "scripts/build.ts", "scripts/compile.ts", "package-lock.json"]) await visit(join(ROOT, path));
  return newest;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const DIST = join(ROOT, "dist");

async function newestDistChange(): Promise<number> {
  let newest = 0;
  for (const name of ["scv", "scv.cjs", "sea-prep.blob"]) {
    const path = join(DIST, name);
    if (existsSync(path)) newest = Math.max(newest, (await stat(path)).mtimeMs);
  }
  return newest;
}

const isFresh = async () => existsSync(BINARY) && (await stat(BINARY)).mtimeMs >= (await newestSource());

/**
 * Compiles dist/scv when it is missing or stale, unless another test (tests/e2e/binary.test.ts compiles on every
 * run) is already doing it: two compilers writing dist/ at once would break each other's binary.
 */
async function ensureFreshBinary(): Promise<void> {
  if (await isFresh()) return;
  const since = Date.now();
  await sleep(3000);
  if ((await newestDistChange()) >= since) {
    const deadline = Date.now() + 180_000;
    while (!(await isFresh()) && Date.now() < deadline) await sleep(500);
    await sleep(1500); // let its injection finish
    if (await isFresh()) return;
  }
  await compileBinary();
}

/** A private copy of a fresh dist/scv (another test may recompile dist/scv meanwhile: retry until the copy works). */
async function freshBinaryCopy(): Promise<string> {
  const copy = join(dir, "scv");
  for (let attempt = 0; attempt < 5; attempt += 1) {
    await ensureFreshBinary();
    await copyFile(BINARY, copy);
    const version = spawnSync(copy, ["--version"], { cwd: dir, env: {}, timeout: 15_000 });
    if (version.status === 0 && version.stdout.toString().trim() === VERSION) return copy;
    await sleep(2000);
  }
  throw new Error(`could not get a working copy of ${BINARY}`);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "scv-chat-binary-"));
  binary = await freshBinaryCopy();
}, 400_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

// Node only by nature: the binary is a Node single-executable application (and its bundle a Node script), so
// SCV_TEST_RUNTIME=deno has nothing to run here; `deno compile` needs a runtime download offline builds cannot get.
describe.skipIf(UNDER_DENO)("compiled binary: scv chat --demo", () => {
  it("plays the embedded demo from a directory with no checkout, offline", async () => {
    const child = spawn(binary, ["chat", "--demo"], {
      cwd: dir,
      env: { HOME: dir, PATH: "/usr/bin:/bin", SCV_DEMO_PACING: "off" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    child.stdin.end();
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    clearTimeout(timer);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout).toContain("offline demo (recorded responses, no network)");
    expect(stdout).toContain("⏺ read README.md");
    expect(stdout).toContain("ok 3 - README present");
    expect(stdout).toContain("[demo] finished");
    expect(existsSync(join(dir, "examples"))).toBe(false);
  });
});
