// The folder rule: each folder of lib/ that others use (a domain) has one public face, its index.ts, and code in
// another folder imports only that. Within a folder (subfolders included) files import each other directly.
// lib/util/ (independent helpers, each file its own face) and lib/cli/ (entry points main.ts loads) have no index;
// a lazy `import()` may name the file it loads, so that part stays out of the startup path.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const LIB = join(ROOT, "lib");
const NO_INDEX = new Set(["util", "cli"]);
const STATIC_IMPORT = /^(?:import|export)\s[^;]*?\sfrom\s+"(\.[^"]+)"/gm;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** The top-level folder of lib/ a path belongs to (undefined for files directly in lib/, such as version.ts). */
function domainOf(path: string): string | undefined {
  const parts = relative(LIB, path).split("/");
  return parts.length > 1 ? parts[0] : undefined;
}

describe("folder entry points", () => {
  it("code imports another folder of lib/ only through its index.ts", () => {
    const bypasses: string[] = [];
    for (const file of sources(LIB)) {
      const from = domainOf(file);
      for (const match of readFileSync(file, "utf8").matchAll(STATIC_IMPORT)) {
        const target = normalize(join(dirname(file), match[1]!));
        const to = domainOf(target);
        if (to === undefined || to === from || NO_INDEX.has(to)) continue;
        if (target !== join(LIB, to, "index.ts"))
          bypasses.push(`${relative(ROOT, file)} imports ${relative(ROOT, target)}`);
      }
    }
    expect(bypasses).toEqual([]);
  });

  it("every folder that others import has an index.ts", () => {
    const domains = readdirSync(LIB, { withFileTypes: true }).filter((entry) =>
      entry.isDirectory() && !NO_INDEX.has(entry.name)
    );
    const missing = domains.filter((entry) => !readdirSync(join(LIB, entry.name)).includes("index.ts")).map((entry) =>
      entry.name
    );
    expect(missing).toEqual([]);
  });
});
