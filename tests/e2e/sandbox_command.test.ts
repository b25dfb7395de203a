// `scv sandbox` through the real CLI and the real sandbox (issue 29 item 6), once per Linux back end: a command runs
// under the policy a session's command would get here, its exit code and streams pass through, and afterwards scv
// names what the sandbox denied; `--check` reports every layer of every back end. No mocks: where bwrap is missing
// the bwrap runs fail and say so.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { useCliHarness } from "../support/cli_harness.ts";
import { livePids } from "../support/live_processes.ts";
import { userHome as makeUserHome } from "../support/user_home.ts";
import { waitFor } from "../support/wait.ts";

const harness = useCliHarness();
// A hang guard only: the first command of each process runs the back end's self-test, slow on a loaded machine.
vi.setConfig({ testTimeout: 180_000 });

const BWRAP = "/usr/bin/bwrap";
const SECRET = "ssh-private-key-material-51d9";
const LAYERS = ["workspace", "files", "git", "secrets", "tmp", "network", "processes", "privileges", "parent"];
const NO_SANDBOX = 125;

/** Outside /tmp (the sandbox's /tmp is its own): the user's home and a folder no sandbox may write. */
let outside: string;

beforeAll(() => {
  outside = mkdtempSync("/var/tmp/scv-sandbox-cli-");
});

afterAll(() => {
  rmSync(outside, { recursive: true, force: true });
});

/** Host pids of live processes with `marker` as one argument. */
const processesWith = (marker: string) => livePids((args) => args.includes(marker));

const userHome = () => makeUserHome(outside, SECRET);

