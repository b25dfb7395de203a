// Fresh folders for each test of a file: one temporary root with the named folders in it, removed after the test.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach } from "vitest";

/** Registers the set-up and clean-up; the returned paths are valid inside each test (and its hooks). */
export function useTempFolders<Name extends string>(
  prefix: string,
  names: readonly Name[],
): Record<Name | "root", string> {
  const folders = {} as Record<Name | "root", string>;
  beforeEach(() => {
    folders.root = mkdtempSync(join(tmpdir(), prefix));
    for (const name of names) {
      folders[name] = join(folders.root, name);
      mkdirSync(folders[name]);
    }
  });
  afterEach(() => rmSync(folders.root, { recursive: true, force: true }));
  return folders;
}
