// replaceFileSync against a link planted in the moment between clearing the temporary file's path and writing it
// (the race an attacker who can write in the folder would run): node:fs's rmSync is wrapped so that it loses it.
import * as fs from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { useTempFolders } from "../support/temp_folders.ts";

const plant = vi.hoisted(() => ({ link: null as null | { target: string; at: string } }));

vi.mock("node:fs", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:fs")>();
  return {
    ...real,
    rmSync(path: fs.PathLike, options?: fs.RmOptions): void {
      real.rmSync(path, options);
      if (plant.link !== null && String(path) === plant.link.at) {
        real.symlinkSync(plant.link.target, plant.link.at);
        plant.link = null;
      }
    },
  };
});

const { replaceFileSync } = await import("../../lib/util/replace_file.ts");
const folders = useTempFolders("scv-replace-race-", ["dir"]);

describe("replaceFileSync, raced", () => {
  it("refuses to write through a link that appears after the path was cleared, and keeps the old file", () => {
    const path = join(folders.dir, "index");
    fs.writeFileSync(path, "old");
    const elsewhere = join(folders.root, "elsewhere");
    fs.writeFileSync(elsewhere, "untouched");
    plant.link = { target: elsewhere, at: `${path}.${process.pid}.tmp` };
    expect(() => replaceFileSync(path, "new", 0o600)).toThrow(/EEXIST/);
    expect(plant.link).toBeNull();
    expect(fs.readFileSync(elsewhere, "utf8")).toBe("untouched");
    expect(fs.readFileSync(path, "utf8")).toBe("old");
    expect(fs.readdirSync(folders.dir)).toEqual(["index"]);
  });
});
