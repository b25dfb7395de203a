// The one builder of bubblewrap command lines (bwrap(1)), for every caller that confines a program with it: the
// cell sandbox's processes (namespaces.ts: an empty root holding only named paths) and shell commands and MCP
// servers (lib/confine: the host's root read-only, with writable and hidden paths). Both get the same namespaces:
// their own PID, IPC, UTS and cgroup namespaces, a user namespace, a network namespace unless the network is kept,
// and death with the parent; a new session where the caller does not start bwrap in one. bwrap itself always sets
// no-new-privileges.

export const BWRAP = "/usr/bin/bwrap";

/** One step of the mount layout; bwrap applies them in order, so parents go before children. */
export type BwrapStep =
  /** A host path visible at `target`, read-only unless `writable`. */
  | { kind: "bind"; source: string; target: string; writable?: boolean }
  /** A fresh /dev with only the harmless devices. */
  | { kind: "dev"; target: string }
  /** A /proc of the new PID namespace. */
  | { kind: "proc"; target: string }
  /** An empty memory-backed folder; `perms` (octal) for its mode, `readOnly` to remount it so. */
  | { kind: "tmpfs"; target: string; perms?: string; readOnly?: boolean }
  /** A symbolic link made at `path`, pointing at `target`. */
  | { kind: "symlink"; target: string; path: string }
  /** Remount `target` (and what is under it) read-only. */
  | { kind: "remount-ro"; target: string };

export type BwrapSpec = {
  /**
   * `require`: refuse to run where the kernel gives no user namespace; `try`: go on without one (bwrap run by root
   * without user namespaces still confines, and then drops every capability when `dropCapabilities`).
   */
  userNamespace: "require" | "try";
  /** Keep the host's network; otherwise a fresh namespace whose only interface, loopback, is down. */
  network: boolean;
  /**
   * Start the program in a new session (no terminal to push keystrokes into). Callers that start bwrap detached
   * leave it off: the program then stays in bwrap's process group, which a kill of the group reaches even when
   * bwrap dies before it armed --die-with-parent.
   */
  newSession?: boolean;
  /**
   * The program is the namespace's first process instead of a child of bwrap's reaper: one process less for a program
   * that starts none (a reaper's only work is collecting its orphans). Signals from outside reach it only when it
   * handles them, SIGKILL always.
   */
  asPid1?: boolean;
  /** Drop every capability inside (bwrap run by root keeps them otherwise, and with them the power to unmount). */
  dropCapabilities?: boolean;
  steps: readonly BwrapStep[];
  /** The working folder inside. */
  cwd: string;
  command: string;
  args: readonly string[];
};

/** The namespaces every caller gets (the user one is added by `userNamespace`, the network one unless kept). */
export const BWRAP_NAMESPACES: readonly string[] = [
  "--unshare-pid",
  "--unshare-ipc",
  "--unshare-uts",
  "--unshare-cgroup-try",
];

/** bwrap's arguments (without the program path `BWRAP` itself) for `spec`. */
export function bwrapArgs(spec: BwrapSpec): string[] {
  const args = [spec.userNamespace === "require" ? "--unshare-user" : "--unshare-user-try", ...BWRAP_NAMESPACES];
  if (!spec.network) args.push("--unshare-net");
  args.push("--die-with-parent");
  if (spec.asPid1 === true) args.push("--as-pid-1");
  if (spec.newSession === true) args.push("--new-session");
  if (spec.dropCapabilities === true) args.push("--cap-drop", "ALL");
  for (const step of spec.steps) {
    switch (step.kind) {
      case "bind":
        args.push(step.writable === true ? "--bind" : "--ro-bind", step.source, step.target);
        break;
      case "dev":
        args.push("--dev", step.target);
        break;
      case "proc":
        args.push("--proc", step.target);
        break;
      case "tmpfs":
        if (step.perms !== undefined) args.push("--perms", step.perms);
        args.push("--tmpfs", step.target);
        if (step.readOnly === true) args.push("--remount-ro", step.target);
        break;
      case "symlink":
        args.push("--symlink", step.target, step.path);
        break;
      case "remount-ro":
        args.push("--remount-ro", step.target);
        break;
    }
  }
  args.push("--chdir", spec.cwd, "--", spec.command, ...spec.args);
  return args;
}
