// The command sandbox's layout, worked out on the host, and what each back end makes of it (lib/confine): real paths
// for writable folders, `.git`/`.scv` read-only inside them, secret-like files and hidden paths, the bubblewrap
// command line (built by the one builder the cell sandbox uses), the Seatbelt profile's text, and the reading of a
// failed command's output for what the sandbox denied.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { bwrapLayoutArgs, denialsIn, planLayout, seatbeltProfile } from "../../lib/confine/index.ts";
import { bwrapArgs } from "../../lib/sandbox/index.ts";

let root: string;
beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), "scv-layout-")));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function workspace(): string {
  const ws = path.join(root, "ws");
  mkdirSync(path.join(ws, ".git", "hooks"), { recursive: true });
  mkdirSync(path.join(ws, ".scv"));
  mkdirSync(path.join(ws, "pkg", "deep", "deeper"), { recursive: true });
  writeFileSync(path.join(ws, ".env"), "A=1\n");
  writeFileSync(path.join(ws, "pkg", ".env.local"), "A=1\n");
  writeFileSync(path.join(ws, "pkg", "deep", "deeper", ".env"), "A=1\n");
  writeFileSync(path.join(ws, ".git", "config"), "[core]\n");
  return ws;
}

describe("planLayout", () => {
  it("makes the workspace writable by its real path, .git and .scv read-only, secret-like files hidden", () => {
    const ws = workspace();
    const link = path.join(root, "ws-link");
    symlinkSync(ws, link);
    const home = path.join(root, "home");
    mkdirSync(path.join(home, ".ssh"), { recursive: true });
    const layout = planLayout({
      mode: "workspace-write",
      workspace: link,
      writableRoots: [path.join(root, "missing")],
      network: false,
      hidden: [path.join(home, ".ssh"), path.join(home, ".aws")],
    });
    expect(layout.cwd).toBe(ws);
    expect(layout.writable).toEqual([ws]);
    expect(layout.readOnly).toEqual([path.join(ws, ".git"), path.join(ws, ".scv")]);
    expect(layout.hiddenFiles).toEqual([path.join(ws, ".env"), path.join(ws, "pkg", ".env.local")]);
    // Below the scan's depth, and git's own configuration, are not hidden (docs/security.md says so).
    expect(layout.hiddenFiles).not.toContain(path.join(ws, "pkg", "deep", "deeper", ".env"));
    expect(layout.hiddenFiles).not.toContain(path.join(ws, ".git", "config"));
    // Under the private /tmp (this test's root is) a hidden path is not visible anyway; a missing one is skipped.
    expect(layout.hiddenDirs).toEqual([]);
    expect(layout.notes).toEqual([`writable root ${path.join(root, "missing")} is not a folder; it stays read-only`]);
  });

  it("under read-only writes nothing, and keeps a working folder under /tmp visible read-only", () => {
    const ws = workspace();
    const layout = planLayout({ mode: "read-only", workspace: ws, writableRoots: [], network: false, hidden: [] });
    expect(layout.writable).toEqual([]);
    expect(layout.readOnly).toEqual([ws]);
  });

  it("never hides a folder that holds a writable one", () => {
    const ws = workspace();
    const layout = planLayout({
      mode: "workspace-write",
      workspace: ws,
      writableRoots: [],
      network: false,
      hidden: [root],
    });
    expect(layout.hiddenDirs).toEqual([]);
    expect(layout.notes).toEqual([`${root} holds a writable folder, so it is not hidden`]);
  });
});

