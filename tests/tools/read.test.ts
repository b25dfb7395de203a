import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createReadTool } from "../../lib/tools/read.ts";
import { makeSandbox, prepare, prepareError, run, type Sandbox } from "./helpers.ts";

describe("read", () => {
  let box: Sandbox;
  const tool = createReadTool({ maxReadBytes: 16 });
  beforeEach(() => {
    box = makeSandbox();
    writeFileSync(join(box.workspace, "abc.txt"), "abcdef");
  });
  afterEach(() => box.cleanup());

  it("declares its one schema and description", () => {
    expect(tool.name).toBe("read");
    expect(tool.description).toBe("Read a bounded UTF-8 file inside the workspace");
    expect(tool.parameters).toMatchObject({
      type: "object",
      required: ["path"],
      additionalProperties: false,
      properties: { offset: { type: "integer", minimum: 0 }, limit: { type: "integer", minimum: 1 } },
    });
  });

  it("reads a byte range: offset 2, limit 3 of abcdef is cde, truncated", async () => {
    const call = prepare(tool, { path: "abc.txt", offset: 2, limit: 3 }, box.workspace);
    expect(call.risk).toBe("read_only");
    expect(call.summary).toBe("Read abc.txt");
    const outcome = await run(call, box.workspace);
    expect(outcome).toEqual({
      success: true,
      truncated: true,
      output: '{"path":"abc.txt","content":"cde","total_bytes":6,"offset":2,"truncated":true}',
    });
  });

  it("reads a whole file untruncated, and clamps an offset past the end", async () => {
    expect(await run(prepare(tool, { path: "abc.txt" }, box.workspace), box.workspace)).toEqual({
      success: true,
      truncated: false,
      output: '{"path":"abc.txt","content":"abcdef","total_bytes":6,"offset":0,"truncated":false}',
    });
    const past = await run(prepare(tool, { path: "./abc.txt", offset: 100 }, box.workspace), box.workspace);
    expect(JSON.parse(past.output)).toEqual({
      path: "./abc.txt",
      content: "",
      total_bytes: 6,
      offset: 6,
      truncated: true,
    });
  });

  it("caps the limit at max_read_bytes", async () => {
    writeFileSync(join(box.workspace, "long.txt"), "x".repeat(40));
    const outcome = await run(prepare(tool, { path: "long.txt", limit: 1000 }, box.workspace), box.workspace);
    const parsed = JSON.parse(outcome.output);
    expect(parsed.content).toBe("x".repeat(16));
    expect(parsed.truncated).toBe(true);
    expect(outcome.truncated).toBe(true);
  });

  it("refuses a range that splits a UTF-8 character, and accepts whole characters", async () => {
    writeFileSync(join(box.workspace, "utf8.txt"), "aé"); // 61 c3 a9
    const split = await run(prepare(tool, { path: "utf8.txt", limit: 2 }, box.workspace), box.workspace);
    expect(split).toEqual({
      success: false,
      truncated: false,
      error: "failed",
      output: "selected range of utf8.txt is not UTF-8",
    });
    const whole = await run(prepare(tool, { path: "utf8.txt", offset: 1 }, box.workspace), box.workspace);
    expect(JSON.parse(whole.output).content).toBe("é");
  });

  it("keeps a byte order mark and refuses binary files", async () => {
    writeFileSync(join(box.workspace, "bom.txt"), "\ufeffhi");
    const bom = await run(prepare(tool, { path: "bom.txt" }, box.workspace), box.workspace);
    expect(JSON.parse(bom.output).content).toBe("\ufeffhi");
    writeFileSync(join(box.workspace, "bin"), Buffer.from([0xff, 0xfe, 0x00]));
    const binary = await run(prepare(tool, { path: "bin" }, box.workspace), box.workspace);
    expect(binary.output).toBe("selected range of bin is not UTF-8");
  });

  it("validates arguments before anything runs", () => {
    expect(prepareError(tool, { path: "abc.txt", limit: 0 }, box.workspace)).toBe("read limit must be positive");
    expect(prepareError(tool, { path: "abc.txt", offset: -1 }, box.workspace)).toBe(
      'invalid arguments: "offset" must be at least 0',
    );
    expect(prepareError(tool, { path: "abc.txt", extra: true }, box.workspace)).toBe(
      'invalid arguments: unknown property "extra"',
    );
    expect(prepareError(tool, {}, box.workspace)).toBe('invalid arguments: missing required property "path"');
    expect(prepareError(tool, { path: "" }, box.workspace)).toBe("path must be non-empty and relative");
    expect(prepareError(tool, { path: "/etc/hostname" }, box.workspace)).toMatch(
      /^absolute path \/etc\/hostname is outside the workspace .*; give a path relative to it$/,
    );
    expect(prepareError(tool, { path: "../outside/x" }, box.workspace)).toBe(
      "parent traversal and absolute paths are not allowed",
    );
  });

  it("takes an absolute path inside the workspace as the relative one (models send them)", async () => {
    const call = prepare(tool, { path: join(box.workspace, "abc.txt"), offset: 2, limit: 3 }, box.workspace);
    expect(call.summary).toBe("Read abc.txt");
    expect((await run(call, box.workspace)).output).toBe(
      '{"path":"abc.txt","content":"cde","total_bytes":6,"offset":2,"truncated":true}',
    );
  });

  it("refuses symlink escapes before asking, and again at run time", async () => {
    writeFileSync(join(box.outside, "secret.txt"), "top secret");
    symlinkSync(join(box.outside, "secret.txt"), join(box.workspace, "link.txt"));
    symlinkSync(box.outside, join(box.workspace, "out"));
    expect(prepareError(tool, { path: "link.txt" }, box.workspace)).toBe(
      "read link.txt: resolves outside the workspace; path must remain within workspace",
    );
    expect(prepareError(tool, { path: "out/secret.txt" }, box.workspace)).toBe(
      "read out/secret.txt: resolves outside the workspace; path must remain within workspace",
    );
    // Swapped for an escaping link after approval: the run refuses it too.
    writeFileSync(join(box.workspace, "swap.txt"), "fine");
    const call = prepare(tool, { path: "swap.txt" }, box.workspace);
    rmSync(join(box.workspace, "swap.txt"));
    symlinkSync(join(box.outside, "secret.txt"), join(box.workspace, "swap.txt"));
    const outcome = await run(call, box.workspace);
    expect(outcome.success).toBe(false);
    expect(outcome.error).toBe("failed");
    expect(outcome.output).toBe("read swap.txt: resolves outside the workspace; path must remain within workspace");
    expect(outcome.output).not.toContain("top secret");
  });

  it("follows symlinks that stay inside", async () => {
    mkdirSync(join(box.workspace, "docs"));
    writeFileSync(join(box.workspace, "docs", "a.md"), "inside");
    symlinkSync("docs", join(box.workspace, "alias"));
    const outcome = await run(prepare(tool, { path: "alias/a.md" }, box.workspace), box.workspace);
    expect(JSON.parse(outcome.output).content).toBe("inside");
  });

  it("reports missing files and directories as failures", async () => {
    const missing = await run(prepare(tool, { path: "nope.txt" }, box.workspace), box.workspace);
    expect(missing).toMatchObject({
      success: false,
      error: "failed",
      output: "read nope.txt: no such file or directory; path must remain within workspace",
    });
    mkdirSync(join(box.workspace, "d"));
    const dir = await run(prepare(tool, { path: "d" }, box.workspace), box.workspace);
    expect(dir).toMatchObject({ success: false, error: "failed", output: "read d: is a directory" });
  });

  it("marks secret-like paths as filesystem risk, also behind an innocent symlink", () => {
    for (const path of [".env", "a/.env.local", "k/id.pem", "credentials.txt"]) {
      const call = prepare(tool, { path }, box.workspace);
      expect(call.risk).toBe("filesystem");
      expect(call.summary).toBe(`Read ${path}`);
    }
    writeFileSync(join(box.workspace, ".env"), "KEY=1");
    symlinkSync(".env", join(box.workspace, "notes.txt"));
    expect(prepare(tool, { path: "notes.txt" }, box.workspace).risk).toBe("filesystem");
  });

  it("does not block on a FIFO", async () => {
    execFileSync("mkfifo", [join(box.workspace, "pipe")]);
    const outcome = await run(prepare(tool, { path: "pipe" }, box.workspace), box.workspace);
    expect(outcome).toMatchObject({ success: false, output: "read pipe: not a regular file" });
  });

  it("returns cancelled when the turn is already cancelled", async () => {
    const controller = new AbortController();
    controller.abort();
    const outcome = await run(prepare(tool, { path: "abc.txt" }, box.workspace), box.workspace, {
      signal: controller.signal,
    });
    expect(outcome).toMatchObject({ success: false, error: "cancelled" });
  });
});
