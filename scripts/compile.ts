// Compiles dist/scv: a Node single executable application made from the esbuild bundle and the
// pinned Node binary, with V8's code caches for the application parts. It needs no node_modules and
// no Node on PATH. scripts/release.ts calls compileBinary for other targets' Node binaries.
import { execFileSync, spawnSync } from "node:child_process";
import { chmod, copyFile, rm, stat, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { currentTarget } from "../lib/build_info.ts";
import { APP_PARTS, type AppPart, buildBundle, distPath, ROOT, wrapApp } from "./build.ts";

const SEA_FUSE = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";
export const BINARY = `${ROOT}dist/scv`;
/**
 * V8 flags of every process the binary starts: the host, the server and the sandbox processes. They are applied after
 * NODE_OPTIONS (a sandbox process's own `--max-semi-space-size=1` there loses to the 4 here). A small first limit for
 * the old generation makes V8 collect the garbage of the first cells and turns early instead of letting it grow:
 * measured with 1,000 cells (scripts/bench/host.ts, the binary), the tree's peak RSS 149 → 137 MB, the sandbox process
 * 37 → 27 MB of anonymous memory, at the same cell rate.
 *
 * Per-process values are out of reach: the young generation here is 4 MB for all (1 MB for every process cost the
 * server 25–45% of its streaming rate on a quiet machine, scripts/bench/server.ts; with a core busy the rates were
 * too noisy to tell apart, and 1 MB still held 4–5 MB more after a large turn), and `execArgvExtension: "cli"`, which would let a
 * sandbox process's own flags win, makes Node take `--node-options=` from any argument, so that a prompt passed to
 * `scv exec` could load code. `v8.setFlagsFromString` after start does not shrink a configured young generation.
 */
const SEA_EXEC_ARGV = ["--max-semi-space-size=4", "--initial-old-space-size=4"];
/** The build facts `scv version` prints, an asset of the binary. */
export const BUILD_INFO_ASSET = "scv-build.json";

export interface CompileOptions {
  /** The Node binary the application goes into (default: this Node). Its version must be this Node's. */
  node?: string;
  output?: string;
  /** The release target name recorded in the binary (default: this machine's). */
  target?: string;
  /**
   * The command that runs the target's Node to make code caches (default: this Node); `null` for none
   * (a cross-built binary whose Node cannot run here). A cache V8 rejects is ignored at start.
   */
  cacheRunner?: string[] | null;
  /** Strip the Node binary's symbols before injection (ELF only). */
  strip?: boolean;
  /** Reuse bundles already built by buildBundle (the release builds them once for all targets). */
  bundle?: string;
  /** Mach-O binaries take the blob in a segment of their own. */
  macho?: boolean;
}

export async function compileBinary(options: CompileOptions = {}): Promise<string> {
  const output = options.output ?? BINARY;
  const target = options.target ?? currentTarget();
  const bundle = options.bundle ?? (await buildBundle());
  const cacheRunner = options.cacheRunner === undefined ? [process.execPath] : options.cacheRunner;
  const suffix = target === currentTarget() ? "" : `-${target}`;
  const caches = cacheRunner === null ? [] : writeCodeCaches(APP_PARTS, cacheRunner, suffix);
  const infoFile = distPath(`scv-build${suffix}.json`);
  await writeFile(infoFile, JSON.stringify({ commit: gitCommit(), built: new Date().toISOString(), target }));
  const blob = distPath(`sea-prep${suffix}.blob`);
  const seaConfig = distPath(`sea-config${suffix}.json`);
  await writeFile(
    seaConfig,
    JSON.stringify({
      main: bundle,
      output: blob,
      disableExperimentalSEAWarning: true,
      // The launcher's own cache is V8-specific: only a native build may carry it.
      useCodeCache: cacheRunner !== null && target === currentTarget(),
      useSnapshot: false,
      assets: {
        [BUILD_INFO_ASSET]: infoFile,
        ...Object.fromEntries(APP_PARTS.map((part) => [part.asset, distPath(part.asset)])),
        ...Object.fromEntries(caches.map(([part, file]) => [part.cacheAsset, file])),
      },
      // A capped young generation keeps a long server session's RSS from creeping up with every fast
      // turn (measured: 116–119 → 99–103 MB after 310 turns) at no measurable throughput cost.
      execArgv: SEA_EXEC_ARGV,
    }),
  );
  // The launcher's code cache is made here: with other V8 flags than the binary's, V8 rejects it at start (and says so).
  const prepared = spawnSync(process.execPath, [...SEA_EXEC_ARGV, "--experimental-sea-config", seaConfig], {
    encoding: "utf8",
  });
  if (prepared.status !== 0) throw new Error(`Node could not prepare the SEA blob: ${prepared.stderr.trim()}`);

  await rm(output, { force: true });
  await copyFile(options.node ?? process.execPath, output);
  await chmod(output, 0o755);
  if (options.strip) stripSymbols(output);
  inject(output, blob, options.macho ?? false);
  const size = (await stat(output)).size;
  process.stderr.write(
    `compiled ${output} (${target}, ${(size / 1024 / 1024).toFixed(1)} MiB) with Node ${process.version}\n`,
  );
  return output;
}

/** llvm-strip handles every ELF architecture; without it the binary keeps its symbols (larger, same behaviour). */
function stripSymbols(binary: string): void {
  const result = spawnSync("llvm-strip", ["--strip-all", binary], { encoding: "utf8" });
  if (result.error !== undefined || result.status !== 0) {
    process.stderr.write(
      `compile: left ${binary} unstripped (llvm-strip: ${result.error?.message ?? result.stderr.trim()})\n`,
    );
  }
}

/**
 * postject in a child process, so that the section-name warnings LIEF prints for every ELF note
 * (`Can't find string offset for section name '.note…'`, harmless) can be filtered from its output.
 */
function inject(binary: string, blob: string, macho: boolean): void {
  const api = fileURLToPath(import.meta.resolve("postject"));
  const script = `
    const { inject } = require(${JSON.stringify(api)});
    const { readFileSync } = require("node:fs");
    inject(${JSON.stringify(binary)}, "NODE_SEA_BLOB", readFileSync(${JSON.stringify(blob)}), {
      sentinelFuse: ${JSON.stringify(SEA_FUSE)}, ${macho ? 'machoSegmentName: "NODE_SEA",' : ""}
    }).catch((error) => { console.error(error.message); process.exit(1); });
  `;
  const result = spawnSync(process.execPath, ["--input-type=commonjs", "-e", script], { encoding: "utf8" });
  const noise = /^warning: Can't find string offset for section name '\.note[^']*'$/;
  const messages = `${result.stdout}${result.stderr}`.split("\n").filter((line) => line !== "" && !noise.test(line));
  if (messages.length > 0) process.stderr.write(`${messages.join("\n")}\n`);
  if (result.status !== 0) throw new Error(`postject failed to inject the application into ${binary}`);
}

function gitCommit(): string {
  const result = spawnSync("git", ["-C", ROOT, "rev-parse", "--short=12", "HEAD"], { encoding: "utf8" });
  const commit = result.status === 0 ? result.stdout.trim() : "";
  if (commit === "") return "unknown";
  const dirty = spawnSync("git", ["-C", ROOT, "status", "--porcelain", "--untracked-files=no"], { encoding: "utf8" });
  return dirty.stdout.trim() === "" ? commit : `${commit}-dirty`;
}

/**
 * V8 code caches for the application parts, made by the target's Node (`runner`) with the binary's V8
 * flags (one process for all parts) after running each part's top level. Returns [part, cache file].
 */
function writeCodeCaches(parts: AppPart[], runner: string[], suffix: string): Array<[AppPart, string]> {
  const [prefix, wrapSuffix] = wrapApp("\0").split("\0");
  const jobs = parts.map((part) => ({
    bundle: distPath(part.asset),
    name: part.asset,
    cache: distPath(part.cacheAsset.replace(/\.cache$/, `${suffix}.cache`)),
  }));
  // The bundles are read by the producer itself: they are far larger than one command-line argument may be.
  const producer = `
    const { readFileSync, writeFileSync } = require("node:fs");
    const { Script } = require("node:vm");
    for (const job of ${JSON.stringify(jobs)}) {
      const source = ${JSON.stringify(prefix)} + readFileSync(job.bundle, "utf8") + ${JSON.stringify(wrapSuffix)};
      const script = new Script(source, { filename: job.name });
      const module = { exports: {} };
      script.runInThisContext()(module, module.exports, require);
      writeFileSync(job.cache, script.createCachedData());
    }
  `;
  const [command, ...args] = runner;
  execFileSync(command!, [...args, ...SEA_EXEC_ARGV, "--input-type=commonjs", "-e", producer], {
    stdio: ["ignore", "ignore", "inherit"],
  });
  return parts.map((part, index) => [part, jobs[index]!.cache]);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await compileBinary();
