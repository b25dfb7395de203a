// A session's command sandbox: the mode and folders the configuration asks for, the back end whose self-test held
// here (chosen at first use: the turn loop awaits `ready()` before a command is prepared), and for each command the
// launch that confines it. `use()` is what the
// `bash` tool declares to policy: inside the sandbox, or asked for and not holding (then every command asks).
import { realpathSync } from "node:fs";
import type { SandboxMode, SandboxUse } from "../policy/index.ts";
import { isInside } from "../util/path.ts";
import { backendCandidates, type BackendName, launchWith } from "./backends.ts";
import { denialsIn } from "./denials.ts";
import type { Launch, Program } from "./launch.ts";
import { type Layout, planLayout } from "./layout.ts";
import { type SelfTest, selfTest } from "./self_test.ts";

export type CommandSandboxSettings = {
  mode: SandboxMode;
  /** True when no layer set `sandbox_mode`: the default confines where a sandbox holds and says so elsewhere. */
  modeIsDefault?: boolean;
  workspace: string;
  writableRoots: readonly string[];
  network: boolean;
  /** Absolute paths no confined process may see (policy.ts hiddenPaths). */
  hidden: readonly string[];
  /** Where SCV_SANDBOX_BACKEND is read. */
  env: Record<string, string | undefined>;
  platform?: NodeJS.Platform;
  /** Told once the back end is chosen: `describe()`, and whether it is a warning (a mode set that does not hold). */
  report?: (line: string, warning: boolean) => void;
};

/** One confined run: the launch, and the layout it was made from (for reading denials afterwards). */
export type ConfinedLaunch = Launch & { layout: Layout };

/**
 * Set in every confined process. npm writes a log file under `~/.npm/_logs`, read-only inside: without this, each npm
 * command that fails ends with "Log files were not written due to an error writing to the directory".
 */
const CONFINED_ENV: Readonly<Record<string, string>> = { npm_config_logs_max: "0" };

export class CommandSandbox {
  readonly settings: CommandSandboxSettings;
  #backend: BackendName | undefined;
  #tests: SelfTest[] = [];
  #ready: Promise<void> | undefined;
  #tested = false;

  constructor(settings: CommandSandboxSettings) {
    this.settings = settings;
  }

  /** A sandbox whose back end is already chosen (`ready()` awaited). */
  static async open(settings: CommandSandboxSettings): Promise<CommandSandbox> {
    const sandbox = new CommandSandbox(settings);
    await sandbox.ready();
    return sandbox;
  }

  /**
   * Chooses the back end at first use: tries them in order (their self-tests run once per process) and keeps the
   * first that holds. Every later call returns the same promise.
   */
  ready(): Promise<void> {
    this.#ready ??= this.#choose();
    return this.#ready;
  }

