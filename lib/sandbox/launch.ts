// How a sandbox process is started, and which restrictions it gets (docs/sandbox.md):
// - the same program re-executed, so that its realm holds only what the sandbox needs: Node from
//   source or a bundle runs `node --permission … <file>`, a CommonJS file whose `require` is a local
//   (not `-e`, which makes every built-in module a global, `repl` and through it `node:sqlite`
//   among them); the single-executable binary runs itself with SANDBOX_PROCESS_ARG and its Node
//   options in NODE_OPTIONS (the code is embedded); Deno runs `deno run` with no permission flags
//   on the same program as a module. The program hands the cell host a `require` that knows only
//   `node:vm`, and the realm cannot compile code from strings (`--disallow-code-generation-from-
//   strings`), so escaped code can neither `import()` a module nor call a new `require`;
// - an empty environment, no descriptors but its stdin/stdout/stderr pipes, Node's permission model
//   with nothing granted but reading its own program (no file system, child processes, workers,
//   addons, WASI, inspector or network) or Deno's default of no permissions;
// - where the OS allows (namespaces.ts): an empty read-only root holding only the runtime, its
//   libraries and the program; its own PID namespace (no process outside is visible or can be
//   signalled); a fresh network namespace; death with the host.
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ChildConfig, childMain } from "./child_main.ts";
import { cellRuntime } from "./runtime.ts";
import { MAX_ERROR_CHARS } from "./checks.ts";
import { type Bind, type Isolation, isolationFor, libraryBinds, type NamespaceLayout, wrap } from "./namespaces.ts";
import { CELL_PREFIX, CELL_SUFFIX, type WorkerConfig, workerMain } from "./worker_main.ts";

/** The argument that makes the single-executable binary a sandbox process (main.ts). */
export const SANDBOX_PROCESS_ARG = "--scv-sandbox-process";
/** Where the runtime and the program are inside an empty root. */
const INSIDE = "/scv";

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

/** The program a sandbox process runs: childMain, then workerMain, with `require` in scope (not a global). */
export function childProgram(settings: LaunchSettings, child: ChildConfig): string {
  return (
    `"use strict";(${String(childMain)})(require, ${JSON.stringify(child)}, ` +
    `(r, channel) => (${String(workerMain)})(${JSON.stringify(workerConfig(settings))}, r, channel));`
  );
}

