// Hooks benchmark (issue 30): what a PreToolUse hook costs per tool call, with `true` as the hook (the floor of
// any hook: a shell started in its own process group, the JSON input written, the exit read). Prints one JSON object.
//
//   node scripts/bench/hooks.ts [--calls 200]
//
// Figures (milliseconds per call, over `--calls` sequential calls):
// - none_ms: the runner with no hook for the tool (what every call pays when hooks are configured for others).
// - true_ms: one `true` hook (`/bin/sh -c true`).
// - reads_input_ms: one hook that reads its input (`cat >/dev/null`), as real guard scripts do.
// - two_hooks_ms: two `true` hooks matching the same call (they run side by side).
// - spawn_floor_ms: `/bin/sh -c true` spawned and awaited with nothing else (the floor the hook figures stand on).
import { spawn } from "node:child_process";
import { performance } from "node:perf_hooks";
import type { HookConfig } from "../../lib/config/index.ts";
import { HookRunner } from "../../lib/hooks/index.ts";
import { percentile, printJson, round } from "./stats.ts";

function argument(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? Number(process.argv[index + 1]) : fallback;
}

const CALLS = argument("calls", 200);

function hook(command: string, matcher = "bash"): HookConfig {
  return { event: "PreToolUse", matcher, command, timeout_sec: 30, origin: "user", file: "bench" };
}

function runner(hooks: HookConfig[]): HookRunner {
  return new HookRunner({
    hooks,
    trusted: true,
    cwd: process.cwd(),
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    common: () => ({ session_id: "bench", permission_mode: "on-risk" }),
  });
}

const FIELDS = { tool_name: "bash", tool_input: { command: "npm test" }, tool_use_id: "call-1" };

async function timed(subject: HookRunner | "floor"): Promise<{ p50: number; p99: number }> {
  const once = () =>
    subject === "floor"
      ? new Promise<void>((resolve) =>
        spawn("/bin/sh", ["-c", "true"], { stdio: "ignore" }).once("exit", () => resolve())
      )
      : subject.run("PreToolUse", FIELDS, { subject: "bash" }).then(() => undefined);
  for (let index = 0; index < 10; index += 1) await once();
  const times: number[] = [];
  for (let index = 0; index < CALLS; index += 1) {
    const start = performance.now();
    await once();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return { p50: round(percentile(times, 50)), p99: round(percentile(times, 99)) };
}

const floor = await timed("floor");
const none = await timed(runner([hook("true", "write")]));
const single = await timed(runner([hook("true")]));
const reads = await timed(runner([hook("cat >/dev/null")]));
const two = await timed(runner([hook("true"), hook("true")]));

printJson({
  benchmark: "hooks",
  calls: CALLS,
  none_ms_p50: none.p50,
  none_ms_p99: none.p99,
  true_ms_p50: single.p50,
  true_ms_p99: single.p99,
  reads_input_ms_p50: reads.p50,
  reads_input_ms_p99: reads.p99,
  two_hooks_ms_p50: two.p50,
  two_hooks_ms_p99: two.p99,
  spawn_floor_ms_p50: floor.p50,
  spawn_floor_ms_p99: floor.p99,
});
