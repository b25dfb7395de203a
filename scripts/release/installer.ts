// install.sh as a release ships it: the template (scripts/release/install.sh) with the release's version, the
// SHA-256 of its SHA256SUMS (the installer's anchor: every download is checked against it, so whoever serves
// the files cannot replace them) and, optionally, the https URL it will be served from.
import { readFile } from "node:fs/promises";

export const INSTALLER_TEMPLATE = new URL("install.sh", import.meta.url);

export interface InstallerFacts {
  version: string;
  /** The SHA-256 (hex) of the release's SHA256SUMS. */
  checksumsDigest: string;
  /** The release folder's https URL, the default of SCV_DOWNLOAD_BASE; none: the user must set it. */
  base?: string;
}

const PLACEHOLDERS = {
  version: "__SCV_VERSION__",
  digest: '"__SCV_SHA256SUMS_SHA256__"',
  base: '"${SCV_DOWNLOAD_BASE:-__SCV_DOWNLOAD_BASE__}"',
};

/** The installer for a release, from the template's text. */
export function renderInstaller(template: string, facts: InstallerFacts): string {
  for (const placeholder of Object.values(PLACEHOLDERS)) {
    if (!template.includes(placeholder)) throw new Error(`the install.sh template lacks ${placeholder}`);
  }
  if (!/^[0-9a-f]{64}$/.test(facts.checksumsDigest)) {
    throw new Error(
      `the SHA256SUMS digest must be 64 lower-case hex digits, not ${JSON.stringify(facts.checksumsDigest)}`,
    );
  }
  if (!/^[\w.+-]+$/.test(facts.version))
    throw new Error(`the version ${JSON.stringify(facts.version)} is not a version`);
  const base = facts.base ?? "";
  if (base !== "") checkReleaseBase(base);
  return template
    .replaceAll(PLACEHOLDERS.version, () => facts.version)
    .replace(PLACEHOLDERS.digest, () => `"${facts.checksumsDigest}"`)
    .replace(PLACEHOLDERS.base, () => `"\${SCV_DOWNLOAD_BASE:-${base}}"`);
}

/** Throws unless `base` is an https URL that goes into install.sh's double-quoted shell word as it is. */
export function checkReleaseBase(base: string): void {
  if (!/^https:\/\/[\w.~:/?#[\]@!&'()*+,;=%-]+$/.test(base)) {
    throw new Error(
      `the release base URL ${
        JSON.stringify(base)
      } must be an https:// URL without spaces, quotes, $, \` or \\ (SCV_RELEASE_BASE_URL)`,
    );
  }
}

/** renderInstaller over scripts/release/install.sh. */
export async function releaseInstaller(facts: InstallerFacts): Promise<string> {
  return renderInstaller(await readFile(INSTALLER_TEMPLATE, "utf8"), facts);
}
