// `scv sandbox [--mode M] -- CMD ARGS…` runs any command under the command sandbox scv would use in this folder (the
// same configuration, the same hidden paths, the same back end chosen by the same self-test: lib/tools opens it as a
// session does), passes stdin, stdout and stderr through, exits with the command's code and then says on stderr what
// the sandbox probably denied. `scv sandbox --check` prints the mode and where it came from, every back end's
// self-test layer by layer and the layout a command would get.
import { spawn } from "node:child_process";
import { constants } from "node:os";
import { ConfigError, loadConfig, type ResolvedConfig, resolveHome } from "../config/index.ts";
import {
  backendCandidates,
  type BackendName,
  type CommandSandbox,
  type ConfinedLaunch,
  type Layout,
  type SelfTest,
  selfTest,
  selfTestProblem,
} from "../confine/index.ts";
import { colorEnabled, createStyle, type Style } from "../render/index.ts";
import { openCommandSandbox, toolEnvironment } from "../tools/index.ts";
import { startFolders } from "../util/repository_root.ts";
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from "./exit.ts";

/** No sandbox holds here for the mode asked (the command was not run; `--check`: the mode does not hold). */
export const EXIT_NO_SANDBOX = 125;
/** The command could not be started (not found, not executable), as a shell says it. */
const EXIT_NOT_FOUND = 127;
/** How much of the command's stderr is kept (its start and its end) to read denials from. */
const KEPT_STDERR_BYTES = 64 * 1024;
const WHAT_TO_DO = "Install bubblewrap (Debian and Ubuntu: apt install bubblewrap; scv sandbox --check shows what " +
  "fails), or run the command unconfined with --mode danger-full-access.";
const FORWARDED_SIGNALS: readonly NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];

export type SandboxCliOptions = {
  mode?: "read-only" | "workspace-write" | "danger-full-access";
  check?: boolean;
  json?: boolean;
  scvHome?: string;
  configPath?: string;
};

type Env = Record<string, string | undefined>;

type Opened = {
  sandbox: CommandSandbox;
  config: ResolvedConfig;
  modeOrigin: string;
  workspace: string;
  workingFolder: string;
};

export async function runSandbox(command: readonly string[], options: SandboxCliOptions): Promise<number> {
  const env = process.env;
  const style = createStyle(colorEnabled(env, process.stderr.isTTY === true));
  if (options.check !== true && command.length === 0) {
    process.stderr.write("scv sandbox: give the command to run after --, e.g. scv sandbox -- npm test (or --check)\n");
    return EXIT_USAGE;
  }
  if (options.check === true && command.length > 0) {
    process.stderr.write("scv sandbox: --check runs no command; drop the command or --check\n");
    return EXIT_USAGE;
  }
  if (options.json === true && options.check !== true) {
    process.stderr.write("scv sandbox: --json goes with --check\n");
    return EXIT_USAGE;
  }
  let opened: Opened;
  try {
    opened = await open(options, env);
  } catch (error) {
    const message = error instanceof ConfigError || error instanceof Error ? error.message : String(error);
    process.stderr.write(`scv sandbox: ${message}\n`);
    return EXIT_FAILURE;
  }
  return options.check === true ? await check(opened, options.json === true) : await run(opened, command, style);
}

async function open(options: SandboxCliOptions, env: Env): Promise<Opened> {
  const { workspace, workingFolder } = await startFolders(process.cwd(), env);
  const { home, explicit: homeExplicit } = resolveHome(options.scvHome, env);
  const origins = new Map<string, string>();
  // loadConfig falls back to SCV_CONFIG and resolves `~` and relative paths itself, as for every other command.
  const config = await loadConfig({
    workspace,
    home,
    homeExplicit,
    explicitConfigPath: options.configPath,
    env,
    overrides: { sandbox_mode: options.mode },
    origins,
  });
  const modeOrigin = options.mode !== undefined ? "flag --mode" : origins.get("sandbox_mode") ?? "default";
  const sandbox = openCommandSandbox(config, { workspace, home, env });
  await sandbox.ready();
  return { sandbox, config, modeOrigin, workspace, workingFolder };
}

