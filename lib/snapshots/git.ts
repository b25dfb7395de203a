// The git CLI as scv's snapshot store drives it: always against scv's own git directory, index and work tree, in an
// environment that reads no configuration but the store's own (no system or global file, no user hooks, no
// fsmonitor, no filters or attributes from the workspace that could run a program or change bytes), with literal
// pathspecs and paths passed NUL-separated on stdin. Nothing here ever touches the user's `.git`.
import { spawn } from "node:child_process";
import { devNull } from "node:os";

export type GitPaths = { gitDir: string; workTree: string; indexFile: string };

/** git is not installed (or not on PATH): the store falls back to what scv's own file tools write. */
export class GitMissingError extends Error {
  override name = "GitMissingError";
}

export class GitCommandError extends Error {
  override name = "GitCommandError";
}

// Settings given on every command line, so even a store whose config file was tampered with runs no program.
const HARDENED_CONFIG = [
  `core.hooksPath=${devNull}`,
  "core.fsmonitor=false",
  "core.autocrlf=false",
  "core.safecrlf=false",
  "core.quotePath=false",
  "core.untrackedCache=false",
  "core.splitIndex=false",
  "core.sparseCheckout=false",
  "core.symlinks=true",
  "core.protectNTFS=true",
  "index.skipHash=false",
  "gc.auto=0",
  "maintenance.auto=false",
  "advice.detachedHead=false",
];

// Variables of the user's environment a git process may see; everything else (GIT_*, HOME, XDG_*) is replaced.
const KEPT_VARIABLES = ["PATH", "SYSTEMROOT", "SystemRoot", "TEMP", "TMP", "TMPDIR", "COMSPEC"];

export function gitEnvironment(paths: GitPaths, env: Record<string, string | undefined>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of KEPT_VARIABLES) {
    const value = env[name];
    if (value !== undefined) kept[name] = value;
  }
  return {
    ...kept,
    GIT_DIR: paths.gitDir,
    GIT_WORK_TREE: paths.workTree,
    GIT_INDEX_FILE: paths.indexFile,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: devNull,
    GIT_ATTR_NOSYSTEM: "1",
    GIT_NO_REPLACE_OBJECTS: "1",
    GIT_LITERAL_PATHSPECS: "1",
    GIT_TERMINAL_PROMPT: "0",
    GIT_OPTIONAL_LOCKS: "0",
    // Older gits read ~/.gitconfig and $XDG_CONFIG_HOME/git/{config,ignore,attributes}: point both at the store.
    HOME: paths.gitDir,
    XDG_CONFIG_HOME: paths.gitDir,
    LC_ALL: "C",
    // glibc hands freed memory at the top of the heap back at once (over 128 KiB), and git frees its zlib state after
    // every object it writes: each object then faults its pages in anew, which made writing objects 4 to 6 times
    // the CPU it needs (measured: 10,000 blobs, 12.8 s against 2.3 s). A short-lived git keeps what it freed
    // instead. Other C libraries ignore the variable.
    MALLOC_TRIM_THRESHOLD_: String(64 << 20),
    GIT_AUTHOR_NAME: "scv",
    GIT_AUTHOR_EMAIL: "scv@localhost",
    GIT_COMMITTER_NAME: "scv",
    GIT_COMMITTER_EMAIL: "scv@localhost",
  };
}

export type GitRun = (args: readonly string[], input?: string | Buffer) => Promise<Buffer>;

/** One git subcommand of a chain, with what it reads on stdin. */
export type GitStep = { args: readonly string[]; input?: string | Buffer };

/** Runs git subcommands one after another, each only if the one before succeeded; resolves with the last's output. */
export type GitChain = (steps: readonly GitStep[]) => Promise<Buffer>;

export type GitRunner = { run: GitRun; chain: GitChain };

/**
 * A runner of git subcommands against `paths`; each rejects with GitMissingError or GitCommandError, also when it
 * runs longer than `timeoutMs` (killed: git's own .gitignore matching backtracks on patterns like `*a*a*a*a*b`).
 */
