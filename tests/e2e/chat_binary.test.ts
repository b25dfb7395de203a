// `dist/scv chat --demo` from a directory with no checkout: the demo script and workspace are embedded in the
// bundle. Compiles only when dist/scv is missing or older than its sources (tests/support/binary.ts).
import { spawn } from "node:child_process";
import { copyFile, mkdtemp, rm } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshBinary } from "../support/binary.ts";
import { UNDER_DENO } from "../support/cli_command.ts";
import { HANG_MS } from "../support/wait.ts";

let dir = "";
let binary = "";

/** A private copy of a fresh dist/scv, so that a later recompile of dist/ cannot change it under the test. */
async function freshBinaryCopy(): Promise<string> {
  const copy = join(dir, "scv");
  await copyFile(await freshBinary(), copy);
  return copy;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "scv-chat-binary-"));
  binary = await freshBinaryCopy();
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

// Node only by nature: the binary is a Node single-executable application (and its bundle a Node script), so
// SCV_TEST_RUNTIME=deno has nothing to run here; `deno compile` needs a runtime download offline builds cannot get.
describe.skipIf(UNDER_DENO)("compiled binary: scv chat --demo", () => {
  it("plays the embedded demo from a directory with no checkout, offline", async () => {
    const child = spawn(binary, ["chat", "--demo"], {
      cwd: dir,
      env: { HOME: dir, PATH: "/usr/bin:/bin", SCV_DEMO_PACING: "off" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    child.stdin.end();
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), HANG_MS);
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    clearTimeout(timer);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout).toContain("offline demo (recorded responses, no network)");
    expect(stdout).toContain("⏺ read README.md");
    expect(stdout).toContain("ok 3 - README present");
    expect(stdout).toContain("[demo] finished");
    expect(existsSync(join(dir, "examples"))).toBe(false);
  });
});
