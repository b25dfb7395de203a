// The shared file check (lib/tools/file_guard.ts) in-process: what is refused, what asks, and the verdict
// taken on what was opened rather than on the path text.
import { linkSync, mkdirSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ResolvedConfig } from "../../lib/config/types.ts";
import {
  checkUnchanged,
  guardWriteTarget,
  isProtectedPath,
  openGuardedForRead,
  probeForRead,
  probeWriteTarget,
  ProtectedPathError,
} from "../../lib/tools/file_guard.ts";
import { makeSandbox, type Sandbox, testConfig } from "./helpers.ts";

let box: Sandbox;
let config: ResolvedConfig;
beforeEach(() => {
  box = makeSandbox();
  const home = join(box.workspace, ".scv");
  mkdirSync(home);
  writeFileSync(join(home, "config.toml"), "");
  writeFileSync(join(box.outside, "explicit.toml"), "");
  config = testConfig();
  config.secrets = {
    home,
    config_files: [{ path: join(home, "config.toml") }, { path: join(box.workspace, "project.toml") }, {
      path: join(box.outside, "explicit.toml"),
    }],
    env_names: [],
    values: [],
  };
});
afterEach(() => box.cleanup());

describe("isProtectedPath", () => {
  it("covers the home, everything below it and each configuration file, by real path", () => {
    expect(isProtectedPath(config, join(box.workspace, ".scv"))).toBe(true);
    expect(isProtectedPath(config, join(box.workspace, ".scv", "skills", "x", "SKILL.md"))).toBe(true);
    expect(isProtectedPath(config, join(box.workspace, "project.toml"))).toBe(true);
    expect(isProtectedPath(config, join(box.workspace, ".scvx"))).toBe(false);
    expect(isProtectedPath(config, join(box.workspace, "a.txt"))).toBe(false);
  });

  it("catches a hard link to a configuration file by its identity", () => {
    config.secrets.config_files[2] = { path: join(box.outside, "explicit.toml"), dev: 7, ino: 42 };
    expect(isProtectedPath(config, join(box.workspace, "copy.toml"), { dev: 7, ino: 42 })).toBe(true);
    expect(isProtectedPath(config, join(box.workspace, "copy.toml"), { dev: 7, ino: 43 })).toBe(false);
  });
});

describe("probeForRead and openGuardedForRead", () => {
  it("refuses scv's files through any spelling or symlink", () => {
    symlinkSync(".scv/config.toml", join(box.workspace, "innocent.txt"));
    for (const path of [".scv/config.toml", "./.scv//config.toml", "innocent.txt"]) {
      expect(() => probeForRead(config, box.workspace, path, "read"), path).toThrow(ProtectedPathError);
    }
  });

  it("judges a multiply-linked regular file secret-like, a singly linked one not", async () => {
    writeFileSync(join(box.outside, "s.txt"), "outside");
    linkSync(join(box.outside, "s.txt"), join(box.workspace, "linked.txt"));
    writeFileSync(join(box.workspace, "alone.txt"), "alone");
    expect(probeForRead(config, box.workspace, "linked.txt", "read").secret).toBe(true);
    expect(probeForRead(config, box.workspace, "alone.txt", "read").secret).toBe(false);
    const opened = await openGuardedForRead(config, box.workspace, "linked.txt", "read");
    await opened.handle.close();
    expect(opened.verdict.secret).toBe(true);
  });

  it("judges a symlink by its target, and a missing file by its name", () => {
    writeFileSync(join(box.workspace, ".env"), "x");
    symlinkSync(".env", join(box.workspace, "notes.txt"));
    expect(probeForRead(config, box.workspace, "notes.txt", "read").secret).toBe(true);
    expect(probeForRead(config, box.workspace, "missing.pem", "read")).toEqual({ secret: true });
    expect(probeForRead(config, box.workspace, "missing.txt", "read")).toEqual({ secret: false });
  });

  it("checkUnchanged refuses a secret that was not the file judged before asking", async () => {
    writeFileSync(join(box.workspace, ".env"), "secret");
    writeFileSync(join(box.workspace, "safe.txt"), "safe");
    symlinkSync("safe.txt", join(box.workspace, "link"));
    const before = probeForRead(config, box.workspace, "link", "read");
    expect(before.secret).toBe(false);
    symlinkSync(".env", join(box.workspace, "next"));
    renameSync(join(box.workspace, "next"), join(box.workspace, "link"));
    const opened = await openGuardedForRead(config, box.workspace, "link", "read");
    await opened.handle.close();
    expect(opened.verdict.secret).toBe(true);
    expect(() => checkUnchanged(before, opened.verdict, "read", "link")).toThrow(
      /refused: the path now leads to a secret-like file/,
    );
    // The same secret file that was judged (and so approved) passes; a plain file always passes.
    const approved = probeForRead(config, box.workspace, "link", "read");
    expect(() => checkUnchanged(approved, opened.verdict, "read", "link")).not.toThrow();
    expect(() => checkUnchanged(opened.verdict, { secret: false }, "read", "link")).not.toThrow();
  });
});

describe("write targets", () => {
  it("resolves the parent, not a final symlink, and refuses scv's files", () => {
    symlinkSync(".scv", join(box.workspace, "dir"));
    const target = probeWriteTarget(box.workspace, "dir/new/file.txt");
    expect(target).toBe(join(box.workspace, ".scv", "new", "file.txt"));
    expect(() => guardWriteTarget(config, box.workspace, "dir/new/file.txt", target, "write")).toThrow(
      ProtectedPathError,
    );
    symlinkSync(".scv/config.toml", join(box.workspace, "final"));
    const final = probeWriteTarget(box.workspace, "final");
    expect(final).toBe(join(box.workspace, "final"));
    expect(guardWriteTarget(config, box.workspace, "final", final, "write").secret).toBe(false);
    expect(
      guardWriteTarget(config, box.workspace, ".ssh/id_rsa", probeWriteTarget(box.workspace, ".ssh/id_rsa"), "write")
        .secret,
    ).toBe(true);
  });
});
