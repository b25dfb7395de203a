// Command sandbox benchmark (issue 29): what confining one command costs. Runs `bash -c true` `--runs` times as is and
// through each Linux back end whose self-test holds here (the same launch the `bash` tool uses, layout planned per
// command as the tool does), and prints one JSON object.
//
//   node scripts/bench/command_sandbox.ts [--runs 40]
//
// Figures: per back end, p50 and p90 of spawn → exit in ms, and overhead_p50_ms over the unconfined p50 (the
// issue's goal: under 15 ms). The self-test's own duration (once per process) is reported as self_test_ms.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import path from "node:path";
import { CommandSandbox } from "../../lib/confine/index.ts";
import { percentile, printJson, round } from "./stats.ts";

const index = process.argv.indexOf("--runs");
const RUNS = index >= 0 ? Number(process.argv[index + 1]) : 40;

function timed(file: string, args: string[], cwd: string, env: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(file, args, { cwd, env: { ...process.env, ...env }, stdio: "ignore" });
    child.once("error", reject);
    child.once(
      "exit",
      (code) => code === 0 ? resolve(performance.now() - started) : reject(new Error(`${file} exited ${code}`)),
    );
  });
}

async function series(file: string, args: string[], cwd: string, env: Record<string, string>) {
  const times: number[] = [];
  for (let run = 0; run < RUNS; run++) times.push(await timed(file, args, cwd, env));
  return times.sort((a, b) => a - b);
}

const workspace = mkdtempSync("/var/tmp/scv-bench-sandbox-");
mkdirSync(path.join(workspace, ".git"));
try {
  const plain = await series("/bin/bash", ["-c", "true"], workspace, {});
  const plainP50 = percentile(plain, 50);
  const backends: Record<string, unknown> = {};
  for (const backend of ["bwrap", "unshare"]) {
    const started = performance.now();
    const sandbox = await CommandSandbox.open({
      mode: "workspace-write",
      workspace,
      writableRoots: [],
      network: false,
      hidden: [],
      env: { SCV_SANDBOX_BACKEND: backend },
    });
    const selfTestMs = performance.now() - started;
    if (!sandbox.active) {
      backends[backend] = { holds: false, missing: sandbox.missing };
      continue;
    }
    const times: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const begin = performance.now();
      const launch = sandbox.launch({ file: "/bin/bash", args: ["-c", "true"] })!;
      await timed(launch.file, launch.args, workspace, launch.env);
      times.push(performance.now() - begin);
    }
    times.sort((a, b) => a - b);
    backends[backend] = {
      holds: true,
      self_test_ms: round(selfTestMs),
      p50_ms: round(percentile(times, 50)),
      p90_ms: round(percentile(times, 90)),
      overhead_p50_ms: round(percentile(times, 50) - plainP50),
    };
  }
  printJson({
    runs: RUNS,
    unconfined: { p50_ms: round(plainP50), p90_ms: round(percentile(plain, 90)) },
    ...backends,
  });
} finally {
  rmSync(workspace, { recursive: true, force: true });
}
