// The npm packages of a release, as @openai/codex ships them: a launcher package whose optional
// dependencies are one package per platform (npm installs only the one whose `os`/`cpu` match), each
// holding that platform's binary. The launcher replaces itself with the binary.
import { execFileSync } from "node:child_process";
import { chmod, copyFile, mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { VERSION } from "../../lib/version.ts";
import { RELEASE_TARGETS, type ReleaseTarget } from "./targets.ts";

export const LAUNCHER_PACKAGE = "@scv-agent/scv";
export const platformPackage = (target: ReleaseTarget): string => `${LAUNCHER_PACKAGE}-${target.name}`;

export interface NpmPackagesOptions {
  outDir: string;
  workDir: string;
  /** target name → built binary; targets not built get no platform package. */
  binaries: Map<string, string>;
}

/** Writes and packs the launcher and the platform packages; returns the tarballs. */
export async function buildNpmPackages(options: NpmPackagesOptions): Promise<string[]> {
  await rm(options.workDir, { recursive: true, force: true });
  await mkdir(options.outDir, { recursive: true });
  const tarballs: string[] = [];
  const built = RELEASE_TARGETS.filter((target) => options.binaries.has(target.name));
  for (const target of built) {
    const dir = join(options.workDir, target.name);
    await mkdir(join(dir, "bin"), { recursive: true });
    const binary = join(dir, "bin", target.executable);
    await copyFile(options.binaries.get(target.name)!, binary);
    await chmod(binary, 0o755);
    await writeJson(join(dir, "package.json"), {
      name: platformPackage(target),
      version: VERSION,
      description: `The scv binary for ${target.name}`,
      os: [target.os],
      cpu: [target.cpu],
      files: ["bin"],
    });
    tarballs.push(pack(dir, options.outDir));
  }
  const launcher = join(options.workDir, "launcher");
  await mkdir(join(launcher, "bin"), { recursive: true });
  await writeJson(join(launcher, "package.json"), {
    name: LAUNCHER_PACKAGE,
    version: VERSION,
    description: "scv, a coding agent: chat, exec, the agent protocol server and the Codex code-mode host",
    bin: { scv: "bin/scv.js" },
    files: ["bin"],
    engines: { node: ">=18" },
    optionalDependencies: Object.fromEntries(RELEASE_TARGETS.map((target) => [platformPackage(target), VERSION])),
  });
  await writeFile(join(launcher, "bin", "scv.js"), launcherSource(), { mode: 0o755 });
  tarballs.unshift(pack(launcher, options.outDir));
  return tarballs;
}

function pack(dir: string, outDir: string): string {
  const name = execFileSync("npm", ["pack", "--silent", "--pack-destination", outDir], { cwd: dir, encoding: "utf8" })
    .trim();
  return join(outDir, name.split("\n").at(-1)!);
}

const writeJson = (path: string, value: unknown) => writeFile(path, `${JSON.stringify(value, null, 2)}\n`);

/** bin/scv.js: find this platform's package, then become its binary (execve) or run it and pass everything on. */
function launcherSource(): string {
  const targets = Object.fromEntries(
    RELEASE_TARGETS.map((target) => [target.name, [platformPackage(target), target.executable]]),
  );
  return `#!/usr/bin/env node
"use strict";
const { spawn } = require("node:child_process");
const { dirname, join } = require("node:path");
const TARGETS = ${JSON.stringify(targets)};
const os = process.platform === "win32" ? "win" : process.platform;
const target = os + "-" + process.arch;
const entry = TARGETS[target];
if (entry === undefined) {
  process.stderr.write("scv: no build for " + target + "; the builds are " + Object.keys(TARGETS).join(", ") + "\\n");
  process.exit(1);
}
let binary;
try {
  binary = join(dirname(require.resolve(entry[0] + "/package.json")), "bin", entry[1]);
} catch {
  process.stderr.write(
    "scv: the package " + entry[0] + " with the " + target + " binary is not installed.\\n" +
      "npm skips optional dependencies with --omit=optional or --no-optional; reinstall without it:\\n" +
      "  npm install -g ${LAUNCHER_PACKAGE}\\n",
  );
  process.exit(1);
}
const args = process.argv.slice(2);
if (typeof process.execve === "function" && process.platform !== "win32") {
  process.execve(binary, [binary, ...args], process.env);
}
const child = spawn(binary, args, { stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => child.kill(signal));
}
child.on("error", (error) => {
  process.stderr.write("scv: could not start " + binary + ": " + error.message + "\\n");
  process.exit(1);
});
child.on("exit", (code, signal) => {
  if (signal !== null) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  } else {
    process.exit(code ?? 1);
  }
});
`;
}
