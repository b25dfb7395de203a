// grep and glob over a generated tree (default 50,000 files / 500 MB under a temp dir, deleted afterwards), next to
// ripgrep (`rg -n`) and `git ls-files --others --exclude-standard` (which walk the same tree honouring the same
// .gitignore) when they are installed. Goal: grep within 3× of rg, glob within 3× of git ls-files.
// BENCH_TOOLS_FILES and BENCH_TOOLS_MB make a smaller tree for a quick check. Prints JSON.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultConfig } from "../../lib/config/defaults.ts";
import { createGlobTool } from "../../lib/tools/search/glob.ts";
import { createGrepTool } from "../../lib/tools/search/grep.ts";
import type { Tool } from "../../lib/tools/types.ts";
import { median, printJson, round } from "./stats.ts";

const FILES = Number(process.env.BENCH_TOOLS_FILES ?? 50_000);
const MEGABYTES = Number(process.env.BENCH_TOOLS_MB ?? 500);
const RUNS = 3;
const PATTERN = "needle_4[0-9]+x";

function generate(root: string): { bytes: number } {
  const perFile = Math.floor((MEGABYTES * 1024 * 1024) / FILES);
  const words = ["alpha", "beta", "gamma", "delta", "const", "return", "function", "value", "import", "export", "let"];
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  // One block of text reused with a varying header keeps generation fast while files still differ.
  const lines: string[] = [];
  let size = 0;
  while (size < perFile) {
    const line = Array.from({ length: 8 }, () => words[Math.floor(random() * words.length)]).join(" ");
    lines.push(line);
    size += line.length + 1;
  }
  const body = lines.join("\n") + "\n";
  writeFileSync(join(root, ".gitignore"), "ignored/\n*.tmp\n");
  let bytes = 0;
  const extensions = [".ts", ".js", ".md", ".txt", ".tmp"];
  for (let index = 0; index < FILES; index += 1) {
    const dir = join(root, index % 50 === 0 ? "ignored" : `d${index % 40}`, `s${index % 25}`);
    mkdirSync(dir, { recursive: true });
    const marker = index % 97 === 0 ? `needle_${index}x\n` : "";
    const content = `// file ${index}\n${marker}${body}`;
    writeFileSync(join(dir, `f${index}${extensions[index % extensions.length]}`), content);
    bytes += content.length;
  }
  return { bytes };
}

async function runTool(tool: Tool, args: unknown, workspace: string): Promise<string> {
  const config = defaultConfig("/nonexistent");
  const prepared = tool.prepare(args, { workspace, config });
  if ("error" in prepared) throw new Error(prepared.error);
  const outcome = await prepared.run({ workspace, config, signal: new AbortController().signal, progress: () => {} });
  if (!outcome.success) throw new Error(outcome.output);
  return outcome.output;
}

async function time(run: () => Promise<unknown> | unknown): Promise<number> {
  const samples: number[] = [];
  for (let index = 0; index < RUNS; index += 1) {
    const start = process.hrtime.bigint();
    await run();
    samples.push(Number(process.hrtime.bigint() - start) / 1e9);
  }
  return median(samples);
}

const has = (program: string) => spawnSync(program, ["--version"]).status === 0;

const root = realpathSync(mkdtempSync(join(tmpdir(), "scv-bench-tools-")));
try {
  const started = Date.now();
  const { bytes } = generate(root);
  const generateSeconds = (Date.now() - started) / 1000;
  // rg honours .gitignore only inside a git repository.
  if (has("git")) execFileSync("git", ["init", "-q"], { cwd: root });
  const grepOutput = await runTool(createGrepTool(), { pattern: PATTERN, max_results: 2000 }, root);
  const grepSeconds = await time(() => runTool(createGrepTool(), { pattern: PATTERN, max_results: 2000 }, root));
  const globOutput = await runTool(createGlobTool(), { pattern: "**/*.ts" }, root);
  const globSeconds = await time(() => runTool(createGlobTool(), { pattern: "**/*.ts" }, root));
  const figures: Record<string, unknown> = {
    files: FILES,
    megabytes: round(bytes / 1024 / 1024, 1),
    generate_seconds: round(generateSeconds, 1),
    grep_seconds: round(grepSeconds),
    grep_matches: grepOutput.split("\n").filter((line) => line.includes(":")).length,
    glob_seconds: round(globSeconds),
    glob_first_line: globOutput.split("\n")[0],
  };
  if (has("rg")) {
    const rgSeconds = await time(() =>
      spawnSync("rg", ["-n", "--no-messages", PATTERN, "."], { cwd: root, maxBuffer: 1 << 28 })
    );
    const rgLines =
      spawnSync("rg", ["-n", "--no-messages", PATTERN, "."], { cwd: root, encoding: "utf8", maxBuffer: 1 << 28 }).stdout
        .split("\n").filter(Boolean).length;
    Object.assign(figures, {
      rg_seconds: round(rgSeconds),
      rg_matches: rgLines,
      grep_vs_rg: round(grepSeconds / rgSeconds, 2),
      grep_goal_met: grepSeconds <= 3 * rgSeconds,
    });
  } else {
    figures.rg = "not installed";
  }
  if (has("git")) {
    const args = ["ls-files", "--others", "--exclude-standard"];
    const gitSeconds = await time(() => spawnSync("git", args, { cwd: root, maxBuffer: 1 << 28 }));
    Object.assign(figures, {
      git_ls_files_seconds: round(gitSeconds),
      glob_vs_git: round(globSeconds / gitSeconds, 2),
      glob_goal_met: globSeconds <= 3 * gitSeconds,
    });
  } else {
    figures.git = "not installed";
  }
  printJson(figures);
} finally {
  rmSync(root, { recursive: true, force: true });
}
