// Property: whatever path the model sends, read never returns bytes from outside the workspace
// and write never creates or changes anything outside it.

import fc from "fast-check";
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createReadTool } from "../../lib/tools/read.ts";
import { createWriteTool } from "../../lib/tools/write.ts";
import { makeSandbox, run, type Sandbox, testConfig } from "./helpers.ts";

const SECRET = "TOP-SECRET-OUTSIDE";
const components = [
  "..",
  ".",
  "",
  "out",
  "sec",
  "in",
  "dir",
  "f.txt",
  "secret.txt",
  "loop",
  "abs",
  "new",
  "workspace",
  "outside",
];

describe("confinement properties", () => {
  let box: Sandbox;
  let symlinkedWorkspace: string;
  beforeAll(() => {
    box = makeSandbox();
    writeFileSync(join(box.outside, "secret.txt"), SECRET);
    mkdirSync(join(box.workspace, "dir"));
    writeFileSync(join(box.workspace, "dir", "f.txt"), "inside");
    symlinkSync(box.outside, join(box.workspace, "out"));
    symlinkSync(join(box.outside, "secret.txt"), join(box.workspace, "sec"));
    symlinkSync("dir", join(box.workspace, "in"));
    symlinkSync("loop", join(box.workspace, "loop"));
    symlinkSync("/", join(box.workspace, "abs"));
    symlinkSync("../outside", join(box.workspace, "dir", "outside"));
    // The same workspace reached through a symlink: checks must still hold.
    symlinkedWorkspace = join(box.root, "alias");
    symlinkSync(box.workspace, symlinkedWorkspace);
  });
  afterAll(() => box.cleanup());

  const pathArbitrary = fc
    .tuple(fc.boolean(), fc.array(fc.constantFrom(...components), { minLength: 1, maxLength: 5 }))
    .map(([absolute, parts]) => (absolute ? "/" : "") + parts.join("/"));

  it("read never leaks outside content", async () => {
    const tool = createReadTool({ maxReadBytes: 1024 });
    await fc.assert(
      fc.asyncProperty(pathArbitrary, fc.constantFrom("workspace", "alias"), async (path, which) => {
        const workspace = which === "workspace" ? box.workspace : symlinkedWorkspace;
        const prepared = tool.prepare({ path }, { workspace, config: testConfig() });
        if ("error" in prepared) {
          expect(prepared.error).not.toContain(SECRET);
          return;
        }
        const outcome = await run(prepared, workspace);
        expect(outcome.output).not.toContain(SECRET);
      }),
      { numRuns: 300 },
    );
  });

  it("write never touches anything outside", async () => {
    const tool = createWriteTool({ maxWriteBytes: 1024 });
    await fc.assert(
      fc.asyncProperty(pathArbitrary, fc.constantFrom("create", "replace"), async (path, mode) => {
        const prepared = tool.prepare({ path, content: "WRITTEN", mode }, {
          workspace: box.workspace,
          config: testConfig(),
        });
        if ("error" in prepared) return;
        await run(prepared, box.workspace);
        expect(readdirSync(box.outside)).toEqual(["secret.txt"]);
        expect(readFileSync(join(box.outside, "secret.txt"), "utf8")).toBe(SECRET);
      }),
      { numRuns: 300 },
    );
    expect(readdirSync(box.root).sort()).toEqual(["alias", "outside", "workspace"]);
  });
});
