// How a sandbox process is started, and which restrictions it gets (docs/sandbox.md):
// - the same program re-executed: Node from source or a bundle runs `node --permission … -e <code>`
//   (the code is passed inline, so the process needs no file access at all); the single-executable
//   binary runs itself with SANDBOX_PROCESS_ARG and its Node options in NODE_OPTIONS (the only
//   variable of its environment; the code is embedded); Deno runs `deno run` with no permission
//   flags on a copy of the code in the sandbox's temporary folder;
// - an empty environment, an empty temporary working folder, stdin/stdout/stderr pipes as its only
//   descriptors, Node's permission model with nothing granted (no file system, child processes,
//   workers, addons, WASI or inspector) or Deno's default of no permissions;
// - a fresh network namespace (`unshare -rn`) where an unprivileged process may make one.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ChildConfig, childMain } from "./child_main.ts";
import { cellRuntime } from "./runtime.ts";
import { MAX_ERROR_CHARS } from "./checks.ts";
import { CELL_PREFIX, CELL_SUFFIX, type WorkerConfig, workerMain } from "./worker_main.ts";

/** The argument that makes the single-executable binary a sandbox process (main.ts). */
export const SANDBOX_PROCESS_ARG = "--scv-sandbox-process";
const UNSHARE = "/usr/bin/unshare";
const SETPRIV = "/usr/bin/setpriv";

export interface LaunchSettings {
  maxOutputChars: number;
  storeQuotaChars: number;
}

export interface Launch {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** The restrictions in force, for the debug log. */
  layers: string[];
  dispose(): void;
}

type Runtime = "node" | "sea" | "deno";

export function workerConfig(settings: LaunchSettings): WorkerConfig {
  return {
    runtimeSource: String(cellRuntime),
    maxOutputChars: settings.maxOutputChars,
    storeQuotaChars: settings.storeQuotaChars,
    maxErrorChars: MAX_ERROR_CHARS,
    cellPrefix: CELL_PREFIX,
    cellSuffix: CELL_SUFFIX,
  };
}

/** The program a sandbox process runs: childMain, then workerMain, with `require` in scope. */
export function childProgram(settings: LaunchSettings, child: ChildConfig): string {
  return (
    `"use strict";(${String(childMain)})(require, ${JSON.stringify(child)}, ` +
    `(r, channel) => (${String(workerMain)})(${JSON.stringify(workerConfig(settings))}, r, channel));`
  );
}

/** The sandbox process's entry in the single-executable binary (main.ts calls it). */
export function runSandboxProcess(settingsJson: string, requireFn: (id: string) => unknown): void {
  const { settings, child } = JSON.parse(settingsJson) as { settings: LaunchSettings; child: ChildConfig };
  childMain(
    requireFn,
    child,
    (r, channel) => workerMain(workerConfig(settings), r, channel as Parameters<typeof workerMain>[2]),
  );
}

function runtime(): Runtime {
  if ("Deno" in globalThis) return "deno";
  try {
    const sea = process.getBuiltinModule("node:sea") as { isSea(): boolean } | undefined;
    if (sea?.isSea()) return "sea";
  } catch {
    // Not a Node with single-executable support.
  }
  return "node";
}

let unshareWorks: boolean | undefined;
/** Whether this user may make a network namespace (checked once per host process). */
function canUnshare(): boolean {
  if (unshareWorks === undefined) {
    unshareWorks = process.env.SCV_SANDBOX_NETNS !== "0" &&
      existsSync(UNSHARE) &&
      spawnSync(UNSHARE, ["-rn", "true"], { stdio: "ignore", env: {}, timeout: 5_000 }).status === 0;
  }
  return unshareWorks;
}

let setprivWorks: boolean | undefined;
/**
 * Whether `setpriv --pdeathsig` works here: a sandbox process busy in cell code never reads its
 * closed stdin, so only a parent-death signal ends it when the host dies without killing it.
 */
function canSetPdeathsig(): boolean {
  setprivWorks ??= existsSync(SETPRIV) &&
    spawnSync(SETPRIV, ["--pdeathsig", "KILL", "true"], { stdio: "ignore", env: {}, timeout: 5_000 }).status === 0;
  return setprivWorks;
}

function nodeFlags(heapMb: number): string[] {
  return [
    "--permission",
    `--max-old-space-size=${heapMb}`,
    `--max-semi-space-size=${Math.max(1, Math.min(8, heapMb >> 4))}`,
    // Without it a vm context's dynamic-import callback is refused and `import()` would hand the
    // cell an error of the sandbox process's realm.
    "--experimental-vm-modules",
    "--no-warnings",
  ];
}

/** Prepares launching sandbox processes for one sandbox; `forHeap` gives each one's command. */
export function prepareLaunch(
  settings: LaunchSettings,
): { forHeap(heapMb: number): Launch; dispose(): void; layers: string[] } {
  const root = mkdtempSync(join(tmpdir(), "scv-sandbox-"));
  const cwd = join(root, "cwd");
  mkdirSync(cwd);
  const kind = runtime();
  const netns = canUnshare();
  const pdeathsig = canSetPdeathsig();
  // Deno grants no network; on Node only a fresh namespace takes it away.
  const child: ChildConfig = { expectNoNetwork: netns || kind === "deno" };
  const layers = [
    kind === "deno" ? "deno permissions: none granted" : "node permission model: nothing granted",
    "empty environment",
    "empty working folder",
    "signals: process.kill removed",
    netns ? "network: fresh namespace (unshare -rn)" : "network: NOT isolated (no unprivileged network namespace here)",
    pdeathsig ? "killed with the host (setpriv --pdeathsig)" : "NOT killed with the host if it dies (no setpriv)",
  ];
  let programFile: string | null = null;
  if (kind === "deno") {
    programFile = join(root, "sandbox.js");
    writeFileSync(
      programFile,
      `import { createRequire } from "node:module";\nconst require = createRequire(import.meta.url);\n${
        childProgram(settings, child)
      }\n`,
    );
  }
  const program = kind === "node" ? childProgram(settings, child) : "";
  const dispose = (): void => rmSync(root, { recursive: true, force: true });
  return {
    layers,
    dispose,
    forHeap(heapMb: number): Launch {
      let command = process.execPath;
      let args: string[];
      let env: Record<string, string> = {};
      if (kind === "deno") {
        const v8 = `--v8-flags=--max-old-space-size=${heapMb},--max-semi-space-size=${
          Math.max(1, Math.min(8, heapMb >> 4))
        }`;
        args = ["run", "--quiet", "--no-prompt", "--no-config", "--no-lock", v8, programFile!];
      } else if (kind === "sea") {
        args = [SANDBOX_PROCESS_ARG, JSON.stringify({ settings, child })];
        env = { NODE_OPTIONS: nodeFlags(heapMb).join(" ") };
      } else {
        args = [...nodeFlags(heapMb), "-e", program];
      }
      if (pdeathsig) {
        args = ["--pdeathsig", "KILL", command, ...args];
        command = SETPRIV;
      }
      if (netns) {
        args = ["-rn", command, ...args];
        command = UNSHARE;
      }
      return { command, args, env, cwd, layers, dispose };
    },
  };
}
