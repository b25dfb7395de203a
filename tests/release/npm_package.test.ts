// The npm packages: the launcher and a platform package, packed, installed offline into a temporary
// prefix as a user's npm would, and run. A stand-in binary proves argument and exit-code passing and
// the missing-platform message; the real packages (when npm run release built them) run a host cell.
import { execFile, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { currentTarget } from "../../lib/build_info.ts";
import { VERSION } from "../../lib/version.ts";
import { buildNpmPackages, LAUNCHER_PACKAGE } from "../../scripts/release/npm_packages.ts";
import { HANG_MS } from "../support/wait.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const REAL_RELEASE = join(ROOT, "dist", "release");
const run = promisify(execFile);

let work: string;
beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), "scv-npm-"));
});
afterEach(async () => {
  await rm(work, { recursive: true, force: true });
});

async function npmInstall(prefix: string, tarballs: string[], extra: string[] = []): Promise<void> {
  await run("npm", [
    "install",
    "--prefix",
    prefix,
    "--offline",
    "--no-audit",
    "--no-fund",
    "--loglevel=error",
    ...extra,
    ...tarballs,
  ], {
    env: { ...process.env, npm_config_cache: join(work, "npm-cache") },
  });
}

describe.skipIf(process.platform === "win32")("the npm launcher", () => {
  it("installs from the packed tarballs and becomes the platform binary (arguments, exit code)", async () => {
    const standIn = join(work, "stand-in");
    await writeFile(standIn, '#!/bin/sh\necho "args:$*"\nexit 7\n', { mode: 0o755 });
    const out = join(work, "packages");
    const tarballs = await buildNpmPackages({
      outDir: out,
      workDir: join(work, "build"),
      binaries: new Map([[currentTarget(), standIn]]),
    });
    expect(tarballs).toHaveLength(2);
    expect((await readdir(out)).sort()).toEqual(
      [`scv-agent-scv-${VERSION}.tgz`, `scv-agent-scv-${currentTarget()}-${VERSION}.tgz`].sort(),
    );
    const prefix = join(work, "prefix");
    await npmInstall(prefix, tarballs);
    const result = spawnSync(join(prefix, "node_modules", ".bin", "scv"), ["--version", "a b"], { encoding: "utf8" });
    expect(result.stdout).toBe("args:--version a b\n");
    expect(result.status).toBe(7);
  });

  it("says how to fix a missing platform package", async () => {
    const tarballs = await buildNpmPackages({
      outDir: join(work, "packages"),
      workDir: join(work, "build"),
      binaries: new Map(),
    });
    const prefix = join(work, "prefix");
    await npmInstall(prefix, tarballs, ["--omit=optional"]);
    const result = spawnSync(join(prefix, "node_modules", ".bin", "scv"), ["--version"], { encoding: "utf8" });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(
      `the package ${LAUNCHER_PACKAGE}-${currentTarget()} with the ${currentTarget()} binary is not installed`,
    );
    expect(result.stderr).toContain(`npm install -g ${LAUNCHER_PACKAGE}`);
  });

  const realPlatform = join(REAL_RELEASE, `scv-agent-scv-${currentTarget()}-${VERSION}.tgz`);
  it.skipIf(!existsSync(realPlatform))("the real packages run --version and a host cell", async () => {
    const prefix = join(work, "prefix");
    await npmInstall(prefix, [join(REAL_RELEASE, `scv-agent-scv-${VERSION}.tgz`), realPlatform]);
    const scv = join(prefix, "node_modules", ".bin", "scv");
    expect(spawnSync(scv, ["--version"], { encoding: "utf8" }).stdout.trim()).toBe(VERSION);
    const smoke = spawnSync(process.execPath, [join(ROOT, "scripts", "smoke_host.ts"), scv, "host"], {
      encoding: "utf8",
      timeout: HANG_MS,
    });
    expect(smoke.stdout).toContain("ran a sandboxed cell");
  });
});