async function run(opened: Opened, command: readonly string[], style: Style): Promise<number> {
  const { sandbox, workingFolder } = opened;
  const confined = sandbox.mode !== "danger-full-access";
  if (confined && !sandbox.active) {
    process.stderr.write(
      `${style.red("scv sandbox:")} no sandbox holds here for sandbox_mode ${sandbox.mode}: ${sandbox.missing}. ` +
        `The command was not run. ${WHAT_TO_DO}\n`,
    );
    return EXIT_NO_SANDBOX;
  }
  const program = { file: command[0]!, args: command.slice(1), ownSession: true };
  const launch = sandbox.launch(program, { startIn: workingFolder });
  const result = await spawnPassingThrough(
    launch?.file ?? program.file,
    launch?.args ?? program.args,
    workingFolder,
    { ...toolEnvironment(opened.config), ...launch?.env },
  );
  if (result.spawnError !== undefined) {
    process.stderr.write(`${style.red("scv sandbox:")} cannot run ${program.file}: ${result.spawnError}\n`);
    return EXIT_NOT_FOUND;
  }
  process.stderr.write(`${style.dim(`scv sandbox: ${sandbox.describe()}; exit ${result.code}`)}\n`);
  if (launch !== undefined) reportDenials(sandbox, launch, result.stderr, style);
  return result.code;
}

function reportDenials(sandbox: CommandSandbox, launch: ConfinedLaunch, stderr: string, style: Style): void {
  for (const note of launch.layout.notes) process.stderr.write(`${style.dim(`scv sandbox: note: ${note}`)}\n`);
  const denied = sandbox.denials(stderr, launch);
  if (denied.length > 0) {
    process.stderr.write(`${style.yellow(`scv sandbox: the sandbox probably denied ${denied.join(", ")}`)}\n`);
  }
}

type Finished = { code: number; stderr: string; spawnError?: string };

/**
 * Runs the launch in a session and process group of its own (no terminal to push keystrokes into, as the `bash`
 * tool's commands), with stdin and stdout inherited and stderr copied through while its start and end are kept.
 * Ctrl-C and termination signals scv receives are passed on to the group.
 */
function spawnPassingThrough(file: string, args: readonly string[], cwd: string, env: Env): Promise<Finished> {
  return new Promise((resolvePromise) => {
    const child = spawn(file, args, { cwd, env, stdio: ["inherit", "inherit", "pipe"], detached: true });
    let head = Buffer.alloc(0);
    let tail = Buffer.alloc(0);
    child.stderr!.on("data", (chunk: Buffer) => {
      if (!process.stderr.write(chunk)) {
        child.stderr!.pause();
        process.stderr.once("drain", () => child.stderr!.resume());
      }
      // The start fills first; the part of a chunk beyond it goes on to the end rather than being lost.
      const room = Math.max(0, KEPT_STDERR_BYTES - head.length);
      if (room > 0) head = Buffer.concat([head, chunk.subarray(0, room)]);
      if (chunk.length > room) tail = Buffer.concat([tail, chunk.subarray(room)]).subarray(-KEPT_STDERR_BYTES);
    });
    const forward = (signal: NodeJS.Signals) => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, signal);
      } catch {
        // already gone
      }
    };
    for (const signal of FORWARDED_SIGNALS) process.on(signal, forward);
    const stop = () => {
      for (const signal of FORWARDED_SIGNALS) process.off(signal, forward);
    };
    child.once("error", (error: NodeJS.ErrnoException) => {
      stop();
      resolvePromise({
        code: EXIT_NOT_FOUND,
        stderr: "",
        spawnError: error.code === "ENOENT" ? "no such program" : error.message,
      });
    });
    child.once("close", (code, signal) => {
      stop();
      const text = head.toString("utf8") + (tail.length > 0 ? `\n${tail.toString("utf8")}` : "");
      const exit = code ?? (signal === null ? EXIT_FAILURE : 128 + (constants.signals[signal] ?? 0));
      resolvePromise({ code: exit, stderr: text });
    });
  });
}

