// scv chat latency.
// 1. Enter → first streamed character on screen: the real ChatApp in interactive mode over an in-memory
//    terminal, its engine talking to the local fake SSE provider on 127.0.0.1. Goal: p50 ≤ 30 ms.
// 2. Startup to a ready prompt for the compiled binary (`dist/scv chat` in a pseudo-terminal made by
//    script(1)), compiled first when missing. Goal: p50 ≤ 250 ms.
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { copyFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Writable } from "node:stream";
import { ChatApp } from "../../lib/chat/app.ts";
import { prepareOptions } from "../../lib/embed/session_options.ts";
import { startFakeProvider, textResponse } from "../../tests/support/fake_provider.ts";
import { VERSION } from "../../lib/version.ts";
import { BINARY, compileBinary } from "../compile.ts";
import { percentile, printJson, round } from "./stats.ts";

const debug = (text: string) => {
  if (process.env.BENCH_DEBUG) process.stderr.write(`${text}\n`);
};
const TURNS = Number(process.env.BENCH_RUNS ?? 30);
const STARTS = Number(process.env.BENCH_STARTS ?? 15);

async function firstCharacterLatency(root: string): Promise<number[]> {
  const provider = await startFakeProvider();
  for (let i = 0; i < TURNS + 3; i++)
    provider.push(textResponse([`Ω${i} streamed`, " reply"], { input_tokens: 1, output_tokens: 1 }));
  const env: Record<string, string | undefined> = {
    ...process.env,
    SCV_HOME: join(root, "home"),
    HOME: root,
    OPENAI_API_KEY: "bench",
    SCV_BASE_URL: provider.url,
  };
  delete env.SCV_CONFIG;
  delete env.SCV_PROVIDER;
  let screen = "";
  let watch: { needle: string; resolve: () => void } | undefined;
  const output = new Writable({
    write(chunk, _encoding, callback) {
      screen += chunk.toString();
      if (watch && screen.includes(watch.needle)) {
        const found = watch;
        watch = undefined;
        found.resolve();
      }
      callback();
    },
  });
  const input = Object.assign(new PassThrough(), { setRawMode: () => {}, isTTY: true });
  const app = new ChatApp({
    terminal: { input, output, interactive: true, color: true, columns: () => 80 },
    flags: {},
    cwd: root,
    prepare: (flags) => prepareOptions(flags, env, root),
    historyPath: undefined,
  });
  const running = app.run();
  const seen = (needle: string) =>
    new Promise<void>((resolve, reject) => {
      if (screen.includes(needle)) return resolve();
      const timer = setTimeout(() =>
        reject(
          new Error(
            `no ${JSON.stringify(needle)} on the chat screen within 10 s: ${JSON.stringify(screen.slice(-300))}`,
          ),
        ), 10_000);
      watch = {
        needle,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
    });
  await seen("ready");
  const samples: number[] = [];
  for (let i = 0; i < TURNS + 3; i++) {
    screen = "";
    const first = seen(`Ω${i}`);
    const start = process.hrtime.bigint();
    input.write(`prompt ${i}\r`);
    await first;
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    if (i >= 3) samples.push(ms); // the first turns warm the provider connection and JIT
    debug(`turn ${i}: ${round(ms, 2)} ms`);
    await seen("done in");
    await seen("ready");
  }
  debug("turns done");
  app.stop(0);
  await running;
  debug("chat stopped");
  await provider.close();
  return samples;
}

/** A private copy of dist/scv (compiled first when missing): tests may recompile dist/scv meanwhile. */
async function binaryCopy(root: string): Promise<string> {
  const copy = join(root, "scv");
  for (let attempt = 0; attempt < 5; attempt += 1) {
    if (!existsSync(BINARY)) await compileBinary();
    await copyFile(BINARY, copy);
    if (spawnSync(copy, ["--version"], { env: {} }).stdout?.toString().trim() === VERSION) return copy;
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
  throw new Error(`${BINARY} is not a working scv binary`);
}

async function startupLatency(root: string): Promise<number[]> {
  const binary = await binaryCopy(root);
  const env = {
    ...process.env,
    SCV_HOME: join(root, "home"),
    HOME: root,
    OPENAI_API_KEY: "bench",
    TERM: "xterm-256color",
  };
  const samples: number[] = [];
  for (let i = 0; i < STARTS + 2; i++) {
    const start = process.hrtime.bigint();
    const child = spawn("script", ["-qfec", `${binary} chat`, "/dev/null"], {
      cwd: root,
      env,
      stdio: ["pipe", "pipe", "ignore"],
    });
    let text = "";
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        reject(new Error(`no ready prompt from ${binary} chat within 10 s: ${JSON.stringify(text)}`));
      }, 10_000);
      child.stdout.on("data", (chunk: Buffer) => {
        text += chunk.toString();
        if (text.includes("ready")) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    if (i >= 2) samples.push(ms);
    debug(`start ${i}: ${round(ms, 2)} ms`);
    child.stdin.write("\x04");
    const exited = await Promise.race([
      new Promise((resolve) => child.once("exit", () => resolve(true))),
      new Promise((resolve) => setTimeout(() => resolve(false), 3000)),
    ]);
    if (!exited) {
      child.kill("SIGKILL");
      throw new Error(`${binary} chat did not exit on Ctrl-D`);
    }
  }
  return samples;
}

const root = await mkdtemp(join(tmpdir(), "scv-bench-chat-"));
try {
  const first = (await firstCharacterLatency(root)).sort((a, b) => a - b);
  const startup = (await startupLatency(root)).sort((a, b) => a - b);
  printJson({
    benchmark: "chat",
    node: process.version,
    enter_to_first_char: {
      runs: first.length,
      p50_ms: round(percentile(first, 50), 2),
      p90_ms: round(percentile(first, 90), 2),
      goal: "p50 <= 30 ms",
    },
    binary_startup_to_ready: {
      runs: startup.length,
      p50_ms: round(percentile(startup, 50), 2),
      p90_ms: round(percentile(startup, 90), 2),
      goal: "p50 <= 250 ms",
    },
  });
} finally {
  await rm(root, { recursive: true, force: true });
}
setTimeout(() => process.exit(0), 250).unref();
