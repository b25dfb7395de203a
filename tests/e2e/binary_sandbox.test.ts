// `scv sandbox` in the standalone binary (its application parts are split by subcommand, `sandbox` among them, and
// the binary has no dynamic imports): `--check` tests the back ends, and a command runs confined with its exit code.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { freshBinary } from "../support/binary.ts";
import { UNDER_DENO } from "../support/cli_command.ts";
import { type ConfigSandbox, createConfigSandbox } from "../support/config_files.ts";

let binary = "";
let sandbox: ConfigSandbox;
let outside = "";

beforeAll(async () => {
  binary = await freshBinary();
}, 300_000);

beforeEach(async () => {
  sandbox = await createConfigSandbox();
  // Outside /tmp (the sandbox's /tmp is its own).
  outside = mkdtempSync("/var/tmp/scv-binary-sandbox-");
});

afterEach(async () => {
  rmSync(outside, { recursive: true, force: true });
  await sandbox.cleanup();
});

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env = sandbox.env({ PATH: "/usr/bin:/bin", NO_COLOR: "1" });
  const child = spawn(binary, ["sandbox", ...args], { cwd: sandbox.workspace, env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, stdout, stderr })));
}

describe.skipIf(UNDER_DENO || process.platform !== "linux")("scv sandbox in the compiled binary", () => {
  it("--check reports the back end in use with every layer holding", async () => {
    const check = await run(["--check", "--json"]);
    expect(check.stderr).toBe("");
    expect(check.code).toBe(0);
    const report = JSON.parse(check.stdout) as { holds: boolean; backends: { used: boolean; holds: boolean }[] };
    expect(report.holds).toBe(true);
    expect(report.backends.find((backend) => backend.used)).toMatchObject({ holds: true });
  });

  it("runs a command confined: a write inside lands, one outside is denied, the exit code passes", async () => {
    const escaped = join(outside, "escaped");
    const result = await run(["--", "sh", "-c", `touch ./inside; touch ${escaped}; exit 3`]);
    expect(result.code).toBe(3);
    expect(existsSync(join(sandbox.workspace, "inside"))).toBe(true);
    expect(existsSync(escaped)).toBe(false);
    expect(result.stderr).toContain(`the sandbox probably denied a write to ${escaped}`);
  });
});
