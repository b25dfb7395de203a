// Startup of the release binary (the stripped linux build in dist/release-work, else dist/scv): `--version`
// against `node -e 0` on the same Node (goal ≤ 1.1), `server --stdio` to `initialized`, `host` to
// `connection/ready`, and the archive sizes per target when a release was built. Measured quiet and
// with one core kept busy by a CPU-bound process this benchmark starts itself.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { encodeFrame, readFrames } from "../../lib/codec/index.ts";
import { ROOT } from "../build.ts";
import { BINARY, compileBinary } from "../compile.ts";
import { median, printJson, round } from "./stats.ts";

const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const RELEASE_BINARY = join(ROOT, "dist", "release-work", "linux-x64", "scv");
const binary = process.env.SCV_BENCH_BINARY ?? (existsSync(RELEASE_BINARY) ? RELEASE_BINARY : BINARY);
if (!existsSync(binary)) await compileBinary();

function timeExit(command: string, args: string[]): number {
  const start = process.hrtime.bigint();
  const result = spawnSync(command, args, { stdio: ["ignore", "pipe", "pipe"] });
  if (result.status !== 0)
    throw new Error(`${command} ${args.join(" ")} exited with ${result.status ?? result.signal}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** ms from spawn until `ready(chunk)` says the first answer arrived; the child is then ended. */
async function timeFirstAnswer(
  args: string[],
  input: Uint8Array | string,
  isReady: (child: ChildProcess) => Promise<void>,
) {
  const start = process.hrtime.bigint();
  const child = spawn(binary, args, { stdio: ["pipe", "pipe", "ignore"] });
  child.stdin!.write(input);
  await isReady(child);
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  child.kill("SIGKILL");
  await new Promise((resolve) => child.once("exit", resolve));
  return ms;
}

const initialize = `${
  JSON.stringify({ type: "initialize", request_id: "1", protocol_version: 3, client: { name: "bench", version: "0" } })
}\n`;
const serverReady = (child: ChildProcess) =>
  new Promise<void>((resolve, reject) => {
    let seen = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      seen += chunk.toString("utf8");
      if (seen.includes('"initialized"')) resolve();
    });
    child.once("exit", () => reject(new Error("scv server exited before initialized")));
  });
const hello = encodeFrame({
  type: "connection/hello",
  supportedVersions: [1],
  requiredCapabilities: [],
  optionalCapabilities: [],
});
const hostReady = async (child: ChildProcess) => {
  for await (const frame of readFrames(child.stdout!)) {
    if ((frame as { type: string }).type === "connection/ready") return;
  }
  throw new Error("scv host ended before connection/ready");
};

async function measure(): Promise<Record<string, number>> {
  const samples = { version: [] as number[], node: [] as number[], server: [] as number[], host: [] as number[] };
  for (let i = 0; i < RUNS + 2; i++) {
    const version = timeExit(binary, ["--version"]);
    const node = timeExit(process.execPath, ["-e", "0"]);
    const server = await timeFirstAnswer(["server", "--stdio"], initialize, serverReady);
    const host = await timeFirstAnswer(["host"], hello, hostReady);
    if (i < 2) continue; // the first runs warm the page cache
    samples.version.push(version);
    samples.node.push(node);
    samples.server.push(server);
    samples.host.push(host);
  }
  const versionMs = median(samples.version);
  const nodeMs = median(samples.node);
  return {
    version_median_ms: round(versionMs, 2),
    node_e0_median_ms: round(nodeMs, 2),
    version_ratio: round(versionMs / nodeMs, 3),
    server_to_initialized_median_ms: round(median(samples.server), 2),
    host_to_ready_median_ms: round(median(samples.host), 2),
  };
}

function archiveSizes(): Record<string, number> {
  const dir = join(ROOT, "dist", "release");
  if (!existsSync(dir)) return {};
  const sizes: Record<string, number> = {};
  for (const name of readdirSync(dir).filter((file) => /^scv-.*\.(tar\.gz|zip)$/.test(file))) {
    sizes[name] = round(statSync(join(dir, name)).size / 1024 / 1024, 1);
  }
  return sizes;
}

const quiet = await measure();
// One core kept busy, as when scv runs next to a busy program.
const busy = spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" });
let loaded: Record<string, number>;
try {
  loaded = await measure();
} finally {
  busy.kill("SIGKILL");
}
printJson({
  benchmark: "startup",
  binary,
  node: process.version,
  runs: RUNS,
  quiet,
  one_core_busy: loaded,
  archive_mib: archiveSizes(),
  goal: "version_ratio <= 1.1",
});
