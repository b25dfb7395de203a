import { createHash } from "node:crypto";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createWriteTool } from "../../lib/tools/write.ts";
import { makeSandbox, prepare, prepareError, run, type Sandbox, testConfig } from "./helpers.ts";

const sha = (text: string) => createHash("sha256").update(text).digest("hex");

/** Every file name under `dir`, recursively. */
function allFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" });
}

describe("write", () => {
  let box: Sandbox;
  const tool = createWriteTool({ maxWriteBytes: 64 });
  const write = (args: unknown) => run(prepare(tool, args, box.workspace), box.workspace);
  beforeEach(() => {
    box = makeSandbox();
  });
  afterEach(() => {
    // The temp file never remains, whatever the test did.
    expect(allFiles(box.root).filter((name) => name.includes(".scv-write-"))).toEqual([]);
    box.cleanup();
  });

  it("refuses scv's home and configuration files before asking, through symlinked parents too", () => {
    const home = join(box.workspace, ".scv");
    mkdirSync(home);
    writeFileSync(join(home, "config.toml"), "");
    symlinkSync(".scv", join(box.workspace, "alias"));
    const config = testConfig();
    config.secrets = { ...config.secrets, home, config_files: [{ path: join(box.workspace, "project.toml") }] };
    const refusal = "refused: scv's instance home and configuration files are off limits to tools";
    for (const path of [".scv/config.toml", "alias/config.toml", "alias/new/dir.txt", "project.toml"]) {
      expect(prepareError(tool, { path, content: "x", mode: "create" }, box.workspace, config), path).toBe(
        `write ${path}: ${refusal}`,
      );
    }
  });

  it("carries the whole new content as detail", () => {
    expect(prepare(tool, { path: "a.txt", content: "line 1\nline 2", mode: "create" }, box.workspace).detail).toBe(
      "line 1\nline 2",
    );
  });

  it("refuses to write where the path leads after approval when that differs from what was approved", async () => {
    mkdirSync(join(box.workspace, "one"));
    mkdirSync(join(box.workspace, "two"));
    symlinkSync("one", join(box.workspace, "dir"));
    const call = prepare(tool, { path: "dir/x.txt", content: "x", mode: "create" }, box.workspace);
    rmSync(join(box.workspace, "dir"));
    symlinkSync("two", join(box.workspace, "dir"));
    expect(await run(call, box.workspace)).toMatchObject({
      success: false,
      output: "write dir/x.txt: refused: the path now leads elsewhere than when it was approved; try again",
    });
    expect(allFiles(box.workspace).filter((name) => name.endsWith("x.txt"))).toEqual([]);
  });

  it("declares its one schema", () => {
    expect(tool.description).toBe("Atomically create or replace a UTF-8 file inside the workspace");
    expect(tool.parameters).toMatchObject({
      type: "object",
      required: ["path", "content", "mode"],
      additionalProperties: false,
      properties: { mode: { type: "string", enum: ["create", "replace"] }, expected_sha256: { type: "string" } },
    });
  });

  it("creates a file with parents, with risk, summary and output", async () => {
    const call = prepare(tool, { path: "src/deep/new.txt", content: "héllo", mode: "create" }, box.workspace);
    expect(call.risk).toBe("filesystem");
    expect(call.summary).toBe("Create src/deep/new.txt (6 bytes)");
    const outcome = await run(call, box.workspace);
    expect(outcome).toEqual({
      success: true,
      truncated: false,
      output: JSON.stringify({ path: "src/deep/new.txt", bytes: 6, sha256: sha("héllo") }),
    });
    expect(readFileSync(join(box.workspace, "src/deep/new.txt"), "utf8")).toBe("héllo");
  });

  it("refuses to create over an existing file and leaves it alone", async () => {
    writeFileSync(join(box.workspace, "a.txt"), "old");
    expect(await write({ path: "a.txt", content: "new", mode: "create" })).toEqual({
      success: false,
      truncated: false,
      error: "failed",
      output: "a.txt already exists",
    });
    expect(readFileSync(join(box.workspace, "a.txt"), "utf8")).toBe("old");
  });

  it("replaces with the right sha256 (any case) and refuses a wrong one", async () => {
    writeFileSync(join(box.workspace, "a.txt"), "old");
    const summary = prepare(tool, { path: "a.txt", content: "newer", mode: "replace" }, box.workspace).summary;
    expect(summary).toBe("Replace a.txt (5 bytes)");
    const wrong = "0".repeat(64);
    expect(await write({ path: "a.txt", content: "x", mode: "replace", expected_sha256: wrong })).toMatchObject({
      success: false,
      error: "failed",
      output: `a.txt changed: expected sha256 ${wrong}, found ${sha("old")}`,
    });
    expect(readFileSync(join(box.workspace, "a.txt"), "utf8")).toBe("old");
    const upper = sha("old").toUpperCase();
    const outcome = await write({ path: "a.txt", content: "newer", mode: "replace", expected_sha256: upper });
    expect(outcome).toEqual({
      success: true,
      truncated: false,
      output: JSON.stringify({ path: "a.txt", bytes: 5, sha256: sha("newer") }),
    });
    expect(readFileSync(join(box.workspace, "a.txt"), "utf8")).toBe("newer");
  });

  it("replaces without a precondition and keeps the file mode", async () => {
    writeFileSync(join(box.workspace, "run.sh"), "#!/bin/sh\n");
    chmodSync(join(box.workspace, "run.sh"), 0o750);
    expect((await write({ path: "run.sh", content: "#!/bin/sh\necho hi\n", mode: "replace" })).success).toBe(true);
    expect(statSync(join(box.workspace, "run.sh")).mode & 0o777).toBe(0o750);
  });

  it("refuses to replace a missing file, without creating parents", async () => {
    expect(await write({ path: "missing.txt", content: "x", mode: "replace" })).toMatchObject({
      success: false,
      error: "failed",
      output: "missing.txt does not exist",
    });
    expect(await write({ path: "no/such/dir.txt", content: "x", mode: "replace" })).toMatchObject({
      output: "no/such/dir.txt does not exist",
    });
    expect(existsSync(join(box.workspace, "no"))).toBe(false);
  });

  it("refuses traversal and absolute paths before asking", () => {
    expect(prepareError(tool, { path: "../x", content: "x", mode: "create" }, box.workspace)).toBe(
      "parent traversal and absolute paths are not allowed",
    );
    expect(prepareError(tool, { path: "/tmp/x", content: "x", mode: "create" }, box.workspace)).toMatch(
      /^absolute path \/tmp\/x is outside the workspace .*; give a path relative to it$/,
    );
    expect(prepareError(tool, { path: `${box.workspace}/../x`, content: "x", mode: "create" }, box.workspace)).toBe(
      "parent traversal is not allowed",
    );
    expect(prepare(tool, { path: `${box.workspace}/in.txt`, content: "x", mode: "create" }, box.workspace).summary)
      .toBe("Create in.txt (1 bytes)");
    expect(prepareError(tool, { path: "x", content: "x", mode: "append" }, box.workspace)).toBe(
      'invalid arguments: "mode" must be one of "create", "replace"',
    );
    expect(prepareError(tool, { path: "x", content: 1, mode: "create" }, box.workspace)).toBe(
      'invalid arguments: "content" must be a string, found an integer',
    );
    expect(existsSync(join(box.root, "x"))).toBe(false);
  });

  it("never writes through a symlink that leaves the workspace", async () => {
    symlinkSync(box.outside, join(box.workspace, "out"));
    expect(prepareError(tool, { path: "out/x.txt", content: "x", mode: "create" }, box.workspace)).toBe(
      "write out/x.txt: resolves outside the workspace; path must remain within workspace",
    );
    // Escaping link planted after approval: refused at run time.
    const call = prepare(tool, { path: "later/x.txt", content: "x", mode: "create" }, box.workspace);
    symlinkSync(box.outside, join(box.workspace, "later"));
    expect(await run(call, box.workspace)).toMatchObject({
      success: false,
      error: "failed",
      output: "write later/x.txt: resolves outside the workspace; path must remain within workspace",
    });
    expect(readdirSync(box.outside)).toEqual([]);
  });

  it("does not follow a final symlink out of the workspace", async () => {
    writeFileSync(join(box.outside, "target.txt"), "outside");
    symlinkSync(join(box.outside, "target.txt"), join(box.workspace, "link.txt"));
    symlinkSync(join(box.outside, "missing.txt"), join(box.workspace, "dangling.txt"));
    for (const mode of ["create", "replace"]) {
      for (const path of ["link.txt", "dangling.txt"]) {
        expect(prepareError(tool, { path, content: "x", mode }, box.workspace)).toBe(
          `write ${path}: resolves outside the workspace; path must remain within workspace`,
        );
      }
    }
    // A link planted after approval with create: link(2) refuses to overwrite it.
    const call = prepare(tool, { path: "planted.txt", content: "x", mode: "create" }, box.workspace);
    symlinkSync(join(box.outside, "planted.txt"), join(box.workspace, "planted.txt"));
    expect(await run(call, box.workspace)).toMatchObject({ success: false, output: "planted.txt already exists" });
    expect(existsSync(join(box.outside, "planted.txt"))).toBe(false);
    expect(readFileSync(join(box.outside, "target.txt"), "utf8")).toBe("outside");
    // Replace renames over the entry itself: a link swapped in after approval is replaced, not followed.
    writeFileSync(join(box.workspace, "swap.txt"), "inside");
    const replace = prepare(tool, { path: "swap.txt", content: "new", mode: "replace" }, box.workspace);
    rmSync(join(box.workspace, "swap.txt"));
    symlinkSync(join(box.outside, "target.txt"), join(box.workspace, "swap.txt"));
    expect((await run(replace, box.workspace)).success).toBe(true);
    expect(lstatSync(join(box.workspace, "swap.txt")).isFile()).toBe(true);
    expect(readFileSync(join(box.outside, "target.txt"), "utf8")).toBe("outside");
  });

  it("writes through symlinked directories that stay inside", async () => {
    mkdirSync(join(box.workspace, "real"));
    symlinkSync("real", join(box.workspace, "alias"));
    expect((await write({ path: "alias/f.txt", content: "in", mode: "create" })).success).toBe(true);
    expect(readFileSync(join(box.workspace, "real", "f.txt"), "utf8")).toBe("in");
  });

  it("enforces the size cap as a limit failure", async () => {
    const outcome = await write({ path: "big.txt", content: "é".repeat(33), mode: "create" });
    expect(outcome).toEqual({
      success: false,
      truncated: false,
      error: "limit",
      output: "write exceeds 64 byte limit",
    });
    expect(existsSync(join(box.workspace, "big.txt"))).toBe(false);
  });

  it("reports a parent that is a file", async () => {
    writeFileSync(join(box.workspace, "file"), "x");
    expect(await write({ path: "file/child.txt", content: "x", mode: "create" })).toMatchObject({
      success: false,
      output: "write file/child.txt: not a directory; path must remain within workspace",
    });
  });

  it("does nothing once the turn is cancelled", async () => {
    const controller = new AbortController();
    controller.abort();
    const call = prepare(tool, { path: "c.txt", content: "x", mode: "create" }, box.workspace);
    expect(await run(call, box.workspace, { signal: controller.signal })).toMatchObject({
      success: false,
      error: "cancelled",
    });
    expect(existsSync(join(box.workspace, "c.txt"))).toBe(false);
  });

  it("creates many files concurrently with unique temp names", async () => {
    const outcomes = await Promise.all(
      Array.from(
        { length: 20 },
        (_, index) => write({ path: `many/${index}.txt`, content: String(index), mode: "create" }),
      ),
    );
    expect(outcomes.every((outcome) => outcome.success)).toBe(true);
    expect(readdirSync(join(box.workspace, "many")).length).toBe(20);
  });
});
