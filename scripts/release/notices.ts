// The licence notices of the npm packages bundled into scv's executable. The bundles drop legal
// comments, and the MIT, ISC and BSD licences of those packages ask for their notice in every copy,
// so the release archives carry them in THIRD_PARTY_NOTICES.txt, made from esbuild's list of inputs.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, sep } from "node:path";

export const NOTICES_FILE = "THIRD_PARTY_NOTICES.txt";

interface BundledPackage {
  name: string;
  version: string;
  license: string;
  text: string | null;
}

const LICENSE_FILE = /^(licen[cs]e|copying|notice)(\.|-|$)/i;

/** The package folder (…/node_modules/name or …/node_modules/@scope/name) an input path lies in, if any. */
export function packageRoot(input: string): string | null {
  const parts = input.split(/[\\/]/);
  const index = parts.lastIndexOf("node_modules");
  if (index < 0 || index + 1 >= parts.length) return null;
  const length = parts[index + 1]!.startsWith("@") ? 3 : 2;
  if (index + length > parts.length - 1) return null;
  return parts.slice(0, index + length).join(sep);
}

function describe(root: string): BundledPackage {
  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    name?: string;
    version?: string;
    license?: string | { type?: string };
  };
  const license = typeof manifest.license === "string" ? manifest.license : manifest.license?.type ?? "UNKNOWN";
  const files = readdirSync(root).filter((file) => LICENSE_FILE.test(file)).sort();
  const text = files.length === 0
    ? null
    : files.map((file) => readFileSync(join(root, file), "utf8").trim()).join("\n\n");
  return { name: manifest.name ?? root, version: manifest.version ?? "?", license, text };
}

/**
 * The notices text for the given bundle inputs (paths relative to `root`, as esbuild's metafile names
 * them). Every package appears once, sorted by name; one without a licence file says so.
 */
export function thirdPartyNotices(inputs: Iterable<string>, root: string): string {
  const roots = new Set<string>();
  for (const input of inputs) {
    const folder = packageRoot(input);
    if (folder !== null && existsSync(join(root, folder, "package.json"))) roots.add(join(root, folder));
  }
  const packages = [...roots].map(describe).sort((a, b) => a.name.localeCompare(b.name));
  const sections = packages.map((pkg) =>
    [
      `${pkg.name} ${pkg.version} (${pkg.license})`,
      "-".repeat(72),
      pkg.text ?? `No licence file ships with this package; its package.json says ${pkg.license}.`,
    ].join("\n")
  );
  return [
    "scv's executable bundles the following npm packages. Their licences and notices follow.",
    "The embedded Node.js runtime's licence is in LICENSE.node.",
    "",
    sections.join("\n\n\n"),
    "",
  ].join("\n");
}