  async #choose(): Promise<void> {
    if (this.settings.mode !== "danger-full-access") {
      for (const candidate of backendCandidates(this.settings.env, this.settings.platform)) {
        const test = await selfTest(candidate);
        this.#tests.push(test);
        if (test.holds) {
          this.#backend = candidate;
          break;
        }
      }
    }
    this.#tested = true;
    const missingAsked = this.settings.mode !== "danger-full-access" && !this.active && !this.settings.modeIsDefault;
    this.settings.report?.(this.describe(), missingAsked);
  }

  /** The back end in use, or undefined when commands run unconfined (or `ready()` has not finished). */
  get backend(): BackendName | undefined {
    return this.#backend;
  }

  /** The self-test of every back end tried, in order. */
  get tests(): readonly SelfTest[] {
    return this.#tests;
  }

  get mode(): SandboxMode {
    return this.settings.mode;
  }

  /** True when commands run confined. */
  get active(): boolean {
    return this.backend !== undefined;
  }

  /** Why no back end holds here, in a few words per back end tried. */
  get missing(): string {
    if (this.tests.length === 0) {
      const platform = this.settings.platform ?? process.platform;
      return platform === "linux" || platform === "darwin"
        ? "no sandbox back end was tried (SCV_SANDBOX_BACKEND=none)"
        : `${platform} has no sandbox scv can use`;
    }
    return this.tests.map((test) => `${test.backend}: ${selfTestProblem(test)}`).join("; ");
  }

  /** What the `bash` tool declares: inside the sandbox, asked for and missing, or nothing (no sandbox applies). */
  use(): SandboxUse | undefined {
    if (this.settings.mode === "danger-full-access") return undefined;
    if (this.active) return { state: "inside", mode: this.settings.mode };
    if (!this.#tested) return { state: "unavailable", why: "the command sandbox has not been tested yet" };
    if (this.settings.modeIsDefault === true) return undefined;
    return {
      state: "unavailable",
      why: `sandbox_mode is ${this.settings.mode} but no sandbox holds here (${this.missing})`,
    };
  }

  /** One line for the log and the CLI: the mode, the back end, or what is missing. */
  describe(): string {
    const { mode } = this.settings;
    if (mode === "danger-full-access") return "commands run without a sandbox (sandbox_mode danger-full-access)";
    if (this.active) {
      const network = this.settings.network ? "network allowed" : "no network";
      return `commands run in the ${mode} sandbox (${this.backend}, ${network})`;
    }
    return `commands run WITHOUT a sandbox: ${this.missing}`;
  }

  /**
   * The file system a process confined with `mode` (default the session's) would see, planned now: the writable
   * folders, what stays read-only and what is hidden. `cwd` is the working folder of an MCP server, writable beside
   * the workspace; `startIn` only moves where the process starts (a folder inside the workspace, as `scv sandbox`
   * run in a subfolder).
   */
  layout(options: { mode?: SandboxMode; cwd?: string; startIn?: string } = {}): Layout | undefined {
    const mode = options.mode ?? this.settings.mode;
    if (mode === "danger-full-access") return undefined;
    const layout = planLayout({
      mode,
      workspace: options.cwd ?? this.settings.workspace,
      writableRoots: options.cwd === undefined || options.cwd === this.settings.workspace
        ? this.settings.writableRoots
        : [this.settings.workspace, ...this.settings.writableRoots],
      network: this.settings.network,
      hidden: this.settings.hidden,
    });
    return options.startIn === undefined ? layout : { ...layout, cwd: startFolder(layout, options.startIn) };
  }

  /**
   * The launch that runs `program` confined, or undefined when this sandbox confines nothing. `mode` and `cwd`
   * default to the session's (an MCP server may ask for its own).
   */
  launch(
    program: Program,
    options: { mode?: SandboxMode; cwd?: string; startIn?: string } = {},
  ): ConfinedLaunch | undefined {
    if (this.backend === undefined) return undefined;
    const layout = this.layout(options);
    if (layout === undefined) return undefined;
    const launch = launchWith(this.backend, layout, program);
    const env = { ...launch.env, ...CONFINED_ENV, SCV_SANDBOX: options.mode ?? this.settings.mode };
    return { ...launch, env, layout };
  }

  /** What the sandbox probably denied a failed command of `launch`, worded for the model and the user. */
  denials(output: string, launch: ConfinedLaunch): string[] {
    return denialsIn(output, launch.layout, this.settings.platform);
  }
}

/** `folder` (real path) when it lies inside a folder the layout shows (a writable one or the working folder). */
function startFolder(layout: Layout, folder: string): string {
  let real: string;
  try {
    real = realpathSync(folder);
  } catch {
    return layout.cwd;
  }
  return [layout.cwd, ...layout.writable].some((root) => isInside(root, real)) ? real : layout.cwd;
}

/** A back end's self-test in a few words: the layers that do not hold, or why it could not run. */
export function selfTestProblem(test: SelfTest): string {
  if (test.error !== undefined) return test.error;
  const broken = test.layers.filter((layer) => layer.required && !layer.holds).map((layer) => layer.name);
  return broken.length === 0 ? "holds" : `${broken.join(", ")} ${broken.length === 1 ? "does" : "do"} not hold`;
}
