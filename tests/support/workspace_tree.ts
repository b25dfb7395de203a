// What a folder holds, for tests that compare a workspace before and after: every file, link and folder by
// relative path with its mode and content (a link by its target), `.git` and other skipped names left out.
import { lstatSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { createHash } from "node:crypto";
import { join } from "node:path";

export type TreeEntry = { mode: string; content: string };

export function treeOf(root: string, skip: readonly string[] = [".git"]): Record<string, TreeEntry> {
  const tree: Record<string, TreeEntry> = {};
  const walk = (dir: string, prefix: string) => {
    for (const name of readdirSync(dir).sort()) {
      if (prefix === "" && skip.includes(name)) continue;
      const path = join(dir, name);
      const relative = prefix === "" ? name : `${prefix}/${name}`;
      const info = lstatSync(path);
      if (info.isDirectory()) {
        tree[`${relative}/`] = { mode: (info.mode & 0o777).toString(8), content: "" };
        walk(path, relative);
      } else if (info.isSymbolicLink()) tree[relative] = { mode: "link", content: readlinkSync(path) };
      else {
        const bytes = readFileSync(path);
        const content = bytes.length <= 200 ? bytes.toString("utf8") : createHash("sha256").update(bytes).digest("hex");
        tree[relative] = { mode: (info.mode & 0o777).toString(8), content };
      }
    }
  };
  walk(root, "");
  return tree;
}

/** Every file under `dir` (`.git` included) by relative path with the sha256 of its bytes. */
export function digestOf(dir: string): Record<string, string> {
  const digests: Record<string, string> = {};
  const walk = (current: string, prefix: string) => {
    for (const name of readdirSync(current).sort()) {
      const path = join(current, name);
      const relative = prefix === "" ? name : `${prefix}/${name}`;
      const info = lstatSync(path);
      if (info.isDirectory()) walk(path, relative);
      else if (info.isSymbolicLink()) digests[relative] = `link:${readlinkSync(path)}`;
      else digests[relative] = createHash("sha256").update(readFileSync(path)).digest("hex");
    }
  };
  walk(dir, "");
  return digests;
}
