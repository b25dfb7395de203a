// Starting a program in fresh Linux namespaces, in one place for every caller that runs something
// it does not trust in an empty root (sandbox processes; lib/confine confines shell commands and MCP servers on
// the host's root with the same bwrap builder, bwrap_args.ts). Two tools, probed once:
// - bubblewrap (`bwrap`): own user, PID, network, IPC and UTS namespaces and an empty root that is
//   read-only, in which only the paths a layout names are visible; the program dies with its parent;
// - util-linux `unshare` (where bubblewrap is missing): own user, network and PID namespaces on the
//   host's file system; `setpriv --pdeathsig` then makes it die with its parent.
// Where neither works (macOS, Windows, containers without user namespaces) the program runs as is,
// and `Isolation` says so: callers report it and decide.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { BWRAP, bwrapArgs, type BwrapStep } from "./bwrap_args.ts";

export const UNSHARE = "/usr/bin/unshare";
export const SETPRIV = "/usr/bin/setpriv";
const LDD = "/usr/bin/ldd";
/** Where no `ldd` lists a program's libraries, these folders (those that exist) are made visible instead. */
const LIBRARY_FOLDERS = ["/lib", "/lib64", "/lib32", "/usr/lib", "/usr/lib64", "/usr/lib32"];

/** A host path made visible inside the namespace, read-only unless `writable`. */
export interface Bind {
  source: string;
  target: string;
  writable?: boolean;
}

export interface NamespaceLayout {
  /** The only host paths visible inside (with an empty root). */
  binds: Bind[];
  /** Symbolic links made inside: `path` pointing at `target`. */
  symlinks?: { path: string; target: string }[];
  /** Keep the host's network instead of a fresh namespace whose only interface, loopback, is down. */
  shareNetwork?: boolean;
  /** The working folder inside (default `/`); without an empty root the spawner's own `cwd` applies. */
  cwd?: string;
}

/** What a started program is kept from, as far as this host allows. */
export interface Isolation {
  tool: "bwrap" | "unshare" | "none";
  /** Only the layout's binds are visible, under a read-only root. */
  emptyRoot: boolean;
  /** No process outside is visible or can be signalled. */
  pidNamespace: boolean;
  networkNamespace: boolean;
  /** Killed (SIGKILL) when its parent dies. */
  diesWithParent: boolean;
}

export interface NamespaceSupport {
  bwrap: boolean;
  unshare: boolean;
  setpriv: boolean;
}

export interface WrapOptions {
  /** Ignore bubblewrap (SCV_SANDBOX_BWRAP=0: to check the fallback). */
  noBwrap?: boolean;
}

const quietly = { stdio: "ignore", env: {}, timeout: 5_000 } as const;
const probes = {
  bwrap: (): boolean =>
    existsSync(BWRAP) &&
    spawnSync(
        BWRAP,
        bwrapArgs({
          userNamespace: "require",
          network: false,
          steps: [{ kind: "bind", source: "/", target: "/" }],
          cwd: "/",
          command: "true",
          args: [],
        }),
        quietly,
      )
        .status === 0,
  unshare: (): boolean =>
    existsSync(UNSHARE) && spawnSync(UNSHARE, ["-rnp", "--kill-child", "true"], quietly).status === 0,
  setpriv: (): boolean =>
    existsSync(SETPRIV) && spawnSync(SETPRIV, ["--pdeathsig", "KILL", "true"], quietly).status === 0,
};
const probed: Partial<NamespaceSupport> = {};

/** Whether `tool` works here (probed once per process, and only when asked: each probe starts a process). */
function works(tool: keyof NamespaceSupport): boolean {
  return (probed[tool] ??= probes[tool]());
}

/** Which tools work here. */
export function namespaceSupport(): NamespaceSupport {
  return { bwrap: works("bwrap"), unshare: works("unshare"), setpriv: works("setpriv") };
}

