// main.ts from source: version, help, usage errors and exit codes.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { VERSION } from "../../lib/version.ts";
import { cliCommand, cliEnv, cliShellCommand, ROOT, UNDER_DENO } from "../support/cli_command.ts";
import { HANG_MS } from "../support/wait.ts";

function scv(...args: string[]) {
  const { command, args: argv } = cliCommand(args, "main.ts");
  return spawnSync(command, argv, { cwd: ROOT, env: cliEnv(process.env), encoding: "utf8", timeout: HANG_MS });
}

describe("scv command line", () => {
  it("keeps lib/version.ts equal to package.json", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };
    expect(VERSION).toBe(pkg.version);
    expect(scv("--version").stdout.trim()).toBe(pkg.version);
  });

  it("has help for the program and every subcommand", () => {
    const program = scv("--help");
    expect(program.status).toBe(0);
    for (const command of ["server", "host", "chat", "exec"])
      expect(program.stdout).toMatch(new RegExp(`^  ${command} `, "m"));
    for (
      const [command, flag] of [
        ["server", "--stdio"],
        ["host", "--listen"],
        ["chat", "--model"],
        ["exec", "--json"],
      ] as const
    ) {
      const result = scv(command, "--help");
      expect(result.status).toBe(0);
      expect(result.stdout).toContain(flag);
    }
  });

  it("ends quietly when its output pipe is closed early (`scv exec --help | head`)", () => {
    // `true` exits without reading, so every write of the help meets a closed pipe.
    const result = spawnSync("bash", [
      "-c",
      `${cliShellCommand(["exec", "--help"])} | true; echo "status=\${PIPESTATUS[0]}"`,
    ], {
      cwd: ROOT,
      encoding: "utf8",
      timeout: HANG_MS,
    });
    expect(result.stderr).toBe("");
    expect(result.stdout.trim()).toBe("status=141");
  });

  it("answers unknown commands and flags with a usage error, exit 2, no stack trace", () => {
    for (
      const args of [
        ["nope"],
        ["host", "--bogus"],
        ["server", "--approval-policy", "sometimes"],
        ["chat", "--bogus"],
        ["exec"],
        ["exec", "--approval-policy", "sometimes", "hello"],
      ]
    ) {
      const result = scv(...args);
      expect(result.status).toBe(2);
      expect(result.stderr).toMatch(/^error: /m);
      expect(result.stderr).not.toMatch(/^\s+at /m);
    }
  });

  // The check hooks Node's module loader (`--import` with registerHooks); Deno has no such hook.
  it.skipIf(UNDER_DENO)("does not load subcommand modules for --version (Node only: uses Node's loader hooks)", () => {
    // With the subcommand modules made unloadable, --version must still work.
    const result = spawnSync(
      process.execPath,
      [
        "--import",
        "data:text/javascript,import{registerHooks}from'node:module';registerHooks({resolve(s,c,n){if(/lib\\/(cli|server|host|sandbox)\\//.test(s)&&!s.endsWith('exit.ts'))throw new Error('loaded '+s);return n(s,c)}})",
        "main.ts",
        "--version",
      ],
      { cwd: ROOT, encoding: "utf8", timeout: HANG_MS },
    );
    expect(result.stderr).toBe("");
    expect(result.stdout.trim()).toBe(VERSION);
  });
});
