// The walk for secret-like files before each command is reused only while none of the folders it read changed: a
// secret added, renamed in or put in place of a folder, at any level the walk reads, is found by the next walk, even
// when the folder's modification time is set back; a folder changed just before a walk is never trusted. The clock
// the racy-change rule reads is a fake one here (a walk right after the folders were made would never be reused).
import { mkdirSync, mkdtempSync, realpathSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { scanSecrets } from "../../lib/confine/index.ts";

let root: string;
beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), "scv-scan-")));
  mkdirSync(path.join(root, "apps", "web"), { recursive: true });
  writeFileSync(path.join(root, "apps", "web", "index.js"), "");
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** A clock a minute ahead: every folder looks old enough to trust. */
const later = () => BigInt(Date.now() + 60_000) * 1_000_000n;

describe("scanSecrets", () => {
  it("reuses a walk while nothing changed, and finds a secret added at each level", () => {
    expect(scanSecrets(root, later)).toEqual({ found: [], protectedNested: [], cut: false, reused: false });
    expect(scanSecrets(root, later)).toEqual({ found: [], protectedNested: [], cut: false, reused: true });
    for (const file of [".env", "apps/.env.local", "apps/web/id_rsa"]) {
      writeFileSync(path.join(root, file), "SECRET=1\n");
      const scan = scanSecrets(root, later);
      expect(scan.reused, file).toBe(false);
      expect(scan.found, file).toContain(path.join(root, file));
      expect(scanSecrets(root, later).reused, file).toBe(true);
    }
  });

  it("lists nested .git and .scv entries (folders or files) at every level it reads, but not the root's own", () => {
    mkdirSync(path.join(root, ".git"));
    mkdirSync(path.join(root, "vendor", "lib", ".git", "hooks"), { recursive: true });
    writeFileSync(path.join(root, "apps", "web", ".git"), "gitdir: ../../.git/modules/web\n");
    mkdirSync(path.join(root, "apps", ".scv"));
    // Three levels down: past the walk.
    mkdirSync(path.join(root, "apps", "web", "deep", ".git"), { recursive: true });
    const nested = [
      path.join(root, "apps", ".scv"),
      path.join(root, "apps", "web", ".git"),
      path.join(root, "vendor", "lib", ".git"),
    ];
    expect(scanSecrets(root, later).protectedNested.sort()).toEqual(nested);
    const again = scanSecrets(root, later);
    expect(again.reused).toBe(true);
    expect(again.protectedNested.sort()).toEqual(nested);
  });

  it("sees a secret whose folder's modification time was set back", () => {
    const folder = path.join(root, "apps", "web");
    const past = 1_700_000_000;
    utimesSync(folder, past, past);
    const before = statSync(folder, { bigint: true }).mtimeNs;
    expect(scanSecrets(root, later).found).toEqual([]);
    writeFileSync(path.join(folder, ".env"), "SECRET=1\n");
    utimesSync(folder, past, past);
    expect(statSync(folder, { bigint: true }).mtimeNs).toBe(before);
    expect(scanSecrets(root, later).found).toEqual([path.join(folder, ".env")]);
  });

  it("sees a folder put in another's place, and a secret renamed in", () => {
    scanSecrets(root, later);
    const other = path.join(root, "other");
    mkdirSync(path.join(other, "web"), { recursive: true });
    writeFileSync(path.join(other, "web", ".env"), "SECRET=1\n");
    renameSync(path.join(root, "apps"), path.join(root, "old-apps"));
    renameSync(other, path.join(root, "apps"));
    expect(scanSecrets(root, later).found).toEqual([path.join(root, "apps", "web", ".env")]);

    writeFileSync(path.join(root, "draft"), "SECRET=1\n");
    scanSecrets(root, later);
    renameSync(path.join(root, "draft"), path.join(root, "apps", "credentials.json"));
    expect(scanSecrets(root, later).found).toContain(path.join(root, "apps", "credentials.json"));
  });

  it("does not keep a walk of folders changed just before it", () => {
    // The real clock: the folders were made a moment ago.
    expect(scanSecrets(root).reused).toBe(false);
    expect(scanSecrets(root).reused).toBe(false);
  });
});
