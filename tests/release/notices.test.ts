// The third-party notices the release archives carry: every bundled package once, with its licence text, and in
// the real linux-x64 archive when CI has built it.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { NOTICES_FILE, packageRoot, thirdPartyNotices } from "../../scripts/release/notices.ts";
import { VERSION } from "../../lib/version.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const REAL_ARCHIVE = join(ROOT, "dist", "release", `scv-${VERSION}-linux-x64.tar.gz`);

let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "scv-notices-"));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function fakePackage(folder: string, manifest: object, files: Record<string, string>): Promise<void> {
  const dir = join(root, "node_modules", folder);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, "package.json"), JSON.stringify(manifest));
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
}

describe("third-party notices", () => {
  it("finds the package folder of an input, scoped or not, nested or not", () => {
    expect(packageRoot("node_modules/ws/lib/websocket.js")).toBe("node_modules/ws");
    expect(packageRoot("node_modules/@scope/pkg/dist/index.js")).toBe("node_modules/@scope/pkg");
    expect(packageRoot("node_modules/a/node_modules/b/index.js")).toBe("node_modules/a/node_modules/b");
    expect(packageRoot("lib/codec/frame.ts")).toBeNull();
    expect(packageRoot("node_modules/ws")).toBeNull();
  });

  it("lists each bundled package once, sorted, with its licence and notice texts", async () => {
    await fakePackage("zeta", { name: "zeta", version: "1.2.3", license: "MIT" }, { LICENSE: "MIT text of zeta" });
    await fakePackage("@acme/alpha", { name: "@acme/alpha", version: "2.0.0", license: "Apache-2.0" }, {
      "LICENCE.md": "Apache text of alpha",
      NOTICE: "Alpha notice",
      "index.js": "",
    });
    await fakePackage("bare", { name: "bare", version: "0.1.0", license: { type: "ISC" } }, {});
    const text = thirdPartyNotices([
      "node_modules/zeta/index.js",
      "node_modules/zeta/lib/more.js",
      "node_modules/@acme/alpha/index.js",
      "node_modules/bare/index.js",
      "lib/version.ts",
      "node_modules/missing/index.js",
    ], root);
    const headers = text.split("\n").filter((_line, index, lines) => lines[index + 1]?.startsWith("-".repeat(72)));
    expect(headers).toEqual(["@acme/alpha 2.0.0 (Apache-2.0)", "bare 0.1.0 (ISC)", "zeta 1.2.3 (MIT)"]);
    expect(text).toContain("Apache text of alpha\n\nAlpha notice");
    expect(text).toContain("MIT text of zeta");
    expect(text).toContain("No licence file ships with this package; its package.json says ISC.");
    expect(text).not.toContain("missing");
  });

  it.skipIf(!existsSync(REAL_ARCHIVE))("the linux-x64 archive carries the notices of what scv bundles", () => {
    const listing = execFileSync("tar", ["-tzf", REAL_ARCHIVE], { encoding: "utf8" }).split("\n");
    const member = `scv-${VERSION}-linux-x64/${NOTICES_FILE}`;
    expect(listing).toContain(member);
    const notices = execFileSync("tar", ["-xzOf", REAL_ARCHIVE, member], { encoding: "utf8" });
    for (const name of ["commander", "ws", "smol-toml", "@agentclientprotocol/sdk", "@modelcontextprotocol/sdk"]) {
      expect(notices).toMatch(new RegExp(`^${name.replace(/[/@.]/g, "\\$&")} \\d`, "m"));
    }
    expect(notices).toContain("Permission is hereby granted, free of charge");
  });
});
