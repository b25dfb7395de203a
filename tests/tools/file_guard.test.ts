// The shared file check (lib/tools/file_guard.ts) in-process: what is refused, what asks, and the verdict
// taken on what was opened rather than on the path text.
import { closeSync, linkSync, mkdirSync, readSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ResolvedConfig } from "../../lib/config/types.ts";
import {
  checkUnchanged,
  guardWriteTarget,
  isProtectedPath,
  judgeEntry,
  openForSearch,
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

describe("what the search tools may show (openForSearch, judgeEntry)", () => {
  it("agree with read: ordinary files shown; secret-like and hard-linked asked about; scv's own refused", () => {
    writeFileSync(join(box.workspace, "plain.txt"), "plain");
    writeFileSync(join(box.workspace, ".env"), "secret");
    linkSync(join(box.workspace, ".env"), join(box.workspace, "copy.txt"));
    writeFileSync(join(box.outside, "far.txt"), "far");
    linkSync(join(box.outside, "far.txt"), join(box.workspace, "far.txt"));
    writeFileSync(join(box.workspace, "project.toml"), "");
    const expected: Record<string, string> = {
      "plain.txt": "ordinary",
      ".env": "secret",
      "copy.txt": "secret",
      "far.txt": "secret",
      "project.toml": "protected",
      ".scv/config.toml": "protected",
      ".scv": "protected",
    };
    for (const [path, standing] of Object.entries(expected)) {
      expect([path, judgeEntry(config, box.workspace, path)]).toEqual([path, standing]);
      if (path === ".scv") continue;
      const opened = openForSearch(config, box.workspace, path);
      if (opened === undefined || opened === "outside") throw new Error(`${path} was not opened`);
      closeSync(opened.fd);
      expect([path, opened.standing]).toEqual([path, standing]);
    }
  });

  it("judge a symlink by where it leads, a dangling one by where it would, and never open through one", () => {
    writeFileSync(join(box.outside, "far.txt"), "far");
    writeFileSync(join(box.workspace, "plain.txt"), "plain");
    writeFileSync(join(box.workspace, ".env"), "secret");
    symlinkSync(join(box.outside, "far.txt"), join(box.workspace, "out"));
    symlinkSync(join(box.outside, "gone.txt"), join(box.workspace, "dangling-out"));
    symlinkSync("plain.txt", join(box.workspace, "in"));
    symlinkSync(".env", join(box.workspace, "to-env"));
    symlinkSync(".scv/config.toml", join(box.workspace, "to-config"));
    symlinkSync("nothing.pem", join(box.workspace, "dangling-in"));
    expect(judgeEntry(config, box.workspace, "out")).toBe("outside");
    expect(judgeEntry(config, box.workspace, "dangling-out")).toBe("outside");
    expect(judgeEntry(config, box.workspace, "in")).toBe("ordinary");
    expect(judgeEntry(config, box.workspace, "to-env")).toBe("secret");
    expect(judgeEntry(config, box.workspace, "to-config")).toBe("protected");
    expect(judgeEntry(config, box.workspace, "dangling-in")).toBe("secret");
    // grep opens without following a final symlink.
    for (const path of ["out", "in", "to-env"]) expect(openForSearch(config, box.workspace, path)).toBeUndefined();
  });

  it("judge what was opened: a folder swapped for a symlink out is outside, not its contents", () => {
    mkdirSync(join(box.workspace, "sub"));
    writeFileSync(join(box.workspace, "sub", "a.txt"), "inside");
    mkdirSync(join(box.outside, "sub"));
    writeFileSync(join(box.outside, "sub", "a.txt"), "outside");
    renameSync(join(box.workspace, "sub"), join(box.workspace, "was-sub"));
    symlinkSync(join(box.outside, "sub"), join(box.workspace, "sub"));
    const opened = openForSearch(config, box.workspace, "sub/a.txt");
    expect(opened).toBe("outside");
    const fine = openForSearch(config, box.workspace, "was-sub/a.txt");
    if (fine === undefined || fine === "outside") throw new Error("was-sub/a.txt was not opened");
    const bytes = Buffer.alloc(6);
    readSync(fine.fd, bytes, 0, 6, 0);
    closeSync(fine.fd);
    expect([fine.standing, bytes.toString()]).toEqual(["ordinary", "inside"]);
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