/** The isolation `wrap` gives a layout here. */
export function isolationFor(layout: NamespaceLayout, options: WrapOptions = {}): Isolation {
  const network = layout.shareNetwork !== true;
  if (options.noBwrap !== true && works("bwrap")) {
    return { tool: "bwrap", emptyRoot: true, pidNamespace: true, networkNamespace: network, diesWithParent: true };
  }
  const unshare = works("unshare");
  return {
    tool: unshare ? "unshare" : "none",
    emptyRoot: false,
    pidNamespace: unshare,
    networkNamespace: unshare && network,
    diesWithParent: works("setpriv"),
  };
}

export interface Wrapped {
  command: string;
  args: string[];
  isolation: Isolation;
}

/**
 * The command line that runs `command args` isolated by `layout`. `inside(target)` names a bound
 * path in `command` and `args`: with an empty root the target itself, else the bind's host path.
 */
export function wrap(
  layout: NamespaceLayout,
  program: (inside: (target: string) => string) => { command: string; args: string[] },
  options: WrapOptions = {},
): Wrapped {
  const isolation = isolationFor(layout, options);
  const inside = (target: string): string => {
    if (isolation.emptyRoot) return target;
    const bind = layout.binds.find((candidate) => candidate.target === target);
    if (bind === undefined) throw new Error(`No bind has the target ${target}: name a path of the layout`);
    return bind.source;
  };
  const { command, args } = program(inside);
  if (isolation.tool === "bwrap") {
    const steps: BwrapStep[] = [
      ...layout.binds.map((bind): BwrapStep => ({ kind: "bind", ...bind })),
      ...(layout.symlinks ?? []).map((link): BwrapStep => ({ kind: "symlink", ...link })),
      { kind: "remount-ro", target: "/" },
    ];
    // No new session: the launcher starts bwrap in a session and process group of its own (no
    // terminal to inject into), and bwrap's own children must stay in that group, so that killing
    // the group reaches them even when bwrap dies before it armed --die-with-parent for them.
    const spec = {
      userNamespace: "require" as const,
      network: layout.shareNetwork === true,
      steps,
      cwd: layout.cwd ?? "/",
      // The sandbox process starts no process (the permission model refuses it): bwrap's reaper would only hold memory.
      asPid1: true,
      command,
      args,
    };
    return { command: BWRAP, args: bwrapArgs(spec), isolation };
  }
  let wrapped = { command, args };
  if (isolation.tool === "unshare") {
    // --fork: a PID namespace takes effect for children only; --kill-child: it dies with unshare.
    const flags = isolation.networkNamespace ? "-rnp" : "-rp";
    wrapped = { command: UNSHARE, args: [flags, "--kill-child", wrapped.command, ...wrapped.args] };
  }
  if (isolation.diesWithParent) {
    // Outermost: the parent-death signal survives the exec of unshare, which takes the child with it.
    wrapped = { command: SETPRIV, args: ["--pdeathsig", "KILL", wrapped.command, ...wrapped.args] };
  }
  return { ...wrapped, isolation };
}

const libraries = new Map<string, string[]>();

/**
 * Binds that let `executable` start in an empty root: its shared libraries and dynamic loader (as
 * `ldd` lists them, at their own paths), or the system's library folders where `ldd` is missing.
 */
export function libraryBinds(executable: string): Bind[] {
  let paths = libraries.get(executable);
  if (paths === undefined) {
    paths = [];
    const listed = existsSync(LDD)
      ? spawnSync(LDD, [executable], { encoding: "utf8", env: {}, timeout: 10_000 })
      : null;
    if (listed !== null && listed.status === 0) {
      for (const match of listed.stdout.matchAll(/(?:^\s*|=>\s*)(\/\S+)\s+\(0x[0-9a-f]+\)/gm)) paths.push(match[1]!);
    }
    if (paths.length === 0 && (listed === null || !/not a dynamic executable/.test(listed.stdout + listed.stderr))) {
      // Each under its own name (bwrap follows a symlinked source: /lib → usr/lib is reached as /lib too).
      paths = LIBRARY_FOLDERS.filter((folder) => existsSync(folder));
    }
    libraries.set(executable, paths);
  }
  return paths.map((path) => ({ source: path, target: path }));
}
