// install.sh end to end, the way an attacker between the user and the files would try it: a release folder
// served on 127.0.0.1 over https (a self-signed certificate the downloaders are told to trust) and over plain
// http, the installer rendered for that release as `npm run release` renders it, then run as a user would
// (SCV_DOWNLOAD_BASE, SCV_INSTALL_DIR) with curl, or with wget alone on PATH. The archive holds a stand-in
// binary unless CI built the real linux-x64 release first (npm run release), which is then installed with the
// release's own install.sh.
import { execFileSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { chmod, copyFile, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { VERSION } from "../../lib/version.ts";
import { INSTALLER_TEMPLATE, releaseInstaller, renderInstaller } from "../../scripts/release/installer.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const REAL_RELEASE = join(ROOT, "dist", "release");
const REAL_ARCHIVE = join(REAL_RELEASE, `scv-${VERSION}-linux-x64.tar.gz`);
const target = `linux-${process.arch === "arm64" ? "arm64" : "x64"}`;
const archiveName = `scv-${VERSION}-${target}.tar.gz`;
const HAS_WGET = existsSync("/usr/bin/wget");

let tls: string;
let wgetOnly: string;

beforeAll(async () => {
  tls = await mkdtemp(join(tmpdir(), "scv-installer-tls-"));
  execFileSync("openssl", [
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:prime256v1",
    "-nodes",
    "-subj",
    "/CN=127.0.0.1",
    "-addext",
    "subjectAltName=IP:127.0.0.1",
    "-days",
    "2",
    "-keyout",
    join(tls, "key.pem"),
    "-out",
    join(tls, "cert.pem"),
  ], { stdio: "ignore" });
  // wget reads its CA file from a wgetrc; curl from CURL_CA_BUNDLE.
  await writeFile(join(tls, "wgetrc"), `ca_certificate = ${join(tls, "cert.pem")}\n`);
  // A PATH with every program of /usr/bin but curl, so that the installer falls back to wget.
  wgetOnly = join(tls, "wget-only");
  await mkdir(wgetOnly);
  for (const name of readdirSync("/usr/bin")) {
    if (name !== "curl") await symlink(join("/usr/bin", name), join(wgetOnly, name));
  }
});

afterAll(async () => {
  await rm(tls, { recursive: true, force: true });
});

let work: string;
let https: Server;
let http: Server;
let httpsBase: string;
let httpBase: string;
/** `https /path` or `http /path`, in the order the servers saw them. */
const requests: string[] = [];
/** Path → Location: the https server answers 302 there instead of serving the file. */
const redirects = new Map<string, string>();
/** The release folder the servers serve (the real one for the CI test). */
let served: string;

function serveFrom(scheme: string) {
  return async (request: IncomingMessage, response: ServerResponse) => {
    const path = request.url ?? "/";
    requests.push(`${scheme} ${path}`);
    const location = scheme === "https" ? redirects.get(path) : undefined;
    if (location !== undefined) {
      response.writeHead(302, { location }).end();
      return;
    }
    const file = join(served, path.replace(/^\/moved\//, "/").slice(1));
    if (path.includes("..") || !existsSync(file)) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200).end(await readFile(file));
  };
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as { port: number }).port;
}

beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), "scv-installer-"));
  served = join(work, "release");
  await mkdir(served);
  requests.length = 0;
  redirects.clear();
  https = createHttpsServer(
    { key: await readFile(join(tls, "key.pem")), cert: await readFile(join(tls, "cert.pem")) },
    serveFrom("https"),
  );
  http = createHttpServer(serveFrom("http"));
  httpsBase = `https://127.0.0.1:${await listen(https)}`;
  httpBase = `http://127.0.0.1:${await listen(http)}`;
});

afterEach(async () => {
  for (const server of [https, http]) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  await rm(work, { recursive: true, force: true });
});

