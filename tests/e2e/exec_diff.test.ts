// `scv exec` prints the diff of a file change it is asked to approve on stderr (issue 15), with hidden characters
// made visible.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliHarness } from "../support/cli_harness.ts";
import { textResponse, toolCallResponse } from "../support/fake_provider.ts";

const harness = useCliHarness();

describe("scv exec approval diffs", () => {
  it("prints the edit's unified diff under the denied approval line, and the file stays as it was", async () => {
    await writeFile(join(harness.sandbox.workspace, "a.txt"), "keep\nold line\n");
    harness.provider.push(
      toolCallResponse([{
        call_id: "c1",
        name: "edit",
        arguments: { path: "a.txt", old_string: "old line", new_string: "new \u202e line" },
      }]),
      textResponse(["after"]),
    );
    const result = await harness.start(["exec", "change it"]).done;
    // Every change was denied: exit 3 (issue 27).
    expect(result.code).toBe(3);
    expect(result.stderr).toContain("denied (no --yes; scv exec cannot ask): edit (filesystem risk): Edit a.txt");
    expect(result.stderr).toContain(
      "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n keep\n-old line\n+new <U+202E> line\n",
    );
    expect(await readFile(join(harness.sandbox.workspace, "a.txt"), "utf8")).toBe("keep\nold line\n");
  });
});
