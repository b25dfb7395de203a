// install.sh end to end: a release folder served on 127.0.0.1, the installer run as a user would
// (SCV_DOWNLOAD_BASE, SCV_INSTALL_DIR), then again with a tampered archive, which must install nothing.
// The archive holds a stand-in binary unless CI built the real linux-x64 release first (npm run release).
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { chmod, copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { VERSION } from "../../lib/version.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const INSTALLER = join(ROOT, "scripts", "release", "install.sh");
const REAL_ARCHIVE = join(ROOT, "dist", "release", `scv-${VERSION}-linux-x64.tar.gz`);
const target = `linux-${process.arch === "arm64" ? "arm64" : "x64"}`;
const archiveName = `scv-${VERSION}-${target}.tar.gz`;

let work: string;
let server: Server;
let base: string;
const requests: string[] = [];

beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), "scv-installer-"));
  await mkdir(join(work, "release"));
  requests.length = 0;
  server = createServer(async (request, response) => {
    requests.push(request.url ?? "");
    const file = join(work, "release", (request.url ?? "/").slice(1));
    if (!existsSync(file) || file.includes("..")) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200).end(await readFile(file));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address() as { port: number };
  base = `http://127.0.0.1:${address.port}`;
});

afterEach(async () => {
  await new Promise((resolve) => server.close(resolve));
  await rm(work, { recursive: true, force: true });
});

/** A release folder whose archive holds `binary` (a stand-in script or the real scv). */
async function writeRelease(binary: { script?: string; file?: string }): Promise<void> {
  const name = `scv-${VERSION}-${target}`;
  const staging = join(work, "staging", name);
  await mkdir(staging, { recursive: true });
  if (binary.file !== undefined) await copyFile(binary.file, join(staging, "scv"));
  else await writeFile(join(staging, "scv"), binary.script!);
  await chmod(join(staging, "scv"), 0o755);
  execFileSync("tar", ["-czf", join(work, "release", archiveName), "-C", join(work, "staging"), name]);
  await writeChecksums();
}

async function writeChecksums(): Promise<void> {
  const digest = createHash("sha256").update(await readFile(join(work, "release", archiveName))).digest("hex");
  await writeFile(join(work, "release", "SHA256SUMS"), `${"0".repeat(64)}  other.tar.gz\n${digest}  ${archiveName}\n`);
}

/** Runs the installer (asynchronously: the release server answers from this same process). */
function install(extraEnv: Record<string, string> = {}): Promise<{ status: number | null; stderr: string }> {
  const child = spawn("sh", [INSTALLER], {
    stdio: ["ignore", "ignore", "pipe"],
    env: {
      PATH: "/usr/bin:/bin",
      HOME: work,
      TMPDIR: work,
      SCV_DOWNLOAD_BASE: base,
      SCV_VERSION: VERSION,
      SCV_INSTALL_DIR: join(work, "bin"),
      ...extraEnv,
    },
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  return new Promise((resolve) => child.on("close", (status) => resolve({ status, stderr })));
}

const STAND_IN = `#!/bin/sh\necho "${VERSION}"\n`;

describe("install.sh", () => {
  it("downloads, verifies, installs atomically, runs --version and says how to reach it", async () => {
    await writeRelease({ script: STAND_IN });
    const result = await install();
    expect(result.stderr).toContain(`installed ${VERSION}`);
    expect(result.status).toBe(0);
    expect(requests).toEqual(["/SHA256SUMS", `/${archiveName}`]);
    expect(execFileSync(join(work, "bin", "scv"), { encoding: "utf8" }).trim()).toBe(VERSION);
    expect(result.stderr).toContain(`${join(work, "bin")} is not on your PATH`);
    // No temporary file is left beside the binary.
    expect(execFileSync("ls", ["-A", join(work, "bin")], { encoding: "utf8" }).trim()).toBe("scv");
  });

  it("refuses a tampered archive and installs nothing", async () => {
    await writeRelease({ script: STAND_IN });
    const archive = join(work, "release", archiveName);
    const bytes = await readFile(archive);
    bytes[bytes.length - 10] = bytes[bytes.length - 10]! ^ 0xff;
    await writeFile(archive, bytes);
    const result = await install();
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/checksum mismatch for .*nothing was installed/);
    expect(existsSync(join(work, "bin", "scv"))).toBe(false);
  });

  it("keeps the installed binary when the new download is tampered", async () => {
    await writeRelease({ script: STAND_IN });
    expect((await install()).status).toBe(0);
    await writeRelease({ script: `#!/bin/sh\necho evil\n` });
    await writeFile(join(work, "release", "SHA256SUMS"), `${"1".repeat(64)}  ${archiveName}\n`);
    expect((await install()).status).toBe(1);
    expect(execFileSync(join(work, "bin", "scv"), { encoding: "utf8" }).trim()).toBe(VERSION);
  });

  it("says what is missing: no base URL, no checksum entry, no server", async () => {
    expect((await install({ SCV_DOWNLOAD_BASE: "" })).stderr).toContain("set SCV_DOWNLOAD_BASE");
    await writeRelease({ script: STAND_IN });
    await writeFile(join(work, "release", "SHA256SUMS"), `${"0".repeat(64)}  other.tar.gz\n`);
    expect((await install()).stderr).toContain(`SHA256SUMS lists no ${archiveName}`);
    const closed = await install({ SCV_DOWNLOAD_BASE: "http://127.0.0.1:9" });
    expect(closed.status).toBe(1);
    expect(closed.stderr).toContain("could not download http://127.0.0.1:9/SHA256SUMS");
  });

  it.skipIf(!existsSync(REAL_ARCHIVE) || target !== "linux-x64")(
    "installs the real linux-x64 release archive (built by npm run release)",
    async () => {
      await copyFile(REAL_ARCHIVE, join(work, "release", archiveName));
      await writeChecksums();
      const result = await install();
      expect(result.stderr).toContain(`installed ${VERSION}`);
      const version = spawnSync(join(work, "bin", "scv"), ["version"], { encoding: "utf8", env: {} });
      expect(version.stdout).toContain("target: linux-x64");
    },
  );
});
