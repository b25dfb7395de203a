// The layout made by hand where bubblewrap is missing: util-linux `unshare` gives the namespaces (user, mount, PID,
// IPC, UTS, and network unless allowed) and a shell script inside them builds the same file system bwrap would: a
// recursive copy of the root under a staging folder, every mount of it remounted read-only, a fresh /dev holding only
// the harmless devices, a fresh /proc, a private /tmp, then the writable folders, what stays read-only inside them
// and what is hidden; then `chroot` into it and `setpriv` drops every capability (the script runs as root of its own
// user namespace, which could otherwise undo every mount) and sets no-new-privileges. `setpriv --pdeathsig` outside
// kills `unshare`, and with it everything inside, when scv dies. Inside, the process runs as uid 0 of its own user
// namespace, without any capability.
import { existsSync, readFileSync } from "node:fs";
import { SETPRIV, UNSHARE } from "../sandbox/index.ts";
import type { Launch, Program } from "./launch.ts";
import { type Layout, PRIVATE_TMP } from "./layout.ts";
import { scratchFolder } from "./scratch.ts";

export { SETPRIV, UNSHARE };
/** Where `chroot` is (Debian has it in /usr/sbin). */
export const CHROOT_PATHS = ["/usr/sbin/chroot", "/usr/bin/chroot", "/sbin/chroot"];
/** Devices a process may need; the host's others (disks, memory) are not there. */
const DEVICES = ["null", "zero", "full", "random", "urandom", "tty"];

/** The mount points that fresh mounts cover inside (their copies need no read-only remount). */
const COVERED = ["/dev", "/proc", PRIVATE_TMP];

/** A shell test that makes the folder only where the copy lacks it (most are there: it is the same tree). */
const folder = (target: string) => `{ [ -d ${target} ] || mkdir -p ${target}; }`;

/** Shell quoting: one word whatever it holds. */
export function shellQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The mount points of this process's mount namespace, as /proc/self/mountinfo lists them. */
export function mountPoints(mountinfo: string): string[] {
  const points: string[] = [];
  for (const line of mountinfo.split("\n")) {
    const field = line.split(" ")[4];
    if (field === undefined) continue;
    points.push(field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8))));
  }
  return points;
}

/**
 * The setup script: `$0` is the staging folder, `$1` the working folder, the rest the program and its arguments;
 * `hiddenFile` stands in for every hidden file.
 */
export function unshareScript(layout: Layout, mounts: readonly string[], chroot: string, hiddenFile: string): string {
  const q = shellQuote;
  const at = (path: string) => `"$N"${q(path)}`;
  const lines = [
    "set -e",
    // The system's tools for the setup; the command gets the caller's PATH back.
    'O="$PATH"',
    "PATH=/usr/sbin:/usr/bin:/sbin:/bin",
    'N="$0/root"',
    'mount -t tmpfs -o mode=0755 scv-stage "$0"',
    'mkdir "$N"',
    'mount --rbind / "$N"',
    // Every mount of the copy: each is its own, and read-only applies per mount. Those under /dev, /proc and the
    // private /tmp are left: fresh mounts cover them below (or the script stops), and no one inside can lift those.
    ...mounts.filter((point) => !COVERED.some((top) => point === top || point.startsWith(`${top}/`))).map((point) =>
      `mount -o remount,bind,ro ${point === "/" ? '"$N"' : at(point)}`
    ),
    'mount -t tmpfs -o mode=0755,nosuid scv-dev "$N/dev"',
    // Each external command costs a process (the setup is most of this back end's time): files are made by the shell.
    ...DEVICES.map((name) => `: > "$N/dev/${name}" && mount --bind /dev/${name} "$N/dev/${name}"`),
    'ln -s /proc/self/fd "$N/dev/fd"',
    ...["stdin", "stdout", "stderr"].map((name, fd) => `ln -s /proc/self/fd/${fd} "$N/dev/${name}"`),
    'mkdir "$N/dev/shm" "$N/dev/pts"',
    'mount -t tmpfs -o mode=1777,nosuid,nodev scv-shm "$N/dev/shm"',
    'if mount -t devpts -o newinstance,ptmxmode=0666,mode=620 devpts "$N/dev/pts" 2>/dev/null; then ln -s pts/ptmx "$N/dev/ptmx"; fi',
    'mount -o remount,bind,ro "$N/dev"',
    // A /proc of the new PID namespace; where the kernel refuses one (a container masking parts of its own), none.
    'mount -t proc -o nosuid,nodev,noexec proc "$N/proc" 2>/dev/null || mount -t tmpfs -o ro,mode=0555 scv-noproc "$N/proc"',
    `mount -t tmpfs -o mode=1777,nosuid,nodev scv-tmp "$N"${q(PRIVATE_TMP)}`,
    ...layout.writable.map((path) => `${folder(at(path))} && mount --bind ${q(path)} ${at(path)}`),
    ...layout.readOnly.map((path) =>
      `${folder(at(path))} && mount --bind ${q(path)} ${at(path)} && mount -o remount,bind,ro ${at(path)}`
    ),
    ...layout.hiddenFiles.map((path) =>
      `mount --bind ${q(hiddenFile)} ${at(path)} && mount -o remount,bind,ro ${at(path)}`
    ),
    ...layout.hiddenDirs.map((path) => `mount -t tmpfs -o ro,mode=0000 scv-hidden ${at(path)}`),
    'PATH="$O"',
    // The shell stays as the namespace's PID 1 and runs the program as its child: PID 1 ignores every signal it has
    // no handler for, so a program running as PID 1 could not be stopped by Ctrl-C or SIGTERM (nor kill itself).
    `exec ${chroot} "$N" ${SETPRIV} --no-new-privs --bounding-set=-all --inh-caps=-all -- /bin/sh -c 'cd -- "$0" && "$@"; exit $?' "$@"`,
  ];
  return lines.join("\n");
}

export function unshareLaunch(layout: Layout, program: Program): Launch {
  const mounts = mountPoints(readFileSync("/proc/self/mountinfo", "utf8"));
  const scratch = scratchFolder();
  const flags = ["--user", "--map-root-user", "--mount", "--pid", "--fork", "--kill-child", "--ipc", "--uts"];
  if (!layout.network) flags.push("--net");
  return {
    file: SETPRIV,
    args: [
      "--pdeathsig",
      "KILL",
      UNSHARE,
      ...flags,
      "/bin/sh",
      "-c",
      unshareScript(layout, mounts, CHROOT_PATHS.find((path) => existsSync(path)) ?? "chroot", scratch.hiddenFile),
      scratch.stage,
      layout.cwd,
      program.file,
      ...program.args,
    ],
    env: {},
  };
}
