// The suite under load (issues 13.7, 27.7): keeps every core busy with a CPU-bound process each (pinned to its
// core where taskset exists), runs the suite N times in a row and prints one JSON object with each run's pass/fail
// counts, failed tests, duration and the load average before it. Exit 0 only when every run passed.
//
//   node scripts/stress_suite.ts                       five runs of the whole suite, every core kept busy
//   node scripts/stress_suite.ts --runs 3 tests/e2e    three runs of some folders
//   node scripts/stress_suite.ts --busy 1              one core kept busy
//   node scripts/stress_suite.ts --busy 0              no load of its own (for a baseline)
//   SCV_TEST_RUNTIME=deno node scripts/stress_suite.ts the CLI under Deno (the environment is passed on)
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";

const ROOT = join(import.meta.dirname, "..");
const VITEST = join(ROOT, "node_modules", ".bin", "vitest");

type Report = {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  testResults: {
    name: string;
    assertionResults: { status: string; fullName: string; failureMessages?: string[] }[];
    message?: string;
  }[];
};

type RunResult = {
  run: number;
  ok: boolean;
  exitCode: number | null;
  seconds: number;
  passed: number;
  failed: number;
  skipped: number;
  failures: string[];
  loadBefore: number;
  /** The 1-minute load average, sampled every 10 s during the run: mean and highest. */
  loadDuring: { mean: number; max: number };
};

function usage(message: string): never {
  process.stderr.write(`${message}\nUsage: node scripts/stress_suite.ts [--runs N] [--busy CORES] [vitest filters…]\n`);
  process.exit(2);
}

function count(value: string, name: string, min: number): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < min)
    usage(`--${name} must be an integer of at least ${min}, not ${JSON.stringify(value)}`);
  return parsed;
}

const { values, positionals } = (() => {
  try {
    return parseArgs({
      options: {
        runs: { type: "string", default: "5" },
        busy: { type: "string", default: String(availableParallelism()) },
      },
      allowPositionals: true,
    });
  } catch (error) {
    return usage((error as Error).message);
  }
})();
const runs = count(values.runs, "runs", 1);
const busyCores = count(values.busy, "busy", 0);

/** A CPU-bound process per busy core, each pinned to its core with taskset when there is one. */
function startBusy(cores: number): ChildProcess[] {
  const hasTaskset = spawnSync("taskset", ["--version"], { stdio: "ignore" }).status === 0;
  return Array.from({ length: cores }, (_, core) => {
    const loop = [process.execPath, "-e", "for (;;) {}"];
    const [command, ...args] = hasTaskset ? ["taskset", "-c", String(core % availableParallelism()), ...loop] : loop;
    return spawn(command!, args, { stdio: "ignore" });
  });
}

function runSuite(run: number, outputFile: string): Promise<RunResult> {
  const started = performance.now();
  const loadBefore = loadavg()[0]!;
  const samples: number[] = [];
  const sampler = setInterval(() => samples.push(loadavg()[0]!), 10_000);
  return new Promise((resolve) => {
    const child = spawn(VITEST, [
      "run",
      ...positionals,
      "--reporter=dot",
      "--reporter=json",
      `--outputFile=${outputFile}`,
    ], {
      cwd: ROOT,
      stdio: ["ignore", "ignore", "inherit"],
    });
    child.once("exit", (exitCode) => {
      clearInterval(sampler);
      const seconds = Math.round((performance.now() - started) / 100) / 10;
      let report: Report | undefined;
      try {
        report = JSON.parse(readFileSync(outputFile, "utf8")) as Report;
      } catch {
        report = undefined;
      }
      const failures = report?.testResults.flatMap((file) => [
        ...file.assertionResults
          .filter((test) => test.status === "failed")
          .map((test) =>
            `${file.name.replace(`${ROOT}/`, "")} > ${test.fullName}: ${
              (test.failureMessages?.[0] ?? "").split("\n")[0]
            }`
          ),
        // A file that fails to load or in a hook has no failed test, only a message.
        ...(file.assertionResults.length === 0 && file.message
          ? [`${file.name.replace(`${ROOT}/`, "")}: ${file.message.split("\n")[0]}`]
          : []),
      ]) ?? [`run ${run}: no JSON report (vitest exited with ${exitCode})`];
      if (exitCode !== 0 && failures.length === 0)
        failures.push(`vitest exited with ${exitCode} without a failed test (see its output above)`);
      resolve({
        run,
        ok: exitCode === 0 && report !== undefined && report.numFailedTests === 0,
        exitCode,
        seconds,
        passed: report?.numPassedTests ?? 0,
        failed: report?.numFailedTests ?? 0,
        skipped: (report?.numPendingTests ?? 0) + (report?.numTodoTests ?? 0),
        failures,
        loadBefore: Math.round(loadBefore * 100) / 100,
        loadDuring: {
          mean: Math.round((samples.reduce((a, b) => a + b, loadBefore) / (samples.length + 1)) * 100) / 100,
          max: Math.round(Math.max(loadBefore, ...samples) * 100) / 100,
        },
      });
    });
  });
}

const busy = startBusy(busyCores);
const stopBusy = () => {
  for (const child of busy) child.kill("SIGKILL");
};
process.once("SIGINT", () => {
  stopBusy();
  process.exit(130);
});

const dir = mkdtempSync(join(tmpdir(), "scv-stress-"));
const results: RunResult[] = [];
try {
  for (let run = 1; run <= runs; run += 1) {
    process.stderr.write(
      `stress_suite: run ${run} of ${runs}${busyCores > 0 ? `, ${busyCores} core(s) kept busy` : ""}\n`,
    );
    const result = await runSuite(run, join(dir, `run-${run}.json`));
    process.stderr.write(
      `stress_suite: run ${run} ${result.ok ? "passed" : "FAILED"} in ${result.seconds} s ` +
        `(${result.passed} passed, ${result.failed} failed; load ${result.loadDuring.mean} mean, ${result.loadDuring.max} max)\n`,
    );
    results.push(result);
  }
} finally {
  stopBusy();
  rmSync(dir, { recursive: true, force: true });
}

const seconds = results.map((result) => result.seconds);
const summary = {
  ok: results.every((result) => result.ok),
  runs,
  passedRuns: results.filter((result) => result.ok).length,
  busyCores,
  cores: availableParallelism(),
  runtime: process.env.SCV_TEST_RUNTIME || "node",
  filters: positionals,
  seconds: {
    min: Math.min(...seconds),
    max: Math.max(...seconds),
    mean: Math.round((seconds.reduce((a, b) => a + b, 0) / runs) * 10) / 10,
  },
  results,
};
process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
process.exitCode = summary.ok ? 0 : 1;
