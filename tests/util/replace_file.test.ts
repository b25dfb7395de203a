// replaceFileSync (lib/util/replace_file.ts): a file replaced whole, never written through a link left where its
// temporary file goes, nothing left behind when the write fails.
import { mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { replaceFileSync } from "../../lib/util/replace_file.ts";
import { useTempFolders } from "../support/temp_folders.ts";

const folders = useTempFolders("scv-replace-file-", ["dir"]);

describe("replaceFileSync", () => {
  it("replaces a file with its mode, never writing through what a process with this pid left in the way", () => {
    const path = join(folders.dir, "index");
    writeFileSync(path, "old");
    const elsewhere = join(folders.root, "elsewhere");
    writeFileSync(elsewhere, "untouched");
    symlinkSync(elsewhere, `${path}.${process.pid}.tmp`);
    replaceFileSync(path, Buffer.from("new"), 0o600);
    expect(readFileSync(elsewhere, "utf8")).toBe("untouched");
    expect(readFileSync(path, "utf8")).toBe("new");
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(folders.dir)).toEqual(["index"]);
  });

  it("leaves what was there and no temporary file when the rename fails", () => {
    const path = join(folders.dir, "taken");
    // A folder in the way: the rename over it fails after the temporary file was written.
    mkdirSync(join(path, "inside"), { recursive: true });
    expect(() => replaceFileSync(path, "new", 0o600)).toThrow();
    expect(readdirSync(folders.dir)).toEqual(["taken"]);
  });
});
