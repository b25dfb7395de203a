// What was run, for bug reports (`scv version`): the compiled binary carries its build facts (an asset
// written by scripts/compile.ts); from a source checkout the commit is read from git when it is there.
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { VERSION } from "./version.ts";

export type BuildInfo = { version: string; commit: string; built: string; target: string; runtime: string };

type SeaModule = { isSea(): boolean; getAsset(name: string, encoding: string): string };

export function buildInfo(): BuildInfo {
  const runtime = runtimeName();
  const embedded = embeddedBuildInfo();
  if (embedded !== undefined) return { version: VERSION, ...embedded, runtime };
  return { version: VERSION, commit: sourceCommit(), built: "from source", target: currentTarget(), runtime };
}

/** The standalone binary's `scv-build.json` asset (written by scripts/compile.ts). */
function embeddedBuildInfo(): { commit: string; built: string; target: string } | undefined {
  try {
    const sea = process.getBuiltinModule?.("node:sea") as SeaModule | undefined;
    if (sea === undefined || !sea.isSea()) return undefined;
    return JSON.parse(sea.getAsset("scv-build.json", "utf8")) as { commit: string; built: string; target: string };
  } catch {
    return undefined;
  }
}

/** `linux-x64`, `darwin-arm64`, `win-x64`, …: the release target names. */
export function currentTarget(): string {
  const os = process.platform === "win32" ? "win" : process.platform;
  return `${os}-${process.arch}`;
}

function runtimeName(): string {
  const deno = (globalThis as { Deno?: { version: { deno: string } } }).Deno;
  return deno === undefined ? `Node ${process.version}` : `Deno ${deno.version.deno} (Node API ${process.version})`;
}

function sourceCommit(): string {
  try {
    const root = fileURLToPath(new URL("..", import.meta.url));
    const commit = execFileSync("git", ["-C", root, "rev-parse", "--short=12", "HEAD"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
      timeout: 2000,
    }).trim();
    return commit === "" ? "unknown" : commit;
  } catch {
    return "unknown (not a git checkout)";
  }
}

export function formatBuildInfo(info: BuildInfo): string {
  return [
    `scv ${info.version}`,
    `commit: ${info.commit}`,
    `built: ${info.built}`,
    `target: ${info.target}`,
    `runtime: ${info.runtime}`,
  ].join("\n");
}
