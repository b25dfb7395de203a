// The layout as bubblewrap steps, built into a command line by the one bwrap builder the cell sandbox uses too
// (lib/sandbox bwrap_args.ts). Mounts are applied in order: the whole root read-only, fresh /dev, /proc and private
// /tmp, then the writable folders, then what stays read-only inside them, then what is hidden. The user namespace is
// tried (bwrap run by root goes on without one), so every capability is dropped: root would keep them, and with them
// the power to unmount all of this.
import { BWRAP, bwrapArgs, type BwrapStep } from "../sandbox/index.ts";
import type { Launch, Program } from "./launch.ts";
import { type Layout, PRIVATE_TMP } from "./layout.ts";
import { scratchFolder } from "./scratch.ts";

export { BWRAP };

/** `hiddenFile` stands in for every hidden file (an empty file of mode 000: reading it fails). */
export function layoutArgs(layout: Layout, program: Program, hiddenFile: string): string[] {
  const steps: BwrapStep[] = [
    { kind: "bind", source: "/", target: "/" },
    { kind: "dev", target: "/dev" },
    { kind: "proc", target: "/proc" },
    { kind: "tmpfs", target: PRIVATE_TMP },
    ...layout.writable.map((path): BwrapStep => ({ kind: "bind", source: path, target: path, writable: true })),
    ...layout.readOnly.map((path): BwrapStep => ({ kind: "bind", source: path, target: path })),
    ...layout.hiddenFiles.map((path): BwrapStep => ({ kind: "bind", source: hiddenFile, target: path })),
    ...layout.hiddenDirs.map((path): BwrapStep => ({ kind: "tmpfs", target: path, perms: "0000", readOnly: true })),
  ];
  return bwrapArgs({
    userNamespace: "try",
    network: layout.network,
    dropCapabilities: true,
    newSession: program.ownSession !== true,
    steps,
    cwd: layout.cwd,
    command: program.file,
    args: program.args,
  });
}

export function bwrapLaunch(layout: Layout, program: Program): Launch {
  return { file: BWRAP, args: layoutArgs(layout, program, scratchFolder().hiddenFile), env: {} };
}
