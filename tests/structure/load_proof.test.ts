// The suite stays load-proof (issue 27.7): no test retries, and none asserts an upper bound on elapsed time. A
// deadline only catches a hang (tests/support/wait.ts); time is a test's subject only on a fake clock in one process;
// a latency that matters is a benchmark under scripts/bench/ (latency.ts holds the ones the tests used to bound).
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { findViolations, type Violation } from "../support/load_proof.ts";

const ROOT = join(import.meta.dirname, "..", "..");

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : sources(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

const show = (violation: Violation) =>
  `${violation.file}:${violation.line}: ${violation.rule}: ${violation.text} — ` +
  (violation.rule === "deadline below HANG_MS"
    ? "leave a test's deadline to vitest's testTimeout, or use HANG_MS (tests/support/wait.ts)"
    : "wait for an event or condition (tests/support/wait.ts) and assert order and outcome; measure a latency in " +
      "scripts/bench/");

describe("a load-proof suite", () => {
  it("no test retries, bounds elapsed time from above or sets a deadline a busy machine can reach", () => {
    const paths = [...sources(join(ROOT, "tests")), join(ROOT, "vitest.config.ts")];
    const violations = findViolations(new Map(paths.map((path) => [relative(ROOT, path), readFileSync(path, "utf8")])));
    expect(violations.map(show)).toEqual([]);
  });

  it("no npm script passes --retry to vitest", () => {
    const { scripts } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    };
    expect(Object.entries(scripts).filter(([, command]) => /--retry\b/.test(command))).toEqual([]);
  });

  it("finds every spelling it looks for, and nothing in strings, comments or lower bounds", () => {
    const rules = (text: string) => findViolations(new Map([["sample.ts", text]])).map((violation) => violation.rule);
    // Each of these was in the suite once.
    expect(rules("it('x', { retry: 2 }, async () => {});")).toEqual(["retry"]);
    expect(rules("const TIMED = { retry: 2 };")).toEqual(["retry"]);
    expect(rules("const t0 = Date.now(); await go(); expect(Date.now() - t0).toBeLessThan(500);")).toEqual([
      "elapsed upper bound",
    ]);
    expect(rules("const s = performance.now(); expect(performance.now() - s).toBeLessThan(100);")).toEqual([
      "elapsed upper bound",
    ]);
    expect(rules("const b = Date.now(); const elapsed = Date.now() - b; expect(elapsed).toBeLessThan(3500);"))
      .toEqual(["elapsed upper bound"]);
    expect(rules("const at = Date.now(); const firstAt = Date.now() - at; expect(firstAt).toBeLessThan(10_800);"))
      .toEqual(["elapsed upper bound"]);
    expect(rules("expect(Date.now() - cancelledAt).toBeLessThanOrEqual(2000);")).toEqual(["elapsed upper bound"]);
    // Other spellings of the same bound.
    expect(rules("const t = Date.now(); expect(Date.now() - t).not.toBeGreaterThan(9);")).toEqual([
      "elapsed upper bound",
    ]);
    expect(rules("const t = Date.now(); expect(Date.now() - t < 9).toBe(true);")).toEqual(["elapsed upper bound"]);
    expect(rules("const exit = await host.exit; expect(exit.ms).toBeLessThan(1000);")).toEqual([
      "elapsed upper bound",
    ]);
    expect(rules("const took = Number(process.hrtime.bigint() - start) / 1e6; expect(took).toBeLessThan(5);"))
      .toEqual(["elapsed upper bound"]);
    // Deadlines a busy machine can reach: a test's, a hook's, a timeout option.
    expect(rules("it('x', async () => {}, 60_000);")).toEqual(["deadline below HANG_MS"]);
    expect(rules("it.skipIf(deno)('x', async () => {}, 240_000);")).toEqual(["deadline below HANG_MS"]);
    expect(rules("beforeAll(async () => {}, 20000);")).toEqual(["deadline below HANG_MS"]);
    expect(rules("const MANY = { timeout: 120_000 };")).toEqual(["deadline below HANG_MS"]);
    expect(rules("spawnSync('x', [], { timeout: 60_000 });")).toEqual(["deadline below HANG_MS"]);
    expect(rules("const deadline = Date.now() + 8000; while (Date.now() < deadline) await tick();")).toEqual([
      "deadline below HANG_MS",
    ]);
    expect(rules(
      "it('x', async () => {}, HANG_MS); it('y', () => {}, 900_000); spawnSync('x', [], { timeout: HANG_MS });\n" +
        "const deadline = Date.now() + HANG_MS; const date = new Date(Date.now() + 30_000);",
    )).toEqual([]);
    // Allowed: lower bounds, sizes, strings and comments, and a name that reads the clock in another scope only.
    expect(rules(
      "function a() { const started = Date.now(); return started }\n" +
        "function b(events) { const started = events[0]; const between = events.slice(started); " +
        "expect(between.length).toBeLessThanOrEqual(4) }",
    )).toEqual([]);
    expect(rules("const t0 = Date.now(); await wait(); expect(Date.now() - t0).toBeGreaterThanOrEqual(90);"))
      .toEqual([]);
    expect(rules("expect(rows.length).toBeLessThan(5); expect(after - before).toBeLessThan(32 * 1024 * 1024);"))
      .toEqual([]);
    expect(rules('run("const s = Date.now(); expect(Date.now() - s).toBeLessThan(1); retry: 2");')).toEqual([]);
    expect(rules("// expect(Date.now() - t).toBeLessThan(1); { retry: 2 }\nconst x = 1;")).toEqual([]);
  });
});
