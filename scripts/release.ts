// `npm run release [-- --targets linux-x64,win-x64]`: builds scv-<version>-<target>.tar.gz (.zip for
// Windows) for each release target into dist/release/, with SHA256SUMS, install.sh and the npm
// packages. Each target's Node is fetched from the npm registry at one pinned version and verified.
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFile, link, mkdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { VERSION } from "../lib/version.ts";
import { buildBundle, ROOT } from "./build.ts";
import { compileBinary } from "./compile.ts";
import { fetchNode, fetchNodeLicense } from "./release/fetch_node.ts";
import { NOTICES_FILE } from "./release/notices.ts";
import { signMachOAdHoc, verifyMachOSignature } from "./release/macho.ts";
import { checkReleaseBase, releaseInstaller } from "./release/installer.ts";
import { buildNpmPackages } from "./release/npm_packages.ts";
import { removePeSignature } from "./release/pe.ts";
import { findTarget, RELEASE_NODE_VERSION, RELEASE_TARGETS, type ReleaseTarget } from "./release/targets.ts";

export const RELEASE_DIR = join(ROOT, "dist", "release");
const CACHE_DIR = join(ROOT, "dist", "release-cache");
const WORK_DIR = join(ROOT, "dist", "release-work");
const HOST_ALIAS = "codex-code-mode-host";

export interface ReleaseOptions {
  targets: ReleaseTarget[];
}

export async function release(options: ReleaseOptions): Promise<string[]> {
  if (process.versions.node !== RELEASE_NODE_VERSION) {
    throw new Error(
      `the release is built with Node ${RELEASE_NODE_VERSION} (a SEA blob must come from the Node it goes into); this is ${process.version}: run it through npm run release`,
    );
  }
  // Checked before the long build: install.sh is written last.
  if (process.env.SCV_RELEASE_BASE_URL) checkReleaseBase(process.env.SCV_RELEASE_BASE_URL);
  await rm(RELEASE_DIR, { recursive: true, force: true });
  await rm(WORK_DIR, { recursive: true, force: true });
  await mkdir(RELEASE_DIR, { recursive: true });
  const bundle = await buildBundle();
  const archives: string[] = [];
  const binaries = new Map<string, string>();
  for (const target of options.targets) {
    const binary = await buildTarget(target, bundle);
    binaries.set(target.name, binary);
    archives.push(await archive(target, binary));
  }
  const packages = await buildNpmPackages({ outDir: RELEASE_DIR, workDir: join(WORK_DIR, "npm"), binaries });
  // install.sh carries SHA256SUMS's digest, so SHA256SUMS cannot list install.sh.
  const checksums = await writeChecksums(archives);
  await writeInstaller(join(RELEASE_DIR, "install.sh"), checksums);
  for (const file of [...archives, ...packages]) {
    process.stderr.write(`release: ${file} (${((await stat(file)).size / 1024 / 1024).toFixed(1)} MiB)\n`);
  }
  return archives;
}

async function buildTarget(target: ReleaseTarget, bundle: string): Promise<string> {
  const node = await fetchNode(target, CACHE_DIR);
  const dir = join(WORK_DIR, target.name);
  await mkdir(dir, { recursive: true });
  const base = join(dir, `node${target.format === "pe" ? ".exe" : ""}`);
  if (target.format === "pe") {
    // The Authenticode signature would be broken by the injection: the release is plainly unsigned.
    await writeFile(base, removePeSignature(await readFile(node)));
  } else {
    if (target.format === "macho") verifyMachOSignature(await readFile(node)); // the official build is intact
    await copyFile(node, base);
  }
  const output = join(dir, target.executable);
  await compileBinary({
    node: base,
    output,
    target: target.name,
    bundle,
    cacheRunner: cacheRunnerFor(target, base),
    strip: target.format === "elf",
    macho: target.format === "macho",
  });
  if (target.format === "macho") {
    const signed = signMachOAdHoc(await readFile(output), "scv");
    verifyMachOSignature(signed);
    await writeFile(output, signed, { mode: 0o755 });
  }
  return output;
}

/** Code caches need the target's own V8: native here, arm64 Linux under qemu-user when it is installed. */
function cacheRunnerFor(target: ReleaseTarget, node: string): string[] | null {
  const native = `${process.platform === "win32" ? "win" : process.platform}-${process.arch}`;
  if (target.name === native) return [node];
  if (target.name === "linux-arm64") {
    const sysroot = "/usr/aarch64-linux-gnu";
    const runner = ["qemu-aarch64", "-L", sysroot, node];
    // The emulated Node must start (its shared libraries come from the arm64 cross packages).
    if (
      commandExists("qemu-aarch64") &&
      spawnSync(runner[0]!, [...runner.slice(1), "--version"], { stdio: "ignore" }).status === 0
    ) {
      return runner;
    }
    process.stderr.write(
      "release: linux-arm64 without code caches (install qemu-user, libstdc++6-arm64-cross and libatomic1-arm64-cross to make them)\n",
    );
  }
  return null;
}

