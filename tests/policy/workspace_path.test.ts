import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  checkRelativePath,
  isInside,
  openConfinedForRead,
  probePath,
  resolveExisting,
  resolveParent,
  toolPath,
} from "../../lib/policy/workspace_path.ts";
import { makeSandbox, type Sandbox } from "../tools/helpers.ts";

describe("toolPath", () => {
  let box: Sandbox;
  beforeEach(() => {
    box = makeSandbox();
  });
  afterEach(() => box.cleanup());

  it("takes an absolute path inside the workspace as the relative one", () => {
    expect(toolPath(box.workspace, join(box.workspace, "a/b.txt"))).toEqual({ path: "a/b.txt" });
    expect(toolPath(box.workspace, `${box.workspace}//a/./b.txt/`)).toEqual({ path: "a/b.txt" });
    expect(toolPath(box.workspace, "a/b.txt")).toEqual({ path: "a/b.txt" });
  });

  it("refuses absolute paths outside the workspace, the workspace itself, a sibling prefix and `..`", () => {
    for (const path of ["/etc/passwd", box.workspace, `${box.workspace}-evil/x`, join(box.outside, "x")]) {
      expect(toolPath(box.workspace, path), path).toEqual({
        error: `absolute path ${path} is outside the workspace ${box.workspace}; give a path relative to it`,
      });
    }
    expect(toolPath(box.workspace, `${box.workspace}/a/../../outside/x`)).toEqual({
      error: "parent traversal is not allowed",
    });
    expect(toolPath(box.workspace, `${box.workspace}/a\0b`)).toHaveProperty("error");
    expect(toolPath(box.workspace, "../x")).toEqual({ error: "parent traversal and absolute paths are not allowed" });
  });
});

describe("checkRelativePath", () => {
  it("refuses empty and absolute paths", () => {
    expect(checkRelativePath("")).toBe("path must be non-empty and relative");
    expect(checkRelativePath("/etc/passwd")).toBe("path must be non-empty and relative");
  });

  it("refuses parent traversal anywhere", () => {
    for (const path of ["..", "../x", "a/../b", "a/..", "a/b/../../.."]) {
      expect(checkRelativePath(path)).toBe("parent traversal and absolute paths are not allowed");
    }
  });

  it("accepts relative paths, dots and odd but legal names", () => {
    for (const path of ["a", "a/b.txt", "./a", "a//b", "..a", "a..", "...", "a\\..\\b"]) {
      expect(checkRelativePath(path)).toBeUndefined();
    }
  });

  it("refuses NUL bytes", () => {
    expect(checkRelativePath("a\0b")).toMatch(/^invalid arguments: /);
  });
});

describe("isInside", () => {
  it("compares whole components", () => {
    expect(isInside("/w", "/w")).toBe(true);
    expect(isInside("/w", "/w/a")).toBe(true);
    expect(isInside("/w", "/wx/a")).toBe(false);
    expect(isInside("/w", "/")).toBe(false);
    expect(isInside("/", "/anything")).toBe(true);
  });
});

describe("resolution with real symlinks", () => {
  let box: Sandbox;
  beforeEach(() => {
    box = makeSandbox();
    writeFileSync(join(box.outside, "secret.txt"), "outside");
    writeFileSync(join(box.workspace, "inside.txt"), "inside");
    mkdirSync(join(box.workspace, "dir"));
    symlinkSync(join(box.outside, "secret.txt"), join(box.workspace, "file-out"));
    symlinkSync(box.outside, join(box.workspace, "dir-out"));
    symlinkSync("inside.txt", join(box.workspace, "file-in"));
    symlinkSync("dir", join(box.workspace, "dir-in"));
    symlinkSync(join(box.outside, "missing"), join(box.workspace, "dangling-out"));
  });
  afterEach(() => box.cleanup());

  it("probePath reports escapes through file, directory and dangling links", () => {
    expect(probePath(box.workspace, "file-out").escaped).toBe(true);
    expect(probePath(box.workspace, "dir-out/new/file.txt").escaped).toBe(true);
    expect(probePath(box.workspace, "dangling-out").escaped).toBe(true);
    expect(probePath(box.workspace, "file-in")).toEqual({ escaped: false, resolvedRelative: "inside.txt" });
    expect(probePath(box.workspace, "dir-in/new/x")).toEqual({ escaped: false, resolvedRelative: "dir" });
    expect(probePath(box.workspace, "missing/deep")).toEqual({ escaped: false, resolvedRelative: "" });
  });

  it("resolveExisting refuses escapes and names the action and path", async () => {
    await expect(resolveExisting(box.workspace, "file-out", "read")).rejects.toThrow(
      "read file-out: resolves outside the workspace; path must remain within workspace",
    );
    await expect(resolveExisting(box.workspace, "nope.txt", "read")).rejects.toThrow(
      "read nope.txt: no such file or directory; path must remain within workspace",
    );
    expect(await resolveExisting(box.workspace, "file-in", "read")).toBe(join(box.workspace, "inside.txt"));
  });

  it("openConfinedForRead opens files inside, also through inside links", async () => {
    const handle = await openConfinedForRead(box.workspace, "file-in", "read");
    expect((await handle.readFile()).toString()).toBe("inside");
    await handle.close();
    await expect(openConfinedForRead(box.workspace, "dir-out/secret.txt", "read")).rejects.toThrow(
      /resolves outside the workspace; path must remain within workspace$/,
    );
  });

  it("resolveParent creates directories only when asked, never through an escaping link", async () => {
    expect(await resolveParent(box.workspace, "a/b/c.txt", "write", false)).toMatchObject({ missing: true });
    const created = await resolveParent(box.workspace, "a/b/c.txt", "write", true);
    expect(created).toEqual({ dir: join(box.workspace, "a", "b"), name: "c.txt", missing: false });
    expect(await resolveParent(box.workspace, "dir-in/x.txt", "write", true)).toEqual({
      dir: join(box.workspace, "dir"),
      name: "x.txt",
      missing: false,
    });
    await expect(resolveParent(box.workspace, "dir-out/x.txt", "write", true)).rejects.toThrow(
      "write dir-out/x.txt: resolves outside the workspace; path must remain within workspace",
    );
    await expect(resolveParent(box.workspace, "inside.txt/x", "write", true)).rejects.toThrow(
      "write inside.txt/x: not a directory; path must remain within workspace",
    );
  });
});
