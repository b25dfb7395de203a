// Runs every benchmark in turn (`npm run bench`, or `npm run bench -- codec host` for some) and
// prints one JSON object with each benchmark's figures. Benchmarks run one at a time so that
// they do not disturb each other's timings.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { printJson } from "./stats.ts";

const ALL = [
  "codec",
  "startup",
  "sandbox",
  "host",
  "terminate",
  "idle_memory",
  "server",
  "chat",
  "acp",
  "sessions",
  "policy",
  "snapshots",
  "hooks",
  "latency",
  "command_sandbox",
  "sandbox_npm_test",
];
const chosen = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ALL;
const unknown = chosen.filter((name) => !ALL.includes(name));
if (unknown.length > 0) {
  process.stderr.write(`Unknown benchmark ${unknown.join(", ")}; choose from ${ALL.join(", ")}\n`);
  process.exit(2);
}

const results: Record<string, unknown> = {};
let failed = false;
for (const name of chosen) {
  process.stderr.write(`bench ${name}…\n`);
  const script = fileURLToPath(new URL(`./${name}.ts`, import.meta.url));
  const run = spawnSync(process.execPath, [script], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    maxBuffer: 64 << 20,
  });
  try {
    if (run.error) throw run.error;
    if (run.status !== 0) throw new Error(`exited with ${run.status ?? run.signal}`);
    results[name] = JSON.parse(run.stdout);
  } catch (error) {
    failed = true;
    results[name] = { error: `benchmark ${name} failed: ${(error as Error).message}` };
  }
}
printJson(results);
process.exitCode = failed ? 1 : 0;
