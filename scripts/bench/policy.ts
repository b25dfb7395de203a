// Policy benchmark (issue 28): the decision for one tool call with 200 rules in force (goal: p99 under 1 ms).
// Prints one JSON object.
//
//   node scripts/bench/policy.ts [--rules 200] [--calls 20000]
//
// Figures (microseconds per decision, over `--calls` decisions of a mix of calls):
// - decide_us: lib/policy decide() alone, with the call's access already declared (what the engine's gate runs).
// - declare_bash_us: commandAccess() for a compound command: splitting it and judging each part read-only or not
//   (what `bash`'s prepare adds once per call).
// - compile_ms: RuleSet.of() for the rules (once per session start).
import { performance } from "node:perf_hooks";
import { type Access, commandAccess, decide, type RuleEntry, RuleSet, SessionGrants } from "../../lib/policy/index.ts";
import { percentile, printJson, round } from "./stats.ts";

function argument(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? Number(process.argv[index + 1]) : fallback;
}

const RULES = argument("rules", 200);
const CALLS = argument("calls", 20_000);
const WORKSPACE = process.cwd();

/** A realistic spread: commands, paths, domains and MCP servers, in all three lists. */
function ruleEntries(count: number): RuleEntry[] {
  const entries: RuleEntry[] = [];
  const lists = ["allow", "allow", "ask", "deny"] as const;
  for (let index = 0; entries.length < count; index += 1) {
    const list = lists[index % lists.length]!;
    const origin = "user file /home/bench/.scv/config.toml";
    const rule = [
      `bash(tool${index} run:*)`,
      `bash(make target${index})`,
      `edit(src/module${index}/**)`,
      `read(**/secret${index}.txt)`,
      `web_fetch(domain:*.site${index}.example)`,
      `mcp__server${index}`,
    ][index % 6]!;
    entries.push({ list, rule, origin });
  }
  return entries;
}

function calls(): Access[] {
  const bash = (command: string): Access => ({
    tool: "bash",
    risk: "process",
    effect: "run",
    command: commandAccess(command, WORKSPACE),
  });
  return [
    bash("npm test && git diff --stat | head -20"),
    bash("tool7 run --fast; make target13"),
    bash("echo $(whoami) > out.txt"),
    { tool: "edit", risk: "filesystem", effect: "edit", writes: ["src/module8/deep/file.ts"] },
    { tool: "read", risk: "read_only", effect: "read", reads: ["a/b/secret9.txt"] },
    { tool: "web_fetch", risk: "network", effect: "fetch", domain: "docs.site4.example" },
    { tool: "mcp__server11__do", risk: "process", effect: "run", server: "server11" },
  ];
}

const entries = ruleEntries(RULES);
const compileStart = performance.now();
const rules = RuleSet.of(entries);
const compileMs = performance.now() - compileStart;
const grants = new SessionGrants();
grants.rememberRule("bash(npm test:*)");
const state = { mode: "on-risk" as const, rules, grants };
const mix = calls();

// Warm up, then time each decision.
for (let index = 0; index < 2000; index += 1) decide(mix[index % mix.length]!, state);
const decideTimes: number[] = [];
let verdicts = 0;
for (let index = 0; index < CALLS; index += 1) {
  const start = performance.now();
  const decision = decide(mix[index % mix.length]!, state);
  decideTimes.push((performance.now() - start) * 1000);
  if (decision.verdict === "allow") verdicts += 1;
}
const declareTimes: number[] = [];
for (let index = 0; index < Math.min(CALLS, 5000); index += 1) {
  const start = performance.now();
  commandAccess("npm test && git diff --stat | head -20", WORKSPACE);
  declareTimes.push((performance.now() - start) * 1000);
}
const summary = (times: number[]) => {
  const sorted = [...times].sort((a, b) => a - b);
  return { p50: round(percentile(sorted, 50)), p99: round(percentile(sorted, 99)), max: round(sorted.at(-1)!) };
};
const decideUs = summary(decideTimes);
printJson({
  rules: RULES,
  calls: CALLS,
  decide_us: decideUs,
  declare_bash_us: summary(declareTimes),
  compile_ms: round(compileMs),
  allowed_share: round(verdicts / CALLS),
  goal_p99_under_1_ms: decideUs.p99 < 1000,
});
