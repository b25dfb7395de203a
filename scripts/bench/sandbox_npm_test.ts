// `npm test` inside the command sandbox vs outside (issue 29: within 10%). The benchmark makes a small package in a
// temporary folder (a package.json whose `test` script runs `node --test` over a few test files that do a little real
// work: sorting, hashing, JSON, files in the package; no registry is asked anything) and runs `npm test` there
// `--runs` times as is and through each Linux back end whose self-test holds (the launch the `bash` tool uses, the
// layout planned per command), interleaved run by run. Prints one JSON object: per back end the p50 in ms and the
// ratio of the medians, inside / outside. `tool` is the same through the `bash` tool as a session runs it, with
// `--gap` ms between calls (the model reading the output, 300 by default) in which the next command's sandbox is set
// up ahead (lib/tools/standby_shell.ts): per back end the p50 and the ratio to the unconfined tool's.
//
//   node scripts/bench/sandbox_npm_test.ts [--runs 10] [--gap 300]
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import path from "node:path";
import { CommandSandbox } from "../../lib/confine/index.ts";
import { bashTools, timeBashTool } from "./bash_tool_run.ts";
import { percentile, printJson, round } from "./stats.ts";

function argument(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? Number(process.argv[index + 1]) : fallback;
}
const RUNS = argument("runs", 10);
const GAP_MS = argument("gap", 300);
const BACKENDS = ["bwrap", "unshare"] as const;

const TESTS: Record<string, string> = {
  "sort.test.js": `const test = require("node:test");
const assert = require("node:assert");
test("sorts a hundred thousand numbers", () => {
  let seed = 7;
  const xs = Array.from({ length: 100000 }, () => (seed = (seed * 48271) % 2147483647));
  const sorted = [...xs].sort((a, b) => a - b);
  for (let i = 1; i < sorted.length; i++) assert.ok(sorted[i - 1] <= sorted[i]);
});
`,
  "hash.test.js": `const test = require("node:test");
const assert = require("node:assert");
const { createHash } = require("node:crypto");
test("hashes eight megabytes", () => {
  const hash = createHash("sha256");
  for (let i = 0; i < 128; i++) hash.update(Buffer.alloc(65536, i));
  assert.equal(hash.digest("hex").length, 64);
});
`,
  "json.test.js": `const test = require("node:test");
const assert = require("node:assert");
test("round-trips JSON", () => {
  const value = Array.from({ length: 20000 }, (_, i) => ({ id: i, name: "item " + i, tags: ["a", "b", String(i)] }));
  assert.deepEqual(JSON.parse(JSON.stringify(value)), value);
});
`,
  "files.test.js": `const test = require("node:test");
const assert = require("node:assert");
const fs = require("node:fs");
const path = require("node:path");
test("writes and reads files in the package", () => {
  const dir = fs.mkdtempSync(path.join(__dirname, "..", "out-"));
  for (let i = 0; i < 200; i++) fs.writeFileSync(path.join(dir, i + ".txt"), "line\\n".repeat(100));
  let total = 0;
  for (const name of fs.readdirSync(dir)) total += fs.readFileSync(path.join(dir, name), "utf8").length;
  fs.rmSync(dir, { recursive: true });
  assert.equal(total, 200 * 500);
});
`,
};

function makePackage(): string {
  const folder = mkdtempSync("/var/tmp/scv-bench-npm-");
  writeFileSync(
    path.join(folder, "package.json"),
    `${
      JSON.stringify({ name: "bench-tiny", version: "1.0.0", private: true, scripts: { test: "node --test test/" } })
    }\n`,
  );
  mkdirSync(path.join(folder, "test"));
  for (const [name, text] of Object.entries(TESTS)) writeFileSync(path.join(folder, "test", name), text);
  return folder;
}

type Run = { ms: number; code: number | null; stderr: string };

function timed(file: string, args: readonly string[], cwd: string, env: Record<string, string>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(file, args, { cwd, env: { ...process.env, ...env }, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.once("error", reject);
    child.once("close", (code) => resolve({ ms: performance.now() - started, code, stderr }));
  });
}

const p50 = (values: number[]) => percentile([...values].sort((a, b) => a - b), 50);
const folder = makePackage();
const loadAtStart = loadavg().map((value) => round(value, 2));
try {
  const sandboxes: Partial<Record<(typeof BACKENDS)[number], CommandSandbox>> = {};
  const missing: Record<string, string> = {};
  for (const backend of BACKENDS) {
    const sandbox = await CommandSandbox.open({
      mode: "workspace-write",
      workspace: folder,
      writableRoots: [],
      network: false,
      hidden: [],
      env: { SCV_SANDBOX_BACKEND: backend },
    });
    if (sandbox.active) sandboxes[backend] = sandbox;
    else missing[backend] = sandbox.missing;
  }
  const outside: number[] = [];
  const inside: Record<string, number[]> = {};
  const npm = { file: "npm", args: ["test"] };
  for (let run = 0; run < RUNS; run++) {
    const plain = await timed(npm.file, npm.args, folder, {});
    if (plain.code !== 0) throw new Error(`npm test failed outside the sandbox: ${plain.stderr}`);
    outside.push(plain.ms);
    for (const [backend, sandbox] of Object.entries(sandboxes)) {
      const begin = performance.now();
      const launch = sandbox.launch(npm)!;
      const confined = await timed(launch.file, launch.args, folder, launch.env);
      if (confined.code !== 0) throw new Error(`npm test failed inside the ${backend} sandbox: ${confined.stderr}`);
      if (/npm (warn|error)/i.test(confined.stderr)) throw new Error(`npm complained inside: ${confined.stderr}`);
      (inside[backend] ??= []).push(performance.now() - begin);
    }
  }
  const tools = bashTools(sandboxes);
  const toolTimes: Record<string, number[]> = {};
  for (let run = 0; run < RUNS; run++) {
    for (const [name, tool] of Object.entries(tools)) {
      (toolTimes[name] ??= []).push(await timeBashTool(tool, folder, "npm test"));
      await new Promise((resolve) => setTimeout(resolve, GAP_MS));
    }
  }
  const toolOutsideP50 = p50(toolTimes.unconfined!);
  const outsideP50 = p50(outside);
  printJson({
    runs: RUNS,
    load_average_at_start: loadAtStart,
    load_average_at_end: loadavg().map((value) => round(value, 2)),
    outside: { p50_ms: round(outsideP50) },
    ...Object.fromEntries(
      Object.entries(inside).map(([backend, times]) => [backend, {
        p50_ms: round(p50(times)),
        ratio_of_medians: round(p50(times) / outsideP50),
      }]),
    ),
    tool: {
      gap_ms: GAP_MS,
      ...Object.fromEntries(
        Object.entries(toolTimes).map(([name, times]) => [name, {
          p50_ms: round(p50(times)),
          ...(name === "unconfined" ? {} : { ratio_of_medians: round(p50(times) / toolOutsideP50) }),
        }]),
      ),
    },
    ...(Object.keys(missing).length === 0 ? {} : { not_holding: missing }),
  });
} finally {
  rmSync(folder, { recursive: true, force: true });
}
