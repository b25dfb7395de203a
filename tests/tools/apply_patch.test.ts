// apply_patch against the fixture folders in tests/tools/apply_patch/: each has input/ (the workspace before),
// patch.txt and expected/ (the workspace after). Folders named rejects_* or failure_* must fail and leave the
// workspace exactly as its input (all files change or none do).
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createApplyPatchTool } from "../../lib/tools/apply_patch/index.ts";
import { makeSandbox, run, type Sandbox, testConfig } from "./helpers.ts";

const FIXTURES = new URL("./apply_patch/", import.meta.url).pathname;
const tool = createApplyPatchTool({ maxWriteBytes: 1_048_576 });

function files(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const visit = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) visit(full);
      else out[relative(root, full)] = readFileSync(full, "latin1");
    }
  };
  if (existsSync(root)) visit(root);
  return out;
}

let box: Sandbox;
beforeEach(() => {
  box = makeSandbox();
});
afterEach(() => box.cleanup());

describe("apply_patch scenarios", () => {
  for (const name of readdirSync(FIXTURES).sort()) {
    it(name, async () => {
      const folder = join(FIXTURES, name);
      if (existsSync(join(folder, "input"))) cpSync(join(folder, "input"), box.workspace, { recursive: true });
      const input = readFileSync(join(folder, "patch.txt"), "utf8");
      const shouldFail = name.startsWith("rejects_") || name.startsWith("failure_");
      const prepared = tool.prepare({ input }, { workspace: box.workspace, config: testConfig() });
      if ("error" in prepared) {
        expect(shouldFail, prepared.error).toBe(true);
      } else {
        const outcome = await run(prepared, box.workspace);
        expect(outcome.success, outcome.output).toBe(!shouldFail);
        if (!shouldFail) expect(outcome.output).toMatch(/^Success\. Updated the following files:\n[AMD] /);
      }
      expect(files(box.workspace)).toEqual(files(join(folder, "expected")));
    });
  }

  it("names the file and the lines of a hunk that does not apply", async () => {
    cpSync(join(FIXTURES, "rejects_missing_context", "input"), box.workspace, { recursive: true });
    const input = readFileSync(join(FIXTURES, "rejects_missing_context", "patch.txt"), "utf8");
    const prepared = tool.prepare({ input }, { workspace: box.workspace, config: testConfig() });
    if ("error" in prepared) throw new Error(prepared.error);
    const outcome = await run(prepared, box.workspace);
    expect(outcome.output).toContain("update x.txt: chunk 1 (patch line 3)");
    expect(outcome.output).toContain("three");
  });

  it("takes absolute paths inside the workspace, for the file and the one it moves to", async () => {
    writeFileSync(join(box.workspace, "a.txt"), "one\n");
    const input = [
      "*** Begin Patch",
      `*** Add File: ${join(box.workspace, "new/b.txt")}`,
      "+bee",
      `*** Update File: ${join(box.workspace, "a.txt")}`,
      `*** Move to: ${join(box.workspace, "c.txt")}`,
      "@@",
      "-one",
      "+uno",
      "*** End Patch",
    ].join("\n");
    const prepared = tool.prepare({ input }, { workspace: box.workspace, config: testConfig() });
    if ("error" in prepared) throw new Error(prepared.error);
    expect(prepared.summary).toBe("Apply a patch: add new/b.txt, update a.txt and move it to c.txt");
    expect((await run(prepared, box.workspace)).success).toBe(true);
    expect(files(box.workspace)).toEqual({ "new/b.txt": "bee\n", "c.txt": "uno\n" });
  });

  it("refuses paths that leave the workspace, including through a symlinked folder", async () => {
    const { symlinkSync } = await import("node:fs");
    symlinkSync(box.outside, join(box.workspace, "link"));
    for (const path of ["../x.txt", "/etc/passwd", join(box.outside, "x.txt"), "link/x.txt"]) {
      const input = `*** Begin Patch\n*** Add File: ${path}\n+x\n*** End Patch\n`;
      const prepared = tool.prepare({ input }, { workspace: box.workspace, config: testConfig() });
      expect("error" in prepared, path).toBe(true);
    }
    expect(readdirSync(box.outside)).toEqual([]);
  });
});