type BackendReport = {
  name: BackendName;
  used: boolean;
  holds: boolean;
  error?: string;
  layers: SelfTest["layers"];
};

async function check(opened: Opened, json: boolean): Promise<number> {
  const { sandbox } = opened;
  // Every back end this system would try, each tested (the self-test runs once per process; the one in use already
  // ran), so that the report shows what holds besides the one chosen.
  const backends: BackendReport[] = [];
  for (const name of backendCandidates(sandbox.settings.env, sandbox.settings.platform)) {
    const test = await selfTest(name);
    backends.push({
      name,
      used: sandbox.backend === name,
      holds: test.holds,
      ...(test.error === undefined ? {} : { error: test.error }),
      layers: test.layers,
    });
  }
  const holds = sandbox.mode === "danger-full-access" || sandbox.active;
  const layout = sandbox.layout({ startIn: opened.workingFolder });
  if (json) {
    process.stdout.write(`${JSON.stringify(checkJson(opened, backends, layout, holds), null, 2)}\n`);
  } else {
    process.stdout.write(checkText(opened, backends, layout));
  }
  return holds ? EXIT_OK : EXIT_NO_SANDBOX;
}

function checkJson(opened: Opened, backends: BackendReport[], layout: Layout | undefined, holds: boolean) {
  const { sandbox } = opened;
  return {
    mode: sandbox.mode,
    mode_origin: opened.modeOrigin,
    workspace: opened.workspace,
    working_folder: opened.workingFolder,
    holds,
    backend: sandbox.backend ?? null,
    summary: sandbox.describe(),
    ...(holds ? {} : { missing: sandbox.missing }),
    backends,
    layout: layout === undefined ? null : {
      writable: layout.writable,
      read_only: layout.readOnly,
      hidden_files: layout.hiddenFiles,
      hidden_dirs: layout.hiddenDirs,
      network: layout.network,
      notes: layout.notes,
    },
  };
}

function checkText(opened: Opened, backends: BackendReport[], layout: Layout | undefined): string {
  const { sandbox } = opened;
  const lines = [`sandbox_mode: ${sandbox.mode} (${opened.modeOrigin})`, `workspace: ${opened.workspace}`];
  if (opened.workingFolder !== opened.workspace) lines.push(`working folder: ${opened.workingFolder}`);
  if (backends.length === 0) lines.push(`back ends: ${sandbox.missing}`);
  for (const backend of backends) {
    const state = backend.holds ? "holds" : `does not hold (${selfTestProblem({ ...backend, backend: backend.name })})`;
    lines.push(`back end ${backend.name}: ${state}${backend.used ? " (in use)" : ""}`);
    for (const layer of backend.layers) {
      const verdict = layer.holds ? "holds" : layer.required ? "DOES NOT HOLD" : "does not hold (reported only)";
      lines.push(`  ${layer.name.padEnd(10)} ${verdict}: ${layer.detail}`);
    }
  }
  if (layout !== undefined) {
    const list = (paths: string[]) => (paths.length === 0 ? "none" : paths.join(", "));
    lines.push(
      `writable: ${list(layout.writable)}, and a private /tmp`,
      `read-only inside them: ${list(layout.readOnly)}`,
      `hidden: ${list([...layout.hiddenDirs, ...layout.hiddenFiles])}`,
      `network: ${layout.network ? "allowed (network_access = true)" : "none"}`,
      ...layout.notes.map((note) => `note: ${note}`),
    );
  }
  lines.push(sandbox.describe());
  if (sandbox.mode !== "danger-full-access" && !sandbox.active) lines.push(WHAT_TO_DO);
  return `${lines.join("\n")}\n`;
}
