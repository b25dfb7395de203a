// The proof, at first use, that a back end confines a process here: one confined run of a small probe script tries
// what the sandbox must refuse (a write outside the writable folders and under `.git`, reading a hidden file and a
// secret-like one, a connection to a listener of scv's on 127.0.0.1, a signal to scv) and what it must allow (a
// write in the workspace and in its private /tmp), and scv checks the host side too (no file appeared, no connection
// arrived). Each layer is reported with whether it holds; the back end is used only when every required one does.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readlinkSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BackendName, launchWith, missingTools } from "./backends.ts";
import { planLayout } from "./layout.ts";

export type Layer = {
  name: "workspace" | "files" | "git" | "secrets" | "tmp" | "network" | "processes" | "privileges" | "parent";
  holds: boolean;
  /** False for a layer reported only (macOS cannot kill a sandbox with its parent). */
  required: boolean;
  detail: string;
};

export type SelfTest = {
  backend: BackendName;
  holds: boolean;
  layers: Layer[];
  /** Why the probe could not run at all (a program missing, the launch failing). */
  error?: string;
};

const PROBE = `W=$1 O=$2 S=$3 T=$4 P=$5 Q=$6
probe() { if ( eval "$2" ) >/dev/null 2>&1; then echo "$1=yes"; else echo "$1=no"; fi; }
probe inside 'echo x > "$W/inside"'
probe outside 'echo x > "$O/outside"'
probe git 'echo x > "$W/.git/probe"'
probe env 'cat "$W/.env"'
probe hidden 'cat "$S"'
probe tmp 'echo x > "\${TMPDIR:-/tmp}/$T"'
probe net 'exec 3<>"/dev/tcp/127.0.0.1/$P"'
probe signal 'kill -0 "$Q"'
if grep -qs "^NoNewPrivs:[[:space:]]*1" /proc/self/status; then echo nnp=yes; else echo nnp=no; fi
echo "pidns=$(readlink /proc/self/ns/pid 2>/dev/null)"
`;

/** Hang guard only: a probe that has not finished by then has failed. */
const PROBE_DEADLINE_MS = 60_000;

const cache = new Map<BackendName, Promise<SelfTest>>();

/** The self-test of `backend`, run once per process. */
export function selfTest(backend: BackendName): Promise<SelfTest> {
  let result = cache.get(backend);
  if (result === undefined) {
    result = runSelfTest(backend);
    cache.set(backend, result);
  }
  return result;
}

/** A folder outside the private /tmp where one exists, so that "a write outside" meets the read-only root. */
function probeBase(): string {
  try {
    if (process.platform === "linux" && statSync("/var/tmp").isDirectory()) {
      return mkdtempSync("/var/tmp/scv-probe-");
    }
  } catch {
    // not writable here
  }
  return mkdtempSync(join(tmpdir(), "scv-probe-"));
}

async function runSelfTest(backend: BackendName): Promise<SelfTest> {
  const missing = missingTools(backend);
  if (missing.length > 0) return { backend, holds: false, layers: [], error: `missing ${missing.join(", ")}` };
  let base: string;
  try {
    base = probeBase();
  } catch (error) {
    return { backend, holds: false, layers: [], error: `no folder for the probe: ${String(error)}` };
  }
  const listener = createServer();
  let connections = 0;
  listener.on("connection", (socket) => {
    connections += 1;
    socket.destroy();
  });
  try {
    const ws = join(base, "ws");
    const out = join(base, "out");
    const secret = join(base, "home", ".ssh", "id_probe");
    mkdirSync(join(ws, ".git"), { recursive: true });
    mkdirSync(out);
    mkdirSync(join(base, "home", ".ssh"), { recursive: true });
    writeFileSync(join(ws, ".env"), "probe\n");
    writeFileSync(secret, "probe\n");
    const port = await listen(listener);
    const tmpName = `scv-probe-${process.pid}-${Date.now()}`;
    const layout = planLayout({
      mode: "workspace-write",
      workspace: ws,
      writableRoots: [],
      network: false,
      hidden: [join(base, "home", ".ssh")],
    });
    const launch = launchWith(backend, layout, {
      file: "/bin/bash",
      args: ["-c", PROBE, "probe", ws, out, secret, tmpName, String(port), String(process.pid)],
    });
    const run = await runProbe(launch.file, launch.args, ws, launch.env);
    const seen = new Map(
      run.stdout.split("\n").filter((line) => line.includes("=")).map((line) => {
        const at = line.indexOf("=");
        return [line.slice(0, at), line.slice(at + 1)] as const;
      }),
    );
    if (seen.get("inside") === undefined) {
      const why = (run.stderr.trim().split("\n").at(-1) ?? "").slice(0, 300);
      return { backend, holds: false, layers: [], error: `the probe did not run (${run.status}): ${why}` };
    }
    const refused = (key: string) => seen.get(key) === "no";
    let ownPidNamespace = "";
    try {
      ownPidNamespace = readlinkSync("/proc/self/ns/pid");
    } catch {
      // no procfs (macOS)
    }
    const innerPidNamespace = seen.get("pidns") ?? "";
    const layers: Layer[] = [
      layer(
        "workspace",
        seen.get("inside") === "yes" && existsSync(join(ws, "inside")),
        "a write in the workspace lands",
      ),
      layer(
        "files",
        refused("outside") && !existsSync(join(out, "outside")),
        "a write outside the writable folders is refused",
      ),
      layer(
        "git",
        refused("git") && !existsSync(join(ws, ".git", "probe")),
        ".git inside a writable folder stays read-only",
      ),
      layer("secrets", refused("env") && refused("hidden"), "hidden paths and secret-like files cannot be read"),
      layer("tmp", seen.get("tmp") === "yes" && !existsSync(join("/tmp", tmpName)), "a private temporary folder"),
      layer("network", refused("net") && connections === 0, "no connection reaches a listener on 127.0.0.1"),
      layer(
        "processes",
        refused("signal") || (innerPidNamespace !== "" && innerPidNamespace !== ownPidNamespace),
        "no signal reaches scv or any process outside",
      ),
      process.platform === "linux"
        ? layer("privileges", seen.get("nnp") === "yes", "no new privileges (setuid programs gain nothing)")
        : { name: "privileges", holds: true, required: true, detail: "the profile binds every child process" },
      {
        name: "parent",
        holds: backend !== "seatbelt",
        required: false,
        detail: backend === "bwrap"
          ? "killed with scv (bwrap --die-with-parent)"
          : backend === "unshare"
          ? "killed with scv (setpriv --pdeathsig)"
          : "not killed with scv if scv dies (macOS has no such signal; the process group is killed as usual)",
      },
    ];
    return { backend, holds: layers.every((entry) => entry.holds || !entry.required), layers };
  } catch (error) {
    return { backend, holds: false, layers: [], error: error instanceof Error ? error.message : String(error) };
  } finally {
    listener.close();
    rmSync(base, { recursive: true, force: true });
  }
}

function layer(name: Layer["name"], holds: boolean, detail: string): Layer {
  return { name, holds, required: true, detail };
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      resolve(typeof address === "object" && address !== null ? address.port : 0);
    });
  });
}

function runProbe(
  file: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(file, args, {
      cwd,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString("utf8")).slice(-4096)));
    const timer = setTimeout(() => child.kill("SIGKILL"), PROBE_DEADLINE_MS);
    child.once("error", (error) => {
      clearTimeout(timer);
      resolve({ status: null, stdout, stderr: `${stderr}${error.message}` });
    });
    child.once("close", (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}