function commandExists(command: string): boolean {
  return spawnSync("sh", ["-c", `command -v ${command}`], { stdio: "ignore" }).status === 0;
}

async function archive(target: ReleaseTarget, binary: string): Promise<string> {
  const name = `scv-${VERSION}-${target.name}`;
  const dir = join(WORK_DIR, "archives", name);
  await mkdir(dir, { recursive: true });
  const executable = join(dir, target.executable);
  await copyFile(binary, executable);
  const alias = join(dir, `${HOST_ALIAS}${target.format === "pe" ? ".exe" : ""}`);
  // Codex runs `codex-code-mode-host` beside its own executable; the binary answers to that name.
  if (target.format === "pe") await copyFile(executable, alias);
  else await link(executable, alias);
  await copyFile(await fetchNodeLicense(CACHE_DIR), join(dir, "LICENSE.node"));
  await copyFile(join(ROOT, "dist", NOTICES_FILE), join(dir, NOTICES_FILE));
  await writeFile(join(dir, "README.md"), readmeStub(target));
  const parent = join(WORK_DIR, "archives");
  if (target.format === "pe") {
    const file = join(RELEASE_DIR, `${name}.zip`);
    execFileSync("zip", ["-q", "-X", "-9", "-r", file, name], { cwd: parent });
    return file;
  }
  const file = join(RELEASE_DIR, `${name}.tar.gz`);
  execFileSync("sh", ["-c", `tar --owner=0 --group=0 --numeric-owner -cf - "${name}" | gzip -9 > "${file}"`], {
    cwd: parent,
  });
  return file;
}

function readmeStub(target: ReleaseTarget): string {
  const exe = target.executable;
  return `# scv ${VERSION} (${target.name})

scv is a coding agent: \`${exe} chat\` (terminal), \`${exe} exec "PROMPT"\` (one turn),
\`${exe} server --stdio\` (the agent protocol for editors) and \`${exe} host\` (the code-mode host for
the Codex CLI; \`${HOST_ALIAS}\` is the same binary under the name Codex looks for).

Put \`${exe}\` on your PATH, set OPENAI_API_KEY or configure a provider in ~/.scv/config.toml, and run
\`${exe} --help\`. \`${exe} chat --demo\` plays an offline demo. \`${exe} version\` says what you run.

The binary embeds Node.js ${RELEASE_NODE_VERSION}; its license is in LICENSE.node. The npm packages it
bundles, with their licenses, are listed in ${NOTICES_FILE}.
${target.format === "pe" ? "\nThis Windows build is not code-signed.\n" : ""}${
    target.format === "macho"
      ? "\nThis macOS build carries an ad-hoc signature and is not notarized: it was built and checked on Linux.\n"
      : ""
  }`;
}

/**
 * install.sh with this release's version and SHA256SUMS digest and, when SCV_RELEASE_BASE_URL is set, the
 * https URL it will be served from.
 */
async function writeInstaller(file: string, checksumsDigest: string): Promise<void> {
  const base = process.env.SCV_RELEASE_BASE_URL;
  const installer = await releaseInstaller({ version: VERSION, checksumsDigest, ...(base ? { base } : {}) });
  await writeFile(file, installer, { mode: 0o755 });
  process.stderr.write(`release: install.sh checks SHA256SUMS against sha256 ${checksumsDigest}\n`);
}

/** Writes SHA256SUMS for `files` and returns its own SHA-256. */
async function writeChecksums(files: string[]): Promise<string> {
  const lines: string[] = [];
  for (const file of files) {
    const digest = createHash("sha256").update(await readFile(file)).digest("hex");
    lines.push(`${digest}  ${file.slice(RELEASE_DIR.length + 1)}`);
  }
  const checksums = `${lines.join("\n")}\n`;
  await writeFile(join(RELEASE_DIR, "SHA256SUMS"), checksums);
  return createHash("sha256").update(checksums).digest("hex");
}

function parseTargets(argv: string[]): ReleaseTarget[] {
  const index = argv.indexOf("--targets");
  if (index === -1) return RELEASE_TARGETS;
  const list = argv[index + 1];
  if (list === undefined) throw new Error("--targets needs a comma-separated list, e.g. linux-x64,win-x64");
  return list.split(",").map((name) => findTarget(name.trim()));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    await release({ targets: parseTargets(process.argv.slice(2)) });
  } catch (error) {
    process.stderr.write(`release: ${(error as Error).message}\n`);
    process.exitCode = 1;
  }
}