describe.skipIf(process.platform !== "linux").each(["bwrap", "unshare"] as const)("scv sandbox on %s", (backend) => {
  const sandbox = (args: string[], options: { env?: Record<string, string>; stdin?: string; cwd?: string } = {}) =>
    harness.start(["sandbox", ...args], {
      env: { SCV_SANDBOX_BACKEND: backend, NO_COLOR: "1", ...options.env },
      ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    }).done;

  it("is installed here", () => {
    if (backend === "bwrap" && !existsSync(BWRAP)) {
      throw new Error(`${BWRAP} is missing: install Debian's bubblewrap package (.ci/run does) to test this back end`);
    }
  });

  it("lets a write in the workspace land, passes stdin and stdout through and says what it used", async () => {
    const { home } = userHome();
    const run = await sandbox(["--", "sh", "-c", "touch ./made-inside && cat"], {
      env: { HOME: home },
      stdin: "piped\n",
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("piped\n");
    expect(existsSync(path.join(harness.sandbox.workspace, "made-inside"))).toBe(true);
    expect(run.stderr).toContain(`workspace-write sandbox (${backend}, no network); exit 0`);
  });

  it("stops a write outside with the command's exit code and names the denial on stderr", async () => {
    const { home, target } = userHome();
    const escaped = path.join(target, "escaped");
    const run = await sandbox(["--", "touch", escaped], { env: { HOME: home } });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/read-only file system/i);
    expect(run.stderr).toContain(`the sandbox probably denied a write to ${escaped}`);
    expect(existsSync(escaped)).toBe(false);
  });

  it("keeps a nested repository's .git read-only, its other files writable", async () => {
    const { home } = userHome();
    const nested = path.join(harness.sandbox.workspace, "vendor", "lib");
    mkdirSync(path.join(nested, ".git", "hooks"), { recursive: true });
    const hook = path.join(nested, ".git", "hooks", "post-checkout");
    const run = await sandbox(["--", "sh", "-c", `echo changed > vendor/lib/file; echo 'curl evil' > ${hook}`], {
      env: { HOME: home },
    });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/read-only file system/i);
    expect(readFileSync(path.join(nested, "file"), "utf8")).toBe("changed\n");
    expect(existsSync(hook)).toBe(false);
  });

  it("keeps Mercurial's and Jujutsu's folders read-only too, at the top and nested", async () => {
    const { home } = userHome();
    const hgrc = path.join(harness.sandbox.workspace, ".hg", "hgrc");
    mkdirSync(path.dirname(hgrc));
    writeFileSync(hgrc, "[ui]\n");
    const jjConfig = path.join(harness.sandbox.workspace, "vendor", "tool", ".jj", "repo", "config.toml");
    mkdirSync(path.dirname(jjConfig), { recursive: true });
    const run = await sandbox([
      "--",
      "sh",
      "-c",
      `echo '[hooks]' >> ${hgrc}; echo 'pager = "evil"' > ${jjConfig}; echo ok > vendor/tool/file`,
    ], { env: { HOME: home } });
    expect(run.stderr).toMatch(/read-only file system/i);
    expect(readFileSync(hgrc, "utf8")).toBe("[ui]\n");
    expect(existsSync(jjConfig)).toBe(false);
    expect(readFileSync(path.join(harness.sandbox.workspace, "vendor", "tool", "file"), "utf8")).toBe("ok\n");
  });

  it("hides the user's secrets and the workspace's .env", async () => {
    const { home } = userHome();
    const dotenv = path.join(harness.sandbox.workspace, ".env");
    writeFileSync(dotenv, "API_TOKEN=workspace-dotenv-secret\n");
    const key = path.join(home, ".ssh", "id_ed25519");
    const ssh = await sandbox(["--", "cat", key], { env: { HOME: home } });
    expect(ssh.code).not.toBe(0);
    expect(ssh.stdout).not.toContain(SECRET);
    expect(ssh.stderr).toContain(`a read of ${path.join(home, ".ssh")}, which the sandbox hides`);
    const env = await sandbox(["--", "cat", dotenv], { env: { HOME: home } });
    expect(env.code).not.toBe(0);
    expect(env.stdout).not.toContain("workspace-dotenv-secret");
    expect(env.stderr).toContain(`a read of ${dotenv}, which the sandbox hides`);
  });

  it("hides credentials.json but shows the project's own credentials.ts to its build", async () => {
    const src = path.join(harness.sandbox.workspace, "src");
    mkdirSync(src);
    writeFileSync(path.join(src, "credentials.ts"), "export const source = 'code about credentials';\n");
    writeFileSync(path.join(src, "credentials.json"), '{"token":"json-credential-secret"}\n');
    const run = await sandbox(["--", "sh", "-c", "cat src/credentials.ts; cat src/credentials.json"]);
    expect(run.stdout).toContain("code about credentials");
    expect(run.stdout).not.toContain("json-credential-secret");
    expect(run.code).not.toBe(0);
  });

  it("runs npm test of a small package cleanly, with a home npm cannot write to", async () => {
    const { home } = userHome();
    const workspace = harness.sandbox.workspace;
    writeFileSync(
      path.join(workspace, "package.json"),
      JSON.stringify({ name: "tiny", version: "1.0.0", private: true, scripts: { test: "node --test test/" } }),
    );
    mkdirSync(path.join(workspace, "test"));
    for (const name of ["sum", "sort"]) {
      writeFileSync(
        path.join(workspace, "test", `${name}.test.js`),
        `const test = require("node:test");\nconst assert = require("node:assert");\n` +
          `test("${name}", () => { const xs = [3, 1, 2]; assert.deepEqual([...xs].sort(), [1, 2, 3]); });\n`,
      );
    }
    const passed = await sandbox(["--", "npm", "test"], { env: { HOME: home } });
    expect(passed.code).toBe(0);
    expect(passed.stdout).toMatch(/pass 2/);
    expect(passed.stderr).not.toMatch(/npm (warn|error)/i);
    // npm's own failure would otherwise end with a complaint about its read-only log folder.
    const missing = await sandbox(["--", "npm", "run", "no-such-script"], { env: { HOME: home } });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('Missing script: "no-such-script"');
    expect(missing.stderr).not.toContain("error writing to the directory");
  });

  it("writes nothing under --mode read-only", async () => {
    const { home } = userHome();
    const run = await sandbox(["--mode", "read-only", "--", "touch", "./not-here"], { env: { HOME: home } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`read-only sandbox (${backend}`);
    expect(existsSync(path.join(harness.sandbox.workspace, "not-here"))).toBe(false);
  });

  it("reads the configuration as a session does: the project file tightens, writable_roots widen", async () => {
    const { home, target } = userHome();
    await harness.sandbox.writeUserConfig(`[sandbox_workspace_write]\nwritable_roots = [${JSON.stringify(target)}]\n`);
    const widened = await sandbox(["--", "touch", path.join(target, "allowed")], { env: { HOME: home } });
    expect(widened.code).toBe(0);
    expect(existsSync(path.join(target, "allowed"))).toBe(true);

    const projectFile = await harness.sandbox.writeProjectConfig('sandbox_mode = "read-only"\n');
    const tightened = await sandbox(["--", "touch", "./not-here"], { env: { HOME: home } });
    expect(tightened.code).toBe(1);
    expect(existsSync(path.join(harness.sandbox.workspace, "not-here"))).toBe(false);
    const check = await sandbox(["--check"], { env: { HOME: home } });
    expect(check.stdout).toContain(`sandbox_mode: read-only (project file ${projectFile})`);
  });

  it("starts in the folder it was run from, inside the repository that is the workspace", async () => {
    const { home } = userHome();
    const repo = path.join(harness.sandbox.workspace, "repo");
    mkdirSync(path.join(repo, ".git"), { recursive: true });
    mkdirSync(path.join(repo, "src"));
    const run = await sandbox(["--", "sh", "-c", "touch ./here ../at-root && pwd"], {
      env: { HOME: home },
      cwd: path.join(repo, "src"),
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`${path.join(repo, "src")}\n`);
    expect(existsSync(path.join(repo, "src", "here"))).toBe(true);
    expect(existsSync(path.join(repo, "at-root"))).toBe(true);
  });

  it("exits with the command's code, and 128+N after signal N", async () => {
    const { home } = userHome();
    expect((await sandbox(["--", "sh", "-c", "exit 7"], { env: { HOME: home } })).code).toBe(7);
    expect((await sandbox(["--", "sh", "-c", "kill -TERM $$"], { env: { HOME: home } })).code).toBe(143);
  });

  it("passes Ctrl-C on to the command, which dies with it, and exits 130", async () => {
    const { home } = userHome();
    // A duration no other process uses, so that the host's /proc finds exactly this sleep.
    const marker = String(86_400 + Math.floor(Math.random() * 10_000));
    const started = harness.start(["sandbox", "--", "sh", "-c", `echo ready; sleep ${marker}; echo survived`], {
      env: { SCV_SANDBOX_BACKEND: backend, NO_COLOR: "1", HOME: home },
    });
    await waitFor(() => started.stdout().includes("ready") && processesWith(marker).length === 1, {
      what: "the sandboxed sleep to start",
    });
    started.child.kill("SIGINT");
    const run = await started.done;
    expect(run.code).toBe(130);
    expect(run.stdout).not.toContain("survived");
    await waitFor(() => processesWith(marker).length === 0, { what: "the sandboxed sleep to end" });
  });

  it("--check reports every layer holding, in text and JSON", async () => {
    const { home } = userHome();
    const text = await sandbox(["--check"], { env: { HOME: home } });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("sandbox_mode: workspace-write (default)");
    expect(text.stdout).toContain(`back end ${backend}: holds (in use)`);
    for (const layer of LAYERS) expect(text.stdout).toMatch(new RegExp(`^  ${layer} +holds: `, "m"));
    expect(text.stdout).toContain(`writable: ${harness.sandbox.workspace}, and a private /tmp`);
    expect(text.stdout).toContain(path.join(home, ".ssh"));
    expect(text.stdout).toContain("network: none");

    const json = await sandbox(["--check", "--json"], { env: { HOME: home } });
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout) as {
      holds: boolean;
      backend: string;
      backends: { name: string; holds: boolean; used: boolean; layers: { name: string; holds: boolean }[] }[];
      layout: { writable: string[]; hidden_dirs: string[]; network: boolean };
    };
    expect(report).toMatchObject({ holds: true, backend });
    expect(report.backends).toEqual([expect.objectContaining({ name: backend, holds: true, used: true })]);
    expect(report.backends[0]!.layers.map((layer) => [layer.name, layer.holds])).toEqual(
      LAYERS.map((name) => [name, true]),
    );
    expect(report.layout).toMatchObject({ writable: [harness.sandbox.workspace], network: false });
    expect(report.layout.hidden_dirs).toContain(path.join(home, ".ssh"));
  });
});

describe.skipIf(process.platform !== "linux")("scv sandbox without a back end", () => {
  const none = (args: string[]) =>
    harness.start(["sandbox", ...args], { env: { SCV_SANDBOX_BACKEND: "none", NO_COLOR: "1" } }).done;

  it("--check exits non-zero and says why", async () => {
    const run = await none(["--check"]);
    expect(run.code).toBe(NO_SANDBOX);
    expect(run.stdout).toContain("SCV_SANDBOX_BACKEND=none");
    expect(run.stdout).toContain("commands run WITHOUT a sandbox");
    expect(run.stdout).toContain("apt install bubblewrap");
  });

  it("reads the explicit file from --config-path (relative to -C) and from SCV_CONFIG, as other commands do", async () => {
    const explicit = await harness.sandbox.writeExplicitConfig('sandbox_mode = "read-only"\n');
    const relative = path.relative(harness.sandbox.root, explicit);
    const flagged = await harness.start(
      ["sandbox", "-C", harness.sandbox.root, "--config-path", relative, "--check", "--json"],
      { env: { SCV_SANDBOX_BACKEND: "none" } },
    ).done;
    expect(JSON.parse(flagged.stdout)).toMatchObject({ mode: "read-only", mode_origin: `explicit file ${explicit}` });
    const fromEnv = await harness.start(["sandbox", "--check", "--json"], {
      env: { SCV_SANDBOX_BACKEND: "none", SCV_CONFIG: explicit },
    }).done;
    expect(JSON.parse(fromEnv.stdout)).toMatchObject({ mode: "read-only", mode_origin: `explicit file ${explicit}` });
    const missing = await harness.start(["sandbox", "--config-path", "nowhere.toml", "--check"], {
      env: { SCV_SANDBOX_BACKEND: "none" },
    }).done;
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("nowhere.toml");
  });

  it("does not run the command, and says what is missing and what to do", async () => {
    const run = await none(["--", "touch", "./not-run"]);
    expect(run.code).toBe(NO_SANDBOX);
    expect(run.stderr).toContain("no sandbox holds here for sandbox_mode workspace-write");
    expect(run.stderr).toContain("The command was not run");
    expect(run.stderr).toContain("--mode danger-full-access");
    expect(existsSync(path.join(harness.sandbox.workspace, "not-run"))).toBe(false);
  });

  it("runs it unconfined only when asked for danger-full-access", async () => {
    const run = await none(["--mode", "danger-full-access", "--", "sh", "-c", "touch ./ran; exit 4"]);
    expect(run.code).toBe(4);
    expect(existsSync(path.join(harness.sandbox.workspace, "ran"))).toBe(true);
    expect(run.stderr).toContain("commands run without a sandbox (sandbox_mode danger-full-access)");
  });
});

describe("scv sandbox usage", () => {
  it("refuses unknown flags, a missing command and --check with a command, with exit 2", async () => {
    const unknown = await harness.start(["sandbox", "--bogus", "--", "true"]).done;
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown option '--bogus'");
    const bare = await harness.start(["sandbox"]).done;
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain("give the command to run after --");
    const both = await harness.start(["sandbox", "--check", "--", "true"]).done;
    expect(both.code).toBe(2);
    const mode = await harness.start(["sandbox", "--mode", "loose", "--", "true"]).done;
    expect(mode.code).toBe(2);
    expect(mode.stderr).toContain("loose");
  });

  it("is in the help", async () => {
    const top = await harness.start(["--help"]).done;
    expect(top.stdout).toMatch(/^\s+sandbox \[options\] \[command\.\.\.\]/m);
    const own = await harness.start(["sandbox", "--help"]).done;
    expect(own.code).toBe(0);
    expect(own.stdout).toContain("--check");
    expect(own.stdout).toContain("125 when no sandbox holds here");
  });
});