export function gitRunner(paths: GitPaths, env: Record<string, string | undefined>, timeoutMs: number): GitRunner {
  const environment = gitEnvironment(paths, env);
  const configArgs = HARDENED_CONFIG.flatMap((setting) => ["-c", setting]);
  const run: GitRun = (args, input) =>
    runProcess({
      command: "git",
      args: [...configArgs, ...args],
      label: subcommandOf(args),
      env: environment,
      cwd: paths.workTree,
      timeoutMs,
      inputs: [input ?? ""],
    });
  const chain: GitChain = async (steps) => {
    if (steps.length === 1 || process.platform === "win32") {
      let output: Buffer = Buffer.alloc(0);
      for (const step of steps) output = await run(step.args, step.input);
      return output;
    }
    // One `sh` runs the chain: this process forks once, not once per git (a fork of a large Node process costs
    // several milliseconds, more than a small git command). Step i reads its input on fd 0 (the first) or i + 2;
    // the script is made of our own fixed arguments only, paths travel on the pipes.
    const script = steps.map((step, index) => {
      const words = ["git", ...configArgs, ...step.args].map(shellQuote).join(" ");
      const fd = index === 0 ? 0 : index + 2;
      return `${index === steps.length - 1 ? "exec " : ""}${words} <&${fd}`;
    }).join(" && ");
    return await runProcess({
      command: "/bin/sh",
      args: ["-c", script],
      label: steps.map((step) => subcommandOf(step.args)).join(" + "),
      env: environment,
      cwd: paths.workTree,
      timeoutMs,
      inputs: steps.map((step) => step.input ?? ""),
    });
  };
  return { run, chain };
}

function subcommandOf(args: readonly string[]): string {
  return args.find((arg, index) => arg !== "-c" && args[index - 1] !== "-c") ?? "";
}

function shellQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

type ProcessRun = {
  command: string;
  args: readonly string[];
  /** What the errors call the command: `git <label>`. */
  label: string;
  env: Record<string, string>;
  cwd: string;
  timeoutMs: number;
  /** Written to fd 0, then fds 3, 4, …; each pipe is closed after its input. */
  inputs: ReadonlyArray<string | Buffer>;
};

function runProcess(run: ProcessRun): Promise<Buffer> {
  const { label, timeoutMs, inputs } = run;
  // A chain runs in a process group of its own, so that a timeout stops the git it is running too.
  const group = process.platform !== "win32" && inputs.length > 1;
  return new Promise((resolve, reject) => {
    const extraPipes = inputs.slice(1).map(() => "pipe" as const);
    const child = spawn(run.command, run.args, {
      cwd: run.cwd,
      env: run.env,
      stdio: ["pipe", "pipe", "pipe", ...extraPipes],
      windowsHide: true,
      detached: group,
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        if (group && child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
        else child.kill("SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
    }, timeoutMs);
    timer.unref?.();
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout!.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr!.on("data", (chunk: Buffer) => err.push(chunk));
    child.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT" && run.command === "git") reject(new GitMissingError("git was not found on PATH"));
      else reject(new GitCommandError(`run git: ${error.message}`));
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      if (timedOut) {
        return reject(
          new GitCommandError(
            `git ${label} took over ${timeoutMs / 1000} s (snapshots.timeout_seconds) and was stopped; ` +
              "a .gitignore pattern with many wildcards, or a very large workspace, makes git this slow",
          ),
        );
      }
      if (code === 0) return resolve(Buffer.concat(out));
      const stderr = Buffer.concat(err).toString("utf8").trim().split("\n").slice(0, 4).join("; ");
      reject(new GitCommandError(`git ${label} failed (${signal ?? `exit ${code}`}): ${stderr}`));
    });
    inputs.forEach((input, index) => {
      const pipe = child.stdio[index === 0 ? 0 : index + 2] as NodeJS.WritableStream & NodeJS.EventEmitter;
      // A git that exits before reading its input closes the pipe: that is reported by its exit status instead.
      pipe.on("error", () => {});
      pipe.end(input);
    });
  });
}

/** The `major.minor` of git's version (`git version 2.39.5` → [2, 39]), or [0, 0] when it reads otherwise. */
export function parseGitVersion(output: string): [number, number] {
  const match = /(\d+)\.(\d+)/.exec(output);
  return match === null ? [0, 0] : [Number(match[1]), Number(match[2])];
}

/** NUL-separated output (`-z`) as strings, without the empty tail. */
export function nulFields(output: Buffer): string[] {
  const text = output.toString("utf8");
  const fields = text.split("\0");
  if (fields.at(-1) === "") fields.pop();
  return fields;
}

/** Paths as `--stdin -z` and `--pathspec-file-nul` read them. */
export function nulList(paths: readonly string[]): string {
  return paths.map((path) => `${path}\0`).join("");
}
