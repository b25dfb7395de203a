// The layout as a macOS Seatbelt profile for /usr/bin/sandbox-exec (only that path: one found on PATH could be
// anyone's). Closed by default: processes may fork, exec and signal only their own sandbox; everything may be read
// except what is hidden; only the writable folders (minus what stays read-only and what is hidden inside them) and a
// private temporary folder may be written; the network only when allowed. Paths enter as parameters (`-D`), never
// as text of the profile, so no path can change its meaning. macOS offers no PID namespace and no death with the
// parent: children of a command that outlive it are killed with its process group, as without a sandbox.
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Launch, Program } from "./launch.ts";
import type { Layout } from "./layout.ts";

export const SANDBOX_EXEC = "/usr/bin/sandbox-exec";

const BASE = `(version 1)
(deny default)
(allow process-exec)
(allow process-fork)
(allow signal (target same-sandbox))
(allow process-info* (target same-sandbox))
(allow sysctl-read)
(allow user-preference-read)
(allow mach-lookup (global-name "com.apple.system.opendirectoryd.libinfo"))
(allow ipc-posix-sem)
(allow pseudo-tty)
(allow file-read* file-write* file-ioctl (literal "/dev/ptmx"))
(allow file-read* file-write* file-ioctl (regex #"^/dev/ttys[0-9]+$"))
(allow file-write-data (require-all (literal "/dev/null") (vnode-type CHARACTER-DEVICE)))`;

export type SeatbeltProfile = { profile: string; params: Array<[string, string]> };

export function seatbeltProfile(layout: Layout, privateTmp: string): SeatbeltProfile {
  const params: Array<[string, string]> = [];
  const param = (name: string, value: string): string => {
    params.push([name, value]);
    return `(param "${name}")`;
  };
  const hidden = [
    ...layout.hiddenDirs.map((path, index) => {
      const name = param(`HIDDEN_DIR_${index}`, path);
      return `(require-not (literal ${name})) (require-not (subpath ${name}))`;
    }),
    ...layout.hiddenFiles.map((path, index) => `(require-not (literal ${param(`HIDDEN_FILE_${index}`, path)}))`),
  ];
  const sections = [BASE];
  sections.push(
    hidden.length === 0
      ? "(allow file-read*)"
      : `(allow file-read*\n  (require-all (subpath "/") ${hidden.join(" ")}))`,
  );
  const readOnly = layout.readOnly.map((path, index) => {
    const name = param(`READ_ONLY_${index}`, path);
    return `(require-not (literal ${name})) (require-not (subpath ${name}))`;
  });
  const writable = [
    ...layout.writable.map((path, index) => {
      const root = `(subpath ${param(`WRITABLE_ROOT_${index}`, path)})`;
      const exceptions = [...readOnly, ...hidden];
      return exceptions.length === 0 ? root : `(require-all ${root} ${exceptions.join(" ")})`;
    }),
    `(subpath ${param("PRIVATE_TMP", privateTmp)})`,
  ];
  sections.push(`(allow file-write*\n  ${writable.join("\n  ")})`);
  if (layout.network) sections.push("(allow network-outbound)\n(allow network-inbound)\n(allow system-socket)");
  return { profile: `${sections.join("\n")}\n`, params };
}

let privateTmp: string | undefined;

/** This process's temporary folder for its commands (TMPDIR inside); the system's /tmp stays read-only. */
function commandTmp(): string {
  if (privateTmp === undefined) {
    privateTmp = realpathSync(mkdtempSync(join(tmpdir(), "scv-tmp-")));
    const made = privateTmp;
    process.once("exit", () => rmSync(made, { recursive: true, force: true }));
  }
  return privateTmp;
}

export function seatbeltLaunch(layout: Layout, program: Program): Launch {
  const tmp = commandTmp();
  const { profile, params } = seatbeltProfile(layout, tmp);
  return {
    file: SANDBOX_EXEC,
    args: ["-p", profile, ...params.map(([name, value]) => `-D${name}=${value}`), "--", program.file, ...program.args],
    env: { TMPDIR: tmp },
  };
}
