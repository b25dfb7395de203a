// How tool calls map onto ACP, by tool name: the kinds, titles and diffs, including tools other branches add.
import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { proposedDiff, toolKind, toolTitle } from "../../lib/acp/index.ts";

let workspace: string;
beforeEach(async () => {
  workspace = await realpath(await mkdtemp(join(tmpdir(), "scv-acp-tools-")));
});
afterEach(() => rm(workspace, { recursive: true, force: true }));

describe("ACP tool calls", () => {
  it("gives every tool a fitting kind and unknown tools other", () => {
    const kinds = Object.fromEntries(
      [
        "read",
        "write",
        "edit",
        "apply_patch",
        "bash",
        "exec",
        "grep",
        "web_search",
        "web_fetch",
        "read_skill",
        "mystery",
      ].map(
        (name) => [name, toolKind(name)],
      ),
    );
    expect(kinds).toEqual({
      read: "read",
      write: "edit",
      edit: "edit",
      apply_patch: "edit",
      bash: "execute",
      exec: "execute",
      grep: "search",
      web_search: "search",
      web_fetch: "fetch",
      read_skill: "read",
      mystery: "other",
    });
  });

  it("titles a call by its tool and what it touches, on one line", () => {
    expect(toolTitle("bash", { command: "ls\n-la" })).toBe("bash: ls ⏎ -la");
    expect(toolTitle("web_fetch", {})).toBe("web_fetch");
    expect(toolTitle("bash", { command: "x".repeat(500) }).length).toBeLessThanOrEqual(206);
  });

  it("diffs a write against the file's text, a new file against nothing, and an edit by its passage", async () => {
    await writeFile(join(workspace, "a.txt"), "before\n");
    expect(await proposedDiff("write", { path: "a.txt", content: "after\n", mode: "replace" }, workspace)).toEqual({
      type: "diff",
      path: join(workspace, "a.txt"),
      oldText: "before\n",
      newText: "after\n",
    });
    expect(await proposedDiff("write", { path: "new.txt", content: "hi", mode: "create" }, workspace)).toEqual({
      type: "diff",
      path: join(workspace, "new.txt"),
      oldText: null,
      newText: "hi",
    });
    expect(await proposedDiff("edit", { path: "a.txt", old_string: "before", new_string: "after" }, workspace))
      .toMatchObject({
        oldText: "before",
        newText: "after",
      });
    expect(await proposedDiff("bash", { command: "true" }, workspace)).toBeUndefined();
    expect(await proposedDiff("write", { path: "/etc/passwd", content: "x", mode: "replace" }, workspace))
      .toBeUndefined();
  });
});
