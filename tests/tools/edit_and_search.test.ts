// edit, grep, glob and list in-process, tried the way a model could try to reach outside the workspace: through
// symbolic links (to files and to folders), and with files that are not text.
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createEditTool } from "../../lib/tools/edit.ts";
import { createGlobTool } from "../../lib/tools/search/glob.ts";
import { createGrepTool } from "../../lib/tools/search/grep.ts";
import { createListTool } from "../../lib/tools/search/list.ts";
import { makeSandbox, prepare, prepareError, run, type Sandbox } from "./helpers.ts";

let box: Sandbox;
beforeEach(() => {
  box = makeSandbox();
});
afterEach(() => box.cleanup());

const edit = createEditTool({ maxWriteBytes: 1_000_000 });
const grep = createGrepTool();

describe("edit", () => {
  it("keeps a byte-order mark and refuses files that are not UTF-8", async () => {
    writeFileSync(join(box.workspace, "bom.txt"), "\ufeffhello world\n");
    const outcome = await run(
      prepare(edit, { path: "bom.txt", old_string: "world", new_string: "there" }, box.workspace),
      box.workspace,
    );
    expect(outcome.success).toBe(true);
    expect(readFileSync(join(box.workspace, "bom.txt"), "utf8")).toBe("\ufeffhello there\n");
    writeFileSync(join(box.workspace, "latin1.txt"), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    const refused = await run(
      prepare(edit, { path: "latin1.txt", old_string: "caf", new_string: "x" }, box.workspace),
      box.workspace,
    );
    expect(refused).toMatchObject({ success: false });
    expect(refused.output).toContain("not UTF-8");
    expect(readFileSync(join(box.workspace, "latin1.txt"))).toEqual(Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
  });

  it("takes an absolute path inside the workspace and refuses one outside", async () => {
    writeFileSync(join(box.workspace, "a.txt"), "hello world\n");
    writeFileSync(join(box.outside, "a.txt"), "hello world\n");
    const call = prepare(
      edit,
      { path: join(box.workspace, "a.txt"), old_string: "world", new_string: "there" },
      box.workspace,
    );
    expect(call.summary).toMatch(/^Edit a\.txt: /);
    expect((await run(call, box.workspace)).success).toBe(true);
    expect(readFileSync(join(box.workspace, "a.txt"), "utf8")).toBe("hello there\n");
    const outside = join(box.outside, "a.txt");
    expect(prepareError(edit, { path: outside, old_string: "world", new_string: "x" }, box.workspace)).toBe(
      `absolute path ${outside} is outside the workspace ${box.workspace}; give a path relative to it`,
    );
    expect(readFileSync(outside, "utf8")).toBe("hello world\n");
  });

  it("refuses a symlink to a file outside, and leaves that file alone", async () => {
    writeFileSync(join(box.outside, "target.txt"), "secret\n");
    symlinkSync(join(box.outside, "target.txt"), join(box.workspace, "link.txt"));
    mkdirSync(join(box.outside, "dir"));
    writeFileSync(join(box.outside, "dir", "x.txt"), "secret\n");
    symlinkSync(join(box.outside, "dir"), join(box.workspace, "dirlink"));
    for (const path of ["link.txt", "dirlink/x.txt"]) {
      expect(prepareError(edit, { path, old_string: "secret", new_string: "owned" }, box.workspace)).toContain(
        "outside the workspace",
      );
    }
    expect(readFileSync(join(box.outside, "target.txt"), "utf8")).toBe("secret\n");
    expect(readFileSync(join(box.outside, "dir", "x.txt"), "utf8")).toBe("secret\n");
  });
});

describe("grep, glob and list", () => {
  it("never follows symbolic links out of the workspace", async () => {
    writeFileSync(join(box.outside, "leak.txt"), "needle outside\n");
    symlinkSync(box.outside, join(box.workspace, "out"));
    symlinkSync(join(box.outside, "leak.txt"), join(box.workspace, "leak.txt"));
    writeFileSync(join(box.workspace, "in.txt"), "needle inside\n");
    const found = await run(prepare(grep, { pattern: "needle" }, box.workspace), box.workspace);
    expect(found.output).toBe("in.txt:1:needle inside");
    expect(prepareError(grep, { pattern: "needle", path: "out" }, box.workspace)).toContain("outside the workspace");
    const globbed = await run(prepare(createGlobTool(), { pattern: "**/*.txt" }, box.workspace), box.workspace);
    expect(globbed.output.split("\n")).not.toContain("out/leak.txt");
    expect(prepareError(createListTool(), { path: "out" }, box.workspace)).toContain("outside the workspace");
  });

  it("take an absolute path inside the workspace (or the workspace itself) and refuse one outside", async () => {
    mkdirSync(join(box.workspace, "src"));
    writeFileSync(join(box.workspace, "src", "a.txt"), "needle\n");
    const inSrc = await run(
      prepare(grep, { pattern: "needle", path: join(box.workspace, "src") }, box.workspace),
      box.workspace,
    );
    expect(inSrc.output).toBe("src/a.txt:1:needle");
    const whole = await run(
      prepare(grep, { pattern: "needle", path: `${box.workspace}/` }, box.workspace),
      box.workspace,
    );
    expect(whole.output).toBe("src/a.txt:1:needle");
    const listed = await run(
      prepare(createListTool(), { path: join(box.workspace, "src") }, box.workspace),
      box.workspace,
    );
    expect(listed.output).toContain("a.txt");
    const globbed = prepare(createGlobTool(), { pattern: "*.txt", path: join(box.workspace, "src") }, box.workspace);
    expect((await run(globbed, box.workspace)).output).toBe("src/a.txt");
    const outside = [
      prepareError(grep, { pattern: "x", path: box.outside }, box.workspace),
      prepareError(createGlobTool(), { pattern: "*", path: box.outside }, box.workspace),
      prepareError(createListTool(), { path: box.outside }, box.workspace),
    ];
    for (const error of outside)
      expect(error).toMatch(/^absolute path .* is outside the workspace .*; give a path relative/);
  });

  it("cuts long lines with a marker, skips binary files, and asks before searching a secret-like path", async () => {
    writeFileSync(join(box.workspace, "long.txt"), `${"a".repeat(1000)}needle\n`);
    writeFileSync(join(box.workspace, "blob.bin"), Buffer.concat([Buffer.from("needle"), Buffer.from([0, 0, 1])]));
    const found = await run(prepare(grep, { pattern: "needle" }, box.workspace), box.workspace);
    expect(found.output).toMatch(/^long\.txt:1:a{400}… \[line cut, 606 more characters\]$/);
    expect(prepare(grep, { pattern: "x", path: ".env" }, box.workspace).risk).toBe("filesystem");
    expect(prepare(grep, { pattern: "x" }, box.workspace).risk).toBe("read_only");
  });
});

describe("grep's literal prefilter", () => {
  it("takes only text every match must contain", async () => {
    const { requiredLiteral } = await import("../../lib/tools/search/grep.ts");
    const text = (pattern: string) => requiredLiteral(pattern)?.toString("utf8");
    expect(text("needle_4[0-9]+x")).toBe("needle_4");
    expect(text("^import foo")).toBe("import foo");
    expect(text("colou?r")).toBe("colo");
    expect(text("abcd*")).toBe("abc");
    expect(text("ab")).toBeUndefined();
    expect(text("foo|bar")).toBeUndefined();
    expect(text("(foo)bar")).toBeUndefined();
    expect(text("\\bword")).toBeUndefined();
  });

  it("finds the same lines with and without it", async () => {
    writeFileSync(join(box.workspace, "a.txt"), "x needle_41x y\nneedle_4x\nno\n");
    writeFileSync(join(box.workspace, "b.txt"), "nothing here\n");
    writeFileSync(join(box.workspace, "c.txt"), "ünïcode needle_499x\n");
    const found = await run(prepare(grep, { pattern: "needle_4[0-9]+x" }, box.workspace), box.workspace);
    expect(found.output).toBe("a.txt:1:x needle_41x y\nc.txt:1:ünïcode needle_499x");
    const insensitive = await run(
      prepare(grep, { pattern: "NEEDLE_4[0-9]+X", ignore_case: true }, box.workspace),
      box.workspace,
    );
    expect(insensitive.output).toBe(found.output);
  });
});

describe("grep and secret-like files", () => {
  it("skips them in a workspace search, and searches one named explicitly once that call is approved", async () => {
    writeFileSync(join(box.workspace, ".env"), "TOKEN=needle\n");
    writeFileSync(join(box.workspace, "a.txt"), "needle\n");
    const broad = await run(prepare(grep, { pattern: "needle" }, box.workspace), box.workspace);
    expect(broad.output).toBe(
      "a.txt:1:needle\n(1 file not searched: secret-like, hard-linked, linked out of the workspace or scv's own; " +
        "read asks before opening a secret-like file)",
    );
    const named = prepare(grep, { pattern: "needle", path: ".env" }, box.workspace);
    expect(named.risk).toBe("filesystem");
    expect((await run(named, box.workspace)).output).toBe(".env:1:TOKEN=needle");
  });
});
