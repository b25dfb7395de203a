// Fetches one target's Node binary from the npm registry (npm pack, so the ordinary registry client and
// its configuration are used) into a cache, and refuses a tarball whose sha512 is not the pinned one.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { RELEASE_NODE_VERSION, RELEASE_TARGETS, type ReleaseTarget } from "./targets.ts";

export function integrityOf(bytes: Uint8Array): string {
  return `sha512-${createHash("sha512").update(bytes).digest("base64")}`;
}

/** Returns the path of the target's verified Node binary, downloading the package at most once. */
export async function fetchNode(target: ReleaseTarget, cacheDir: string): Promise<string> {
  const dir = join(cacheDir, `${target.nodePackage}-${RELEASE_NODE_VERSION}`);
  const tarball = join(dir, `${target.nodePackage}-${RELEASE_NODE_VERSION}.tgz`);
  const binary = join(dir, target.nodePath);
  await mkdir(dir, { recursive: true });
  if (!existsSync(tarball)) {
    process.stderr.write(`fetching ${target.nodePackage}@${RELEASE_NODE_VERSION} from the npm registry\n`);
    execFileSync("npm", [
      "pack",
      `${target.nodePackage}@${RELEASE_NODE_VERSION}`,
      "--pack-destination",
      dir,
      "--silent",
    ], {
      stdio: ["ignore", "ignore", "inherit"],
    });
  }
  const actual = integrityOf(await readFile(tarball));
  if (actual !== target.integrity) {
    await rm(dir, { recursive: true, force: true });
    throw new Error(
      `${target.nodePackage}@${RELEASE_NODE_VERSION} does not match its pinned integrity (got ${actual}); the download was removed`,
    );
  }
  if (!existsSync(binary)) execFileSync("tar", ["-xzf", tarball, "-C", dir, target.nodePath]);
  return binary;
}

/** Node's LICENSE for the archives (the Windows package ships none; the text is the same for every target). */
export async function fetchNodeLicense(cacheDir: string): Promise<string> {
  const linux = RELEASE_TARGETS.find((target) => target.name === "linux-x64")!;
  await fetchNode(linux, cacheDir);
  const dir = join(cacheDir, `${linux.nodePackage}-${RELEASE_NODE_VERSION}`);
  const license = join(dir, "package", "LICENSE");
  if (!existsSync(license)) {
    execFileSync("tar", [
      "-xzf",
      join(dir, `${linux.nodePackage}-${RELEASE_NODE_VERSION}.tgz`),
      "-C",
      dir,
      "package/LICENSE",
    ]);
  }
  return license;
}
