// The standalone binary: compiled from this checkout, run with no node_modules and no Node on PATH.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VERSION } from "../../lib/version.ts";
import { compileBinary } from "../../scripts/compile.ts";

let binary = "";
let emptyDir = "";

function runBinary(args: string[], input?: Buffer) {
  // No PATH at all, and a working directory without node_modules.
  return spawnSync(binary, args, { cwd: emptyDir, env: {}, input, timeout: 15_000 });
}

beforeAll(async () => {
  binary = await compileBinary();
  emptyDir = mkdtempSync(join(tmpdir(), "scv-binary-"));
}, 120_000);

afterAll(() => rmSync(emptyDir, { recursive: true, force: true }));

describe("compiled binary", () => {
  it("prints the version", () => {
    const result = runBinary(["--version"]);
    expect(result.status).toBe(0);
    expect(result.stdout.toString().trim()).toBe(VERSION);
  });

  it("prints help naming every subcommand", () => {
    const result = runBinary(["--help"]);
    expect(result.status).toBe(0);
    const help = result.stdout.toString();
    for (const command of ["server", "host", "chat"]) expect(help).toMatch(new RegExp(`^  ${command} `, "m"));
  });

  it("exits 2 with a usage error for an unknown subcommand", () => {
    const result = runBinary(["frobnicate"]);
    expect(result.status).toBe(2);
    expect(result.stderr.toString()).toContain("unknown command 'frobnicate'");
    expect(result.stderr.toString()).not.toContain("    at ");
  });
});