/** The program as a file for `kind`: CommonJS for Node (its `require` is the module's own), a module for Deno. */
export function programFile(kind: "node" | "deno", program: string): string {
  return kind === "node"
    ? `${program}\n`
    : `import { createRequire } from "node:module";\nconst require = createRequire(import.meta.url);\n${program}\n`;
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

/**
 * V8's young generation, in MB per semi-space. 1 MB, whatever the heap limit: a process that ran
 * thousands of cells held 21 MB less with 1 MB than with 8 MB and a 4 MB initial old generation
 * (below), at the same cell and nested-call rates (scripts/bench/host.ts).
 */
const SEMI_SPACE_MB = 1;
/**
 * Where the old generation starts its first limit, in MB: every cell leaves a dead context behind,
 * and without it V8 lets garbage grow for a long while before its first full collection. Node
 * refuses this flag in NODE_OPTIONS, the only way to hand flags to the binary's sandbox processes:
 * the binary carries it in its own exec argv (scripts/compile.ts), which also sets the semi-space
 * (4 MB, over the 1 MB asked for here: the binary's flags come after NODE_OPTIONS).
 */
const INITIAL_OLD_SPACE_MB = 4;

function nodeFlags(heapMb: number, kind: Runtime): string[] {
  return [
    "--permission",
    "--disallow-code-generation-from-strings",
    `--max-old-space-size=${heapMb}`,
    `--max-semi-space-size=${SEMI_SPACE_MB}`,
    ...(kind === "sea" ? [] : [`--initial-old-space-size=${INITIAL_OLD_SPACE_MB}`]),
    // Without it a vm context's dynamic-import callback is refused and `import()` would hand the
    // cell an error of the sandbox process's realm.
    "--experimental-vm-modules",
    "--no-warnings",
  ];
}

/** The restrictions, worded for the debug log. */
function layerNames(kind: Runtime, isolation: Isolation): string[] {
  const by = isolation.tool === "bwrap" ? "bwrap" : "unshare";
  return [
    kind === "deno" ? "deno permissions: none granted" : "node permission model: nothing granted but its own program",
    "realm: no built-in module but node:vm, no code from strings",
    "empty environment",
    isolation.emptyRoot
      ? "files: empty read-only root with only the runtime (bwrap)"
      : "files: NOT hidden (no bwrap here; the runtime's permissions alone refuse them)",
    isolation.pidNamespace
      ? `processes: own PID namespace (${by})`
      : "processes: NOT isolated (no PID namespace here; signal functions removed)",
    "signals: process.kill, _debugProcess and every other signal or priority function removed",
    isolation.networkNamespace
      ? `network: fresh namespace (${by})`
      : kind === "deno"
      ? "network: not isolated by a namespace (deno permissions refuse it)"
      : "network: NOT isolated by a namespace (the node permission model refuses it)",
    isolation.diesWithParent
      ? `killed with the host (${isolation.tool === "bwrap" ? "bwrap --die-with-parent" : "setpriv --pdeathsig"})`
      : "NOT killed with the host if it dies (no bwrap or setpriv)",
  ];
}

/** Prepares launching sandbox processes for one sandbox; `forHeap` gives each one's command. */
export function prepareLaunch(
  settings: LaunchSettings,
): {
  forHeap(heapMb: number): Launch;
  dispose(): void;
  layers: string[];
  isolation: Isolation;
  /** What the program's self-test expects. */
  child: ChildConfig;
  /** The program file every process of this sandbox runs (null in the binary, whose program is embedded). */
  program: string | null;
} {
  const root = mkdtempSync(join(tmpdir(), "scv-sandbox-"));
  const cwd = join(root, "cwd");
  mkdirSync(cwd);
  const kind = runtime();
  const executable = realpathSync(process.execPath);
  const exeInside = `${INSIDE}/${kind === "sea" ? "scv" : kind}`;
  const programInside = `${INSIDE}/sandbox.${kind === "deno" ? "js" : "cjs"}`;
  const programPath = join(root, kind === "deno" ? "sandbox.js" : "sandbox.cjs");
  const binds: Bind[] = [{ source: executable, target: exeInside }, ...libraryBinds(executable)];
  if (kind !== "sea") binds.push({ source: programPath, target: programInside });
  const layout: NamespaceLayout = {
    binds,
    // Deno reads its own executable's path from /proc/self/exe; no procfs is mounted.
    symlinks: kind === "deno" ? [{ path: "/proc/self/exe", target: exeInside }] : [],
    shareNetwork: process.env.SCV_SANDBOX_NETNS === "0",
  };
  const noBwrap = process.env.SCV_SANDBOX_BWRAP === "0";
  const heapArgs = (heapMb: number, inside: (target: string) => string): { command: string; args: string[] } => {
    const command = inside(exeInside);
    if (kind === "deno") {
      const v8 =
        `--v8-flags=--max-old-space-size=${heapMb},--max-semi-space-size=${SEMI_SPACE_MB},--initial-old-space-size=${INITIAL_OLD_SPACE_MB},--disallow-code-generation-from-strings`;
      return {
        command,
        args: ["run", "--quiet", "--no-prompt", "--no-config", "--no-lock", v8, inside(programInside)],
      };
    }
    if (kind === "sea") return { command, args: [SANDBOX_PROCESS_ARG, JSON.stringify({ settings, child })] };
    return {
      command,
      args: [...nodeFlags(heapMb, kind), `--allow-fs-read=${inside(programInside)}`, inside(programInside)],
    };
  };
  const isolation = isolationFor(layout, { noBwrap });
  const child: ChildConfig = {
    // Deno grants no network; on Node the permission model refuses it, and a namespace takes it away.
    expectNoNetwork: isolation.networkNamespace || kind === "deno",
    expectPidNamespace: isolation.pidNamespace,
    expectEmptyRoot: isolation.emptyRoot,
    // Files that exist here and must not be visible inside an empty root.
    hostFiles: [executable, "/etc/passwd"].filter((path) => existsSync(path)).concat(
      kind === "sea" ? [] : [programPath],
    ),
  };
  if (kind !== "sea") writeFileSync(programPath, programFile(kind, childProgram(settings, child)));
  const layers = layerNames(kind, isolation);
  const dispose = (): void => rmSync(root, { recursive: true, force: true });
  return {
    layers,
    isolation,
    child,
    program: kind === "sea" ? null : programPath,
    dispose,
    forHeap(heapMb: number): Launch {
      const wrapped = wrap(layout, (inside) => heapArgs(heapMb, inside), { noBwrap });
      const env: Record<string, string> = {};
      if (kind === "sea") env.NODE_OPTIONS = nodeFlags(heapMb, kind).join(" ");
      // Deno needs a cache folder; the read-only one it never writes to will do.
      if (kind === "deno" && isolation.emptyRoot) env.DENO_DIR = INSIDE;
      return { command: wrapped.command, args: wrapped.args, env, cwd, layers, dispose };
    },
  };
}