/** A release folder whose archive holds `binary` (a stand-in script or a real file), with its SHA256SUMS. */
async function writeRelease(binary: { script?: string; file?: string }, listed = true): Promise<void> {
  const name = `scv-${VERSION}-${target}`;
  const staging = join(work, "staging", name);
  await rm(join(work, "staging"), { recursive: true, force: true });
  await mkdir(staging, { recursive: true });
  if (binary.file !== undefined) await copyFile(binary.file, join(staging, "scv"));
  else await writeFile(join(staging, "scv"), binary.script!);
  await chmod(join(staging, "scv"), 0o755);
  execFileSync("tar", ["-czf", join(served, archiveName), "-C", join(work, "staging"), name]);
  const digest = createHash("sha256").update(await readFile(join(served, archiveName))).digest("hex");
  const entry = listed ? `${digest}  ${archiveName}\n` : "";
  await writeFile(join(served, "SHA256SUMS"), `${"0".repeat(64)}  other.tar.gz\n${entry}`);
}

/** install.sh for the release now in the folder, as `npm run release` writes it. */
async function writeInstaller(): Promise<string> {
  const digest = createHash("sha256").update(await readFile(join(served, "SHA256SUMS"))).digest("hex");
  const file = join(work, "install.sh");
  await writeFile(file, await releaseInstaller({ version: VERSION, checksumsDigest: digest }));
  return file;
}

type Run = { status: number | null; stderr: string };

/**
 * Runs an installer (asynchronously: the servers answer from this same process) as `sh FILE`, or with the
 * script on stdin as `curl … | sh` gives it.
 */
function runInstaller(
  installer: { file: string } | { text: string },
  options: { env?: Record<string, string>; wget?: boolean; args?: string[] } = {},
): Promise<Run> {
  const child = spawn("sh", options.args ?? ("file" in installer ? [installer.file] : []), {
    stdio: ["pipe", "ignore", "pipe"],
    env: {
      PATH: options.wget ? wgetOnly : "/usr/bin:/bin",
      HOME: work,
      TMPDIR: work,
      SCV_DOWNLOAD_BASE: httpsBase,
      SCV_INSTALL_DIR: join(work, "bin"),
      CURL_CA_BUNDLE: join(tls, "cert.pem"),
      WGETRC: join(tls, "wgetrc"),
      ...options.env,
    },
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    // A shell that exits before reading its stdin (`sh FILE` never reads it; an installer that fails early stops
    // reading) breaks the pipe: its exit status and stderr are what the test asserts, not the write.
    child.stdin.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EPIPE") reject(error);
    });
    child.stdin.end("text" in installer ? installer.text : "");
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, stderr }));
  });
}

const install = async (options: { env?: Record<string, string>; wget?: boolean } = {}): Promise<Run> =>
  runInstaller({ file: await writeInstaller() }, options);

const STAND_IN = `#!/bin/sh\necho "${VERSION}"\n`;
const EVIL = `#!/bin/sh\necho evil\n`;
const installed = (): string => execFileSync(join(work, "bin", "scv"), { encoding: "utf8" }).trim();
/** The installer's temporary folders still in TMPDIR. */
const leftovers = (): string[] => readdirSync(work).filter((name) => name.startsWith("scv-install."));