describe("the back ends' command lines", () => {
  const layout = {
    cwd: "/w",
    writable: ["/w"],
    readOnly: ["/w/.git"],
    hiddenFiles: ["/w/.env"],
    hiddenDirs: ["/home/u/.ssh"],
    network: false,
    notes: [],
  };

  it("bubblewrap: the layout in order through the shared builder, every capability dropped, no network", () => {
    const args = bwrapLayoutArgs(layout, { file: "/bin/bash", args: ["-c", "true"] }, "/scratch/hidden");
    expect(args).toEqual(bwrapArgs({
      userNamespace: "try",
      network: false,
      dropCapabilities: true,
      newSession: true,
      steps: [
        { kind: "bind", source: "/", target: "/" },
        { kind: "dev", target: "/dev" },
        { kind: "proc", target: "/proc" },
        { kind: "tmpfs", target: "/tmp" },
        { kind: "bind", source: "/w", target: "/w", writable: true },
        { kind: "bind", source: "/w/.git", target: "/w/.git" },
        { kind: "bind", source: "/scratch/hidden", target: "/w/.env" },
        { kind: "tmpfs", target: "/home/u/.ssh", perms: "0000", readOnly: true },
      ],
      cwd: "/w",
      command: "/bin/bash",
      args: ["-c", "true"],
    }));
    expect(args.slice(0, 12)).toEqual([
      "--unshare-user-try",
      "--unshare-pid",
      "--unshare-ipc",
      "--unshare-uts",
      "--unshare-cgroup-try",
      "--unshare-net",
      "--die-with-parent",
      "--new-session",
      "--cap-drop",
      "ALL",
      "--ro-bind",
      "/",
    ]);
    // bash starts its launch in a process group of its own: the command stays in it, so a kill of the group lands.
    expect(bwrapLayoutArgs(layout, { file: "x", args: [], ownSession: true }, "/h")).not.toContain("--new-session");
    expect(args.join(" ")).toContain("--bind /w /w --ro-bind /w/.git /w/.git --ro-bind /scratch/hidden /w/.env");
    expect(args.join(" ")).toContain("--perms 0000 --tmpfs /home/u/.ssh --remount-ro /home/u/.ssh");
    expect(args.slice(-5)).toEqual(["/w", "--", "/bin/bash", "-c", "true"]);
    expect(bwrapLayoutArgs({ ...layout, network: true }, { file: "x", args: [] }, "/h")).not.toContain("--unshare-net");
  });

  it("Seatbelt: closed by default, paths only as parameters, writes only to the writable folders minus .git", () => {
    const evil = '/w/")) (allow default) ((';
    const { profile, params } = seatbeltProfile({ ...layout, writable: [evil] }, "/private/tmp/scv-tmp-1");
    expect(profile.startsWith("(version 1)\n(deny default)\n")).toBe(true);
    expect(profile).not.toContain(evil);
    expect(profile).not.toMatch(/\(allow default\)|network-outbound/);
    expect(profile).toContain(
      '(allow file-write*\n  (require-all (subpath (param "WRITABLE_ROOT_0")) (require-not (literal (param "READ_ONLY_0")))',
    );
    expect(params).toContainEqual(["WRITABLE_ROOT_0", evil]);
    expect(params).toContainEqual(["READ_ONLY_0", "/w/.git"]);
    expect(params).toContainEqual(["HIDDEN_DIR_0", "/home/u/.ssh"]);
    expect(params).toContainEqual(["PRIVATE_TMP", "/private/tmp/scv-tmp-1"]);
    expect(seatbeltProfile({ ...layout, network: true }, "/t").profile).toContain("(allow network-outbound)");
  });
});

describe("denialsIn", () => {
  const layout = {
    ...planLayout({ mode: "read-only", workspace: "/", writableRoots: [], network: false, hidden: [] }),
  };

  it("names the written path, a hidden read and a lost connection, at most three", () => {
    const hidden = { ...layout, hiddenFiles: ["/home/u/.netrc"] };
    expect(denialsIn("touch: cannot touch '/etc/x': Read-only file system", hidden, "linux")).toEqual([
      "a write to /etc/x",
    ]);
    expect(denialsIn("cat: /home/u/.netrc: Permission denied", hidden, "linux")).toEqual([
      "a read of /home/u/.netrc, which the sandbox hides",
    ]);
    expect(denialsIn("curl: (6) Could not resolve host: example.com", hidden, "linux")).toEqual([
      "a network connection (network_access is off)",
    ]);
    expect(denialsIn("curl: (6) Could not resolve host: example.com", { ...hidden, network: true }, "linux")).toEqual(
      [],
    );
    expect(denialsIn("error: something else failed", hidden, "linux")).toEqual([]);
  });
});
