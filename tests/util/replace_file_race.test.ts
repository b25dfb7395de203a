// replaceFileSync against a link planted in the moment between clearing the temporary file's path and writing it
// (the race an attacker who can write in the folder would run): node:fs's rmSync is wrapped for one call so that it
// loses it. The wrapper reaches the module's named import through syncBuiltinESMExports, so no module mock is needed
// in this shared (isolate: false) worker.
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { replaceFileSync } from "../../lib/util/replace_file.ts";
import { useTempFolders } from "../support/temp_folders.ts";

const folders = useTempFolders("scv-replace-race-", ["dir"]);

/** Runs `body` while the first rmSync of `at` is followed at once by a link from `at` to `target`. */
function withLinkPlantedAfterRm(at: string, target: string, body: () => void): boolean {
  const real = fs.rmSync;
  let planted = false;
  fs.rmSync = ((path: fs.PathLike, options?: fs.RmOptions) => {
    real(path, options);
    if (!planted && String(path) === at) {
      fs.symlinkSync(target, at);
      planted = true;
    }
  }) as typeof fs.rmSync;
  syncBuiltinESMExports();
  try {
    body();
  } finally {
    fs.rmSync = real;
    syncBuiltinESMExports();
  }
  return planted;
}

describe("replaceFileSync, raced", () => {
  it("refuses to write through a link that appears after the path was cleared, and keeps the old file", () => {
    const path = join(folders.dir, "index");
    fs.writeFileSync(path, "old");
    const elsewhere = join(folders.root, "elsewhere");
    fs.writeFileSync(elsewhere, "untouched");
    const planted = withLinkPlantedAfterRm(`${path}.${process.pid}.tmp`, elsewhere, () => {
      expect(() => replaceFileSync(path, "new", 0o600)).toThrow(/EEXIST/);
    });
    expect(planted).toBe(true);
    expect(fs.readFileSync(elsewhere, "utf8")).toBe("untouched");
    expect(fs.readFileSync(path, "utf8")).toBe("old");
    expect(fs.readdirSync(folders.dir)).toEqual(["index"]);
  });
});
