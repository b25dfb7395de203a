// Unified diffs checked by `git apply`: for many random edits of a text, applying our diff to the old text must
// give the new one exactly. And the approval bound cuts whole lines with a notice.
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { boundDiff, unifiedDiff } from "../../lib/tools/text_diff.ts";
import { makeSandbox, type Sandbox } from "./helpers.ts";

const HAS_GIT = spawnSync("git", ["--version"]).status === 0;

let box: Sandbox;
beforeEach(() => {
  box = makeSandbox();
});
afterEach(() => box.cleanup());

function randomEdit(seed: number): { before: string; after: string } {
  let state = seed;
  const next = (n: number) => (state = (state * 1103515245 + 12345) % 2147483648) % n;
  const lines = Array.from({ length: 5 + next(60) }, () => `line ${next(12)}`);
  const after = [...lines];
  for (let edits = 1 + next(6); edits > 0; edits -= 1) {
    const at = next(after.length + 1);
    const kind = next(3);
    if (kind === 0) after.splice(at, 1);
    else if (kind === 1) after.splice(at, 0, `new ${next(1000)}`);
    else after.splice(at, 1, `changed ${next(1000)}`);
  }
  // Some texts lose their final line ending on one side or the other.
  const end = (text: string) => (next(4) === 0 ? text : `${text}\n`);
  return { before: end(lines.join("\n")), after: after.length === 0 ? "" : end(after.join("\n")) };
}

describe.skipIf(!HAS_GIT)("unifiedDiff", () => {
  it("produces diffs that git apply turns into the new text", () => {
    execFileSync("git", ["init", "-q"], { cwd: box.workspace });
    for (let seed = 1; seed <= 60; seed += 1) {
      const { before, after } = randomEdit(seed);
      writeFileSync(join(box.workspace, "f.txt"), before);
      const diff = unifiedDiff("f.txt", before, after);
      if (before === after) {
        expect(diff).toBe("");
        continue;
      }
      writeFileSync(join(box.root, "change.diff"), diff);
      const applied = spawnSync("git", ["apply", "--unidiff-zero", join(box.root, "change.diff")], {
        cwd: box.workspace,
        encoding: "utf8",
      });
      expect(applied.status, `seed ${seed}: ${applied.stderr}\n${diff}`).toBe(0);
      expect(readFileSync(join(box.workspace, "f.txt"), "utf8"), `seed ${seed}`).toBe(after);
    }
  });

  it("marks created and deleted files with /dev/null", () => {
    expect(unifiedDiff("n.txt", undefined, "a\n")).toBe("--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,1 @@\n+a\n");
    expect(unifiedDiff("n.txt", "a\n", undefined)).toBe("--- a/n.txt\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-a\n");
  });
});

describe("boundDiff", () => {
  it("keeps whole lines within the limits and says how many were left out", () => {
    const diff = unifiedDiff("big.txt", undefined, "row\n".repeat(100));
    expect(boundDiff(diff)).toBe(diff);
    const cut = boundDiff(diff, 1_000_000, 10);
    expect(cut.split("\n").slice(0, 10)).toEqual(diff.split("\n").slice(0, 10));
    expect(cut.endsWith("… diff cut: 93 more lines not shown\n")).toBe(true);
    const bytes = boundDiff(diff, 50);
    expect(Buffer.byteLength(bytes.split("…")[0]!)).toBeLessThanOrEqual(50);
    expect(bytes).toContain("more lines not shown");
  });
});
