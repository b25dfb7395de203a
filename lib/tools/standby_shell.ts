// A confined shell started ahead of the next command. Setting up a sandbox (bubblewrap's namespaces and mounts, or
// the unshare back end's) costs 15-300 ms per command; a standby pays it between commands, while the model thinks,
// and waits inside the finished sandbox for its command on a pipe. Every command still gets a sandbox of its own:
// a standby runs one command and is gone.
//
// A standby is used only for exactly the launch it was started for (the same sandbox command line, working folder
// and environment) and only while every path its mounts were made on is still the same file: a hidden `.env` an
// editor replaced (a new inode) is no longer under the standby's mount, so that standby is thrown away.
import { type ChildProcess, spawn } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import type { ProcessGroups } from "./process_group.ts";

/**
 * Run by `/bin/sh` inside the sandbox: reads the command from fd 3 to its end, says on fd 4 that it has it, closes
 * both and becomes the shell. The command arrives with a "." after it, so that `$(…)` (which drops trailing line
 * breaks) keeps it byte for byte. Arguments: the shell and its flag (`-c` or `-lc`).
 */
const WAITER =
  'command=$(cat <&3) || exit 126; exec 3<&-; printf . >&4 || exit 126; exec 4>&-; exec "$1" "$2" "${command%.}"';

/** What a standby is started with: the sandbox's command line for the waiter, and where and with what it runs. */
export type StandbyLaunch = { file: string; args: string[]; cwd: string; env: NodeJS.ProcessEnv };

/**
 * A standby handed to one command: the process, `begin()`, which gives it the command, and whether it took it: true
 * once it says so, false when it ended first (it had died while waiting: nothing ran, the command is to be launched
 * the usual way).
 */
export type Handover = { child: ChildProcess; begin(): void; acknowledged: Promise<boolean> };

type Standby = { key: string; identity: string; child: ChildProcess; request: Writable; started: Readable };

/** The waiter's program: what the sandbox launches in place of the shell. */
export function waiterProgram(shell: string, flag: string): { file: string; args: string[] } {
  return { file: "/bin/sh", args: ["-c", WAITER, "scv-standby", shell, flag] };
}

export class StandbyShell {
  readonly #groups: ProcessGroups;
  #standby: Standby | undefined;

  constructor(groups: ProcessGroups) {
    this.#groups = groups;
  }

  /** True while a standby waits (handed over or not yet known to have died): worth planning a launch to compare. */
  get waiting(): boolean {
    return this.#standby !== undefined;
  }

  /**
   * The standby for `launch`, handed over (the caller runs `command` in it and owns it from then on), or undefined
   * when none was started for this launch, its paths changed (`identity`), or it is no longer running.
   */
  take(launch: StandbyLaunch, identity: string, command: string): Handover | undefined {
    const standby = this.#standby;
    if (standby === undefined) return undefined;
    this.#standby = undefined;
    const usable = standby.key === keyOf(launch) && standby.identity === identity &&
      standby.child.pid !== undefined && standby.child.exitCode === null && standby.child.signalCode === null;
    if (!usable) {
      this.#discard(standby);
      return undefined;
    }
    refer(standby.child, true);
    const { child, request, started } = standby;
    const acknowledged = new Promise<boolean>((resolve) => {
      if (started.destroyed || started.readableEnded) return resolve(false);
      started.once("data", () => resolve(true));
      started.once("close", () => resolve(false));
    });
    return { child, begin: () => request.end(`${command}.`), acknowledged };
  }

  /** Starts a standby for the next command of `launch`, unless one for it is already waiting. */
  prepare(launch: StandbyLaunch, identity: string): void {
    const key = keyOf(launch);
    const current = this.#standby;
    if (current !== undefined) {
      if (current.key === key && current.identity === identity && current.child.exitCode === null) return;
      this.#discard(current);
      this.#standby = undefined;
    }
    let child: ChildProcess;
    try {
      child = spawn(launch.file, launch.args, {
        cwd: launch.cwd,
        env: launch.env,
        stdio: ["ignore", "pipe", "pipe", "pipe", "pipe"],
        detached: true,
      });
    } catch {
      return; // The next command launches the usual way and reports what fails.
    }
    child.on("error", () => undefined);
    // Waiting, it keeps no process alive (a CLI that is done exits); the command it runs does.
    refer(child, false);
    const request = child.stdio[3] as Writable;
    const started = child.stdio[4] as Readable;
    request.on("error", () => undefined);
    started.on("error", () => undefined);
    if (child.pid !== undefined) this.#groups.track(child.pid);
    child.once("exit", () => {
      if (child.pid !== undefined && this.#standby?.child === child) this.#groups.untrack(child.pid);
      if (this.#standby?.child === child) this.#standby = undefined;
    });
    this.#standby = { key, identity, child, request, started };
  }

  /** Stops the waiting standby (the session ends). */
  dispose(): void {
    if (this.#standby !== undefined) this.#discard(this.#standby);
    this.#standby = undefined;
  }

  #discard(standby: Standby): void {
    const pid = standby.child.pid;
    if (pid !== undefined) {
      try {
        process.kill(-pid, "SIGKILL");
      } catch {
        // Already gone.
      }
      this.#groups.untrack(pid);
    }
    standby.request.destroy();
    standby.started.destroy();
    standby.child.stdout?.destroy();
    standby.child.stderr?.destroy();
  }
}

/** Whether the child and its pipes keep the event loop alive (`ref`) or not. */
function refer(child: ChildProcess, keep: boolean): void {
  for (const handle of [child, ...child.stdio]) {
    const refable = handle as { ref?: () => void; unref?: () => void } | null;
    if (keep) refable?.ref?.();
    else refable?.unref?.();
  }
}

function keyOf(launch: StandbyLaunch): string {
  return JSON.stringify([launch.file, launch.args, launch.cwd, Object.entries(launch.env).sort()]);
}
