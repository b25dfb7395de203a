// The standalone binary: compiled from this checkout, run with no node_modules and no Node on PATH.
import { spawn, spawnSync } from "node:child_process";
import { copyFileSync, linkSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeFrame, readFrames } from "../../lib/codec/index.ts";
import { VERSION } from "../../lib/version.ts";
import { freshBinary } from "../support/binary.ts";
import { UNDER_DENO } from "../support/cli_command.ts";
import { HANG_MS } from "../support/wait.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
let binary = "";
let emptyDir = "";

function runBinary(args: string[], input?: Buffer) {
  // No PATH at all, and a working directory without node_modules.
  return spawnSync(binary, args, { cwd: emptyDir, env: {}, input, timeout: HANG_MS });
}

beforeAll(async () => {
  binary = await freshBinary();
  emptyDir = mkdtempSync(join(tmpdir(), "scv-binary-"));
});

afterAll(() => rmSync(emptyDir, { recursive: true, force: true }));

// Node only by nature: the binary is a Node single-executable application (and its bundle a Node script), so
// SCV_TEST_RUNTIME=deno has nothing to run here; `deno compile` needs a runtime download offline builds cannot get.
describe.skipIf(UNDER_DENO)("compiled binary", () => {
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

/** Runs one cell through a host command; returns its frames and exit code. */
async function runHostCell(command: string, args: string[]): Promise<{ frames: unknown[]; code: number | null }> {
  const child = spawn(command, args, { cwd: emptyDir, env: {}, stdio: ["pipe", "pipe", "pipe"] });
  const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
  child.stdin.write(
    encodeFrame({
      type: "connection/hello",
      supportedVersions: [1],
      requiredCapabilities: [],
      optionalCapabilities: [],
    }),
  );
  child.stdin.write(
    encodeFrame({ type: "operation/request", id: 1, request: { method: "session/open", sessionId: "s1" } }),
  );
  const source = "text(String(6 * 7)); text(typeof process + ' ' + typeof require)";
  const execute = { tool_call_id: "call_1", enabled_tools: [], source, yield_time_ms: 10_000 };
  child.stdin.write(
    encodeFrame({
      type: "operation/request",
      id: 2,
      request: { method: "session/execute", sessionId: "s1", request: execute },
    }),
  );
  const frames: unknown[] = [];
  for await (const frame of readFrames(child.stdout)) {
    frames.push(frame);
    if ((frame as { type: string }).type === "cell/closed") child.stdin.end();
  }
  return { frames, code: await exited };
}

function expectCellRan({ frames, code }: { frames: unknown[]; code: number | null }): void {
  expect(code).toBe(0);
  expect(frames[0]).toEqual({ type: "connection/ready", selectedVersion: 1, capabilities: [] });
  const initial = frames.find((frame) => (frame as { type: string }).type === "execute/initialResponse") as {
    result: { value: { Result: { content_items: unknown[]; error_text: unknown } } };
  };
  expect(initial.result.value.Result.content_items).toEqual([
    { type: "input_text", text: "42" },
    { type: "input_text", text: "undefined undefined" },
  ]);
  expect(initial.result.value.Result.error_text).toBeNull();
}

describe.skipIf(UNDER_DENO)("compiled binary as a code-mode host", () => {
  it("negotiates and runs a cell in its embedded worker sandbox, then exits 0 at EOF", async () => {
    expectCellRan(await runHostCell(binary, ["host"]));
  });

  it("needs only its own application part: the launcher with scv-host.cjs alone runs a cell", async () => {
    // The host part is what `scv host` loads; the server/chat part must not be needed for it.
    const dir = join(emptyDir, "host-part-only");
    mkdirSync(dir);
    for (const file of ["scv.cjs", "scv-host.cjs"]) copyFileSync(join(ROOT, "dist", file), join(dir, file));
    expectCellRan(await runHostCell(process.execPath, [join(dir, "scv.cjs"), "host"]));
  });
});

describe.skipIf(UNDER_DENO)("compiled binary installed as codex-code-mode-host", () => {
  it("acts as `scv host` when run under the reference host's name with no arguments", async () => {
    const alias = join(emptyDir, "codex-code-mode-host");
    linkSync(binary, alias);
    const child = spawn(alias, [], { cwd: emptyDir, env: {}, stdio: ["pipe", "pipe", "pipe"] });
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
    child.stdin.end(
      encodeFrame({
        type: "connection/hello",
        supportedVersions: [1],
        requiredCapabilities: [],
        optionalCapabilities: ["bounded-output-v1"],
      }),
    );
    const frames: unknown[] = [];
    for await (const frame of readFrames(child.stdout)) frames.push(frame);
    expect(frames).toEqual([{ type: "connection/ready", selectedVersion: 1, capabilities: ["bounded-output-v1"] }]);
    expect(await exited).toBe(0);
  });
});