describe("install.sh", () => {
  it("downloads over https, verifies, installs atomically, runs --version and says how to reach it", async () => {
    await writeRelease({ script: STAND_IN });
    const result = await install();
    expect(result.stderr).toContain(`installed ${VERSION}`);
    expect(result.status).toBe(0);
    expect(requests).toEqual(["https /SHA256SUMS", `https /${archiveName}`]);
    expect(installed()).toBe(VERSION);
    expect(result.stderr).toContain(`${join(work, "bin")} is not on your PATH`);
    // No temporary file is left beside the binary, nor the download folder.
    expect(readdirSync(join(work, "bin"))).toEqual(["scv"]);
    expect(leftovers()).toEqual([]);
  });

  it.skipIf(!HAS_WGET)("installs with wget alone, following https redirects (absolute and relative)", async () => {
    await writeRelease({ script: STAND_IN });
    redirects.set("/SHA256SUMS", `${httpsBase}/moved/SHA256SUMS`);
    redirects.set(`/${archiveName}`, `/moved/${archiveName}`);
    const result = await install({ wget: true });
    expect(result.stderr).toContain(`installed ${VERSION}`);
    expect(result.status).toBe(0);
    expect(requests).toEqual([
      "https /SHA256SUMS",
      "https /moved/SHA256SUMS",
      `https /${archiveName}`,
      `https /moved/${archiveName}`,
    ]);
    expect(installed()).toBe(VERSION);
  });

  it("refuses a plain-http SCV_DOWNLOAD_BASE without downloading; SCV_INSTALL_ALLOW_HTTP=1 allows a local mirror", async () => {
    await writeRelease({ script: STAND_IN });
    const refused = await install({ env: { SCV_DOWNLOAD_BASE: httpBase } });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(`refused SCV_DOWNLOAD_BASE ${httpBase}: it must be an https URL`);
    expect(refused.stderr).toContain("SCV_INSTALL_ALLOW_HTTP=1");
    expect(requests).toEqual([]);
    expect(existsSync(join(work, "bin"))).toBe(false);
    for (const base of ["ftp://127.0.0.1/release", "file:///tmp/release", "127.0.0.1/release"]) {
      const other = await install({ env: { SCV_DOWNLOAD_BASE: base, SCV_INSTALL_ALLOW_HTTP: "1" } });
      expect(other.status).toBe(1);
      expect(other.stderr).toContain(`refused SCV_DOWNLOAD_BASE ${base}: it must be an https URL`);
    }

    // Over the flag the digest still holds: http changes where the files come from, not what is accepted.
    const mirror = await install({ env: { SCV_DOWNLOAD_BASE: `${httpBase}/`, SCV_INSTALL_ALLOW_HTTP: "1" } });
    expect(mirror.status).toBe(0);
    expect(requests).toEqual(["http /SHA256SUMS", `http /${archiveName}`]);
    expect(installed()).toBe(VERSION);
  });

  it.each([
    { downloader: "curl", wget: false },
    { downloader: "wget", wget: true },
  ])("refuses an https → http redirect to another origin ($downloader)", async ({ wget }) => {
    if (wget && !HAS_WGET) return;
    await writeRelease({ script: STAND_IN });
    for (const path of ["/SHA256SUMS", `/${archiveName}`]) {
      requests.length = 0;
      redirects.clear();
      redirects.set(path, `${httpBase}${path}`);
      const result = await install({ wget });
      expect(result.status).toBe(1);
      expect(result.stderr).toContain(`refused a redirect of ${httpsBase}${path} to a URL that is not https`);
      expect(requests.filter((request) => request.startsWith("http "))).toEqual([]);
      expect(existsSync(join(work, "bin", "scv"))).toBe(false);
      expect(leftovers()).toEqual([]);
    }
  });

  it("refuses a SHA256SUMS and archive replaced together, and keeps the installed binary", async () => {
    await writeRelease({ script: STAND_IN });
    const installer = await writeInstaller();
    expect((await runInstaller({ file: installer })).status).toBe(0);
    // Whoever serves the files swaps in their own archive with a SHA256SUMS that matches it.
    await writeRelease({ script: EVIL });
    requests.length = 0;
    const result = await runInstaller({ file: installer });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/SHA256SUMS from .* is not this release's .*nothing was installed/);
    // The archive is not even fetched once SHA256SUMS fails.
    expect(requests).toEqual(["https /SHA256SUMS"]);
    expect(installed()).toBe(VERSION);
  });

  it("refuses a tampered archive and installs nothing", async () => {
    await writeRelease({ script: STAND_IN });
    const archive = join(served, archiveName);
    const bytes = await readFile(archive);
    bytes[bytes.length - 10] = bytes[bytes.length - 10]! ^ 0xff;
    await writeFile(archive, bytes);
    const result = await install();
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/checksum mismatch for .*nothing was installed/);
    expect(existsSync(join(work, "bin", "scv"))).toBe(false);
  });

  it("cut off anywhere before its last line, piped to sh, it runs nothing", async () => {
    await writeRelease({ script: STAND_IN });
    const text = await readFile(await writeInstaller(), "utf8");
    const lastLine = text.lastIndexOf("\n", text.length - 2) + 1;
    expect(text.slice(lastLine)).toBe('main "$@"\n');
    // Every line boundary, the middle of every line outside a function body, and each part of the call short of
    // its name (`m`, `ma`, `mai`).
    const cuts = new Set<number>([lastLine + 1, lastLine + 2, lastLine + 3]);
    for (let start = 0; start < lastLine; start = text.indexOf("\n", start) + 1) {
      cuts.add(start);
      if (!/^\s/.test(text[start]!)) cuts.add(start + Math.floor((text.indexOf("\n", start) - start) / 2));
    }
    const dir = join(work, "cuts");
    await mkdir(dir);
    for (const cut of cuts) await writeFile(join(dir, `${cut}.sh`), text.slice(0, cut));
    // One shell runs them all in turn (a process per cut from here would take seconds), each as `curl … | sh`.
    const driver = 'for f in "$0"/*.sh; do cat "$f" | sh >/dev/null 2>"${f%.sh}.err"; done';
    await runInstaller({ text: "" }, { args: ["-c", driver, dir] });
    const spoke = [...cuts].filter((cut) => readFileSync(join(dir, `${cut}.err`), "utf8").includes("scv install:"));
    expect({ spoke, requests, leftovers: leftovers(), bin: existsSync(join(work, "bin")) }).toEqual({
      spoke: [],
      requests: [],
      leftovers: [],
      bin: false,
    });
    // The whole text, piped the same way, installs.
    const whole = await runInstaller({ text });
    expect(whole.status).toBe(0);
    expect(installed()).toBe(VERSION);
  });

  it("the unbuilt template refuses to run: it carries no digest to check against", async () => {
    await writeRelease({ script: STAND_IN });
    const result = await runInstaller({ file: INSTALLER_TEMPLATE.pathname });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("this install.sh carries no SHA256SUMS digest (it is the unbuilt template)");
    expect(requests).toEqual([]);
  });

  it("says what is missing or wrong: no base URL, no checksum entry, no server, another version", async () => {
    await writeRelease({ script: STAND_IN });
    expect((await install({ env: { SCV_DOWNLOAD_BASE: "" } })).stderr).toContain("set SCV_DOWNLOAD_BASE");
    await writeRelease({ script: STAND_IN }, false);
    expect((await install()).stderr).toContain(`SHA256SUMS lists no ${archiveName}`);
    const closed = await install({ env: { SCV_DOWNLOAD_BASE: "https://127.0.0.1:9" } });
    expect(closed.status).toBe(1);
    expect(closed.stderr).toContain("could not download https://127.0.0.1:9/SHA256SUMS");
    const other = await install({ env: { SCV_VERSION: "0.0.1" } });
    expect(other.status).toBe(1);
    expect(other.stderr).toContain(`this installer installs scv ${VERSION} only`);
  });

  it("is rendered only with a digest, a version and an https base that are safe in a shell word", async () => {
    const template = await readFile(INSTALLER_TEMPLATE, "utf8");
    const digest = "a".repeat(64);
    const rendered = renderInstaller(template, { version: VERSION, checksumsDigest: digest, base: "https://x.test/r" });
    expect(rendered).toContain(`sums_digest="${digest}"`);
    expect(rendered).toContain('base="${SCV_DOWNLOAD_BASE:-https://x.test/r}"');
    expect(rendered).not.toMatch(/__SCV_(VERSION|SHA256SUMS_SHA256)__/);
    for (const base of ["http://x.test/r", 'https://x.test/"$(id)"', "https://x.test/`id`", "https://x.test/${HOME}"]) {
      expect(() => renderInstaller(template, { version: VERSION, checksumsDigest: digest, base })).toThrow(
        /must be an https:\/\/ URL/,
      );
    }
    expect(() => renderInstaller(template, { version: VERSION, checksumsDigest: "A".repeat(64) })).toThrow(/hex/);
    expect(() => renderInstaller(template, { version: "1.0; rm -rf /", checksumsDigest: digest })).toThrow(
      /not a version/,
    );
  });

  it.skipIf(!existsSync(REAL_ARCHIVE) || target !== "linux-x64")(
    "installs the real linux-x64 release with the release's own install.sh (built by npm run release)",
    async () => {
      served = REAL_RELEASE;
      const sums = await readFile(join(REAL_RELEASE, "SHA256SUMS"), "utf8");
      expect(sums).not.toContain("install.sh");
      const result = await runInstaller({ file: join(REAL_RELEASE, "install.sh") });
      expect(result.stderr).toContain(`installed ${VERSION}`);
      expect(result.status).toBe(0);
      const version = execFileSync(join(work, "bin", "scv"), ["version"], { encoding: "utf8", env: {} });
      expect(version).toContain("target: linux-x64");
    },
  );
});
