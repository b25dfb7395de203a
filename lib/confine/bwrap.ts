// The layout as bubblewrap flags (bwrap(1)). Mounts are applied in order: the whole root read-only, fresh /dev,
// /proc and private /tmp, then the writable folders, then what stays read-only inside them, then what is hidden.
// Own user (when the kernel allows), PID, IPC, UTS and cgroup namespaces, and network unless allowed; a new session
// (no terminal to push keystrokes into); every capability dropped (bwrap run by root would keep them, and with them
// the power to unmount all of this); killed with its parent. bwrap itself sets no-new-privileges.
import type { Launch, Program } from "./launch.ts";
import { type Layout, PRIVATE_TMP } from "./layout.ts";
import { scratchFolder } from "./scratch.ts";

export const BWRAP = "/usr/bin/bwrap";

/** `hiddenFile` stands in for every hidden file (an empty file of mode 000: reading it fails). */
export function bwrapArgs(layout: Layout, program: Program, hiddenFile: string): string[] {
  const args = [
    "--unshare-user-try",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    ...(layout.network ? [] : ["--unshare-net"]),
    "--die-with-parent",
    "--new-session",
    "--cap-drop",
    "ALL",
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--tmpfs",
    PRIVATE_TMP,
  ];
  for (const path of layout.writable) args.push("--bind", path, path);
  for (const path of layout.readOnly) args.push("--ro-bind", path, path);
  for (const path of layout.hiddenFiles) args.push("--ro-bind", hiddenFile, path);
  for (const path of layout.hiddenDirs) args.push("--perms", "0000", "--tmpfs", path, "--remount-ro", path);
  args.push("--chdir", layout.cwd, "--", program.file, ...program.args);
  return args;
}

export function bwrapLaunch(layout: Layout, program: Program): Launch {
  return { file: BWRAP, args: bwrapArgs(layout, program, scratchFolder().hiddenFile), env: {} };
}
