// What the tools' security checks cost: `read` of a small file and `bash -lc true`, each prepared and run
// through the session's tool registry (so redaction and the environment filter are included), with the
// configuration loaded the way a session loads it (an instance home, a configured key, a key variable).
// Prints JSON: per tool the number of calls and p50 / p95 / mean microseconds per call (prepare + run).
// It uses only public entry points that existed before the checks, so it runs on older commits too.
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../lib/config/index.ts";
import { buildToolRegistry } from "../../lib/tools/index.ts";
import type { ResolvedConfig } from "../../lib/config/types.ts";
import type { ToolRegistry } from "../../lib/tools/types.ts";
import { percentile, printJson, round } from "./stats.ts";

const READ_CALLS = Number(process.env.BENCH_READ_CALLS ?? 3000);
const BASH_CALLS = Number(process.env.BENCH_BASH_CALLS ?? 150);
const WARMUP = 20;

async function main(): Promise<void> {
  const root = await realpath(await mkdtemp(join(tmpdir(), "scv-bench-tools-")));
  try {
    const home = join(root, "home");
    const workspace = join(root, "workspace");
    await mkdir(home, { mode: 0o700 });
    await mkdir(workspace);
    await writeFile(join(home, "config.toml"), '[provider]\napi_key = "sk-bench-configured-key-0123456789"\n', {
      mode: 0o600,
    });
    await writeFile(join(workspace, "notes.txt"), "hello from the benchmark\n".repeat(40));
    const env = { ...process.env, OPENAI_API_KEY: "sk-bench-env-key-abcdefghijklmnop", HOME: root };
    const config = await loadConfig({ workspace, home, homeExplicit: true, env, overrides: {} });
    const tools = buildToolRegistry(config, { noTools: false });
    const read = await time(tools, config, workspace, "read", { path: "notes.txt" }, READ_CALLS);
    const bash = await time(tools, config, workspace, "bash", { command: "true" }, BASH_CALLS);
    printJson({
      conditions: `node ${process.version}, ${process.platform}; in-process registry calls, no server`,
      read,
      bash,
      checks: await timeChecks(config, workspace),
    });
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/**
 * The security checks alone, where this commit has them (undefined on older commits): the redactor over a
 * 64 KiB output, the tool-process environment, and read's descriptor probe.
 */
async function timeChecks(config: ResolvedConfig, workspace: string): Promise<Record<string, number> | undefined> {
  let redact: typeof import("../../lib/util/redact.ts");
  let processGroup: typeof import("../../lib/tools/process_group.ts");
  let guard: typeof import("../../lib/tools/file_guard.ts");
  try {
    redact = await import("../../lib/util/redact.ts");
    processGroup = await import("../../lib/tools/process_group.ts");
    guard = await import("../../lib/tools/file_guard.ts");
  } catch {
    return undefined;
  }
  const redactor = redact.createRedactor(config.secrets.values);
  const output = JSON.stringify({ output: "build ok: 1234 files, nothing to report\n".repeat(1600).slice(0, 65536) });
  const each = (runs: number, work: () => void) => {
    for (let index = 0; index < 50; index += 1) work();
    const started = performance.now();
    for (let index = 0; index < runs; index += 1) work();
    return round(((performance.now() - started) * 1000) / runs, 2);
  };
  return {
    redact_64k_output_us: each(500, () => void redactor(output)),
    tool_environment_us: each(2000, () => void processGroup.toolEnvironment(config)),
    probe_for_read_us: each(2000, () => void guard.probeForRead(config, workspace, "notes.txt", "read")),
  };
}

async function time(
  tools: ToolRegistry,
  config: ResolvedConfig,
  workspace: string,
  name: string,
  args: unknown,
  calls: number,
): Promise<Record<string, number>> {
  const tool = tools.get(name);
  if (tool === undefined) throw new Error(`benchmark: tool ${name} is not registered`);
  const samples: number[] = [];
  for (let index = 0; index < calls + WARMUP; index += 1) {
    const started = performance.now();
    const prepared = tool.prepare(args, { workspace, config });
    if ("error" in prepared) throw new Error(`benchmark: ${name} refused: ${prepared.error}`);
    const outcome = await prepared.run({ workspace, config, signal: new AbortController().signal, progress: () => {} });
    if (!outcome.success) throw new Error(`benchmark: ${name} failed: ${outcome.output}`);
    if (index >= WARMUP) samples.push((performance.now() - started) * 1000);
  }
  samples.sort((a, b) => a - b);
  const mean = samples.reduce((sum, value) => sum + value, 0) / samples.length;
  return {
    calls,
    p50_us: round(percentile(samples, 50), 1),
    p95_us: round(percentile(samples, 95), 1),
    mean_us: round(mean, 1),
  };
}

await main();
