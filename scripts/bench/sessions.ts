// Persistent sessions. Prints JSON:
// - list_ms: `scv sessions` wall time (median of --runs) with 10 and 10,000 stored sessions; goal: the 10,000 case
//   within 1.2× of the 10 case (listing reads the index, not the journals). list_json_ms: `--json`, which prints
//   all 5,000 of this workspace's sessions.
// - continue_ms: `scv chat --continue` (plain mode) until "session resumed" is printed, same two stores.
// - journal: one turn of --deltas deltas through `scv server --stdio`, deltas/s with the journal on and off
//   (`[sessions] persist`), best of --turns each; goal: on ≥ 0.95 × off.
//   `--continue` resumes through the index (session.list, limit 1) and opens one journal:
//   tests/e2e/continue_reads_index.test.ts proves it structurally.
//   node scripts/bench/sessions.ts [--runs 7] [--deltas 100000] [--turns 3] [--only list,continue,journal]
import { spawn, spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeProvider } from "../../tests/support/fake_provider.ts";
import { median, printJson, round } from "./stats.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const MAIN = join(ROOT, "main.ts");
function argument(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? Number(process.argv[index + 1]) : fallback;
}
const RUNS = argument("runs", 7);
const DELTAS = argument("deltas", 100_000);
const TURNS = argument("turns", 3);
const onlyIndex = process.argv.indexOf("--only");
const PARTS = new Set(onlyIndex >= 0 ? process.argv[onlyIndex + 1]!.split(",") : ["list", "continue", "journal"]);

const root = mkdtempSync(join(tmpdir(), "scv-bench-sessions-"));
const workspace = join(root, "workspace");
mkdirSync(workspace);

function baseEnv(home: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env))
    if (value !== undefined && !key.startsWith("SCV_")) env[key] = value;
  return { ...env, SCV_HOME: home, HOME: root, OPENAI_API_KEY: "bench-key" };
}

/** A home with `count` stored sessions of one turn each, half of them in the benchmark's workspace. */
function storeWith(count: number): string {
  const home = join(root, `home-${count}`);
  const dir = join(home, "sessions");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const index: string[] = [];
  const start = Date.parse("2026-01-01T00:00:00Z");
  for (let i = 0; i < count; i++) {
    const id = randomUUID();
    const cwd = i % 2 === 0 ? workspace : join(root, `other-${i % 7}`);
    const at = new Date(start + i * 1000).toISOString();
    const prompt = `stored prompt number ${i} with a little text to look like a real title`;
    const header = {
      type: "session",
      v: 1,
      id,
      created_at: at,
      workspace: cwd,
      model: "fake-model",
      policy: "on-risk",
    };
    const items = [{ kind: "user", content: prompt }, { kind: "assistant", content: `answer ${i}`, calls: [] }];
    writeFileSync(
      join(dir, `${id}.ndjson`),
      [header, { type: "turn.started", at, turn_id: `t${i}`, prompt }, {
        type: "turn.completed",
        at,
        turn_id: `t${i}`,
        items,
      }]
        .map((record) => JSON.stringify(record) + "\n")
        .join(""),
      { mode: 0o600 },
    );
    index.push(
      JSON.stringify({ id, cwd, created_at: at, updated_at: at, title: prompt, turns: 1, model: "fake-model" }) + "\n",
    );
  }
  writeFileSync(join(dir, "index.ndjson"), index.join(""), { mode: 0o600 });
  return home;
}

function timeList(home: string, args: string[]): number {
  const times: number[] = [];
  // Run 0 warms the page cache and is not counted.
  for (let i = 0; i <= RUNS; i++) {
    const started = performance.now();
    const run = spawnSync(process.execPath, [MAIN, "sessions", ...args], {
      cwd: workspace,
      env: baseEnv(home),
      encoding: "utf8",
      maxBuffer: 256 << 20,
    });
    if (run.status !== 0) throw new Error(`scv sessions failed (${run.status ?? run.error?.message}): ${run.stderr}`);
    if (i > 0) times.push(performance.now() - started);
  }
  return median(times);
}

async function timeContinue(home: string): Promise<number> {
  const times: number[] = [];
  // Run 0 warms the page cache and is not counted.
  for (let i = 0; i <= RUNS; i++) {
    const started = performance.now();
    const child = spawn(process.execPath, [MAIN, "chat", "--continue"], {
      cwd: workspace,
      env: baseEnv(home),
      stdio: ["pipe", "pipe", "pipe"],
    });
    await new Promise<void>((resolve, reject) => {
      let out = "";
      const timer = setTimeout(() => reject(new Error(`no prompt within 20 s: ${out}`)), 20_000);
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes("session resumed")) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    if (i > 0) times.push(performance.now() - started);
    child.stdin.end();
    await new Promise((resolve) => child.once("exit", resolve));
  }
  return median(times);
}

/** deltas/s of one DELTAS-delta turn through the server, with the journal on or off. */
async function deltaRate(persist: boolean): Promise<number> {
  const home = join(root, `home-journal-${persist}`);
  mkdirSync(home, { recursive: true, mode: 0o700 });
  // A 100k-delta response is larger than the default response limit.
  writeFileSync(
    join(home, "config.toml"),
    `[sessions]\npersist = ${persist}\n\n[provider_limits]\nmax_response_bytes = 268435456\n`,
    {
      mode: 0o600,
    },
  );
  let body = "";
  for (let i = 0; i < DELTAS; i++) {
    body += `event: response.output_text.delta\ndata: {"type":"response.output_text.delta","delta":"d${i % 10} "}\n\n`;
  }
  body += 'event: response.completed\ndata: {"type":"response.completed","response":{}}\n\n';
  let best = 0;
  for (let turn = 0; turn < TURNS; turn++) {
    const provider = await startFakeProvider([{ events: [{ raw: body }] }]);
    const child = spawn(process.execPath, [
      MAIN,
      "server",
      "--stdio",
      "--model",
      "fake-model",
      "--base-url",
      provider.url,
    ], {
      cwd: workspace,
      env: baseEnv(home),
      stdio: ["pipe", "pipe", "inherit"],
    });
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
    let pending = "";
    let sessionId = "";
    let deltas = 0;
    let startedAt = 0;
    const done = new Promise<number>((resolve) => {
      child.stdout.on("data", (chunk: Buffer) => {
        const lines = (pending + chunk.toString()).split("\n");
        pending = lines.pop()!;
        for (const line of lines) {
          if (line.startsWith('{"type":"assistant.delta"')) {
            deltas += 1;
            continue;
          }
          if (line.startsWith('{"type":"session.started"')) {
            sessionId = JSON.parse(line).session_id;
            startedAt = performance.now();
            send({ type: "turn.start", request_id: "t", session_id: sessionId, prompt: "stream" });
          } else if (line.startsWith('{"type":"turn.')) {
            const type = JSON.parse(line).type;
            // The server may merge deltas that queue up behind a slow reader: the rate counts the provider's.
            if (type === "turn.completed") resolve(DELTAS / ((performance.now() - startedAt) / 1000));
            if (type === "turn.failed") {
              process.stderr.write(`benchmark turn failed: ${line}\n`);
              resolve(Number.NaN);
            }
          }
        }
      });
    });
    send({ type: "initialize", request_id: "i", protocol_version: 3, client: { name: "bench", version: "0" } });
    send({ type: "session.start", request_id: "s", cwd: workspace });
    const rate = await done;
    if (!Number.isFinite(rate) || deltas === 0) throw new Error("the benchmark turn failed");
    child.stdin.end();
    await new Promise((resolve) => child.once("exit", resolve));
    await provider.close();
    best = Math.max(best, rate);
  }
  return best;
}

try {
  const small = storeWith(10);
  const large = storeWith(10_000);
  const report: Record<string, unknown> = {};
  if (PARTS.has("list")) {
    const list10 = timeList(small, []);
    const list10k = timeList(large, []);
    const json10 = timeList(small, ["--json"]);
    const json10k = timeList(large, ["--json"]);
    report.list_ms = {
      sessions_10: round(list10, 1),
      sessions_10000: round(list10k, 1),
      ratio: round(list10k / list10),
      goal: "≤ 1.2",
    };
    // --json prints every one of this workspace's sessions (5,000 of the 10,000): output volume, not the index.
    report.list_json_ms = {
      sessions_10: round(json10, 1),
      sessions_10000: round(json10k, 1),
      ratio: round(json10k / json10),
    };
  }
  if (PARTS.has("continue")) {
    const continue10 = await timeContinue(small);
    const continue10k = await timeContinue(large);
    report.continue_ms = {
      sessions_10: round(continue10, 1),
      sessions_10000: round(continue10k, 1),
      ratio: round(continue10k / continue10),
      goal: "≤ 1.2",
    };
  }
  if (PARTS.has("journal")) {
    const off = await deltaRate(false);
    const on = await deltaRate(true);
    report.journal = {
      deltas: DELTAS,
      deltas_per_s_off: Math.round(off),
      deltas_per_s_on: Math.round(on),
      ratio: round(on / off),
      goal: "≥ 0.95",
    };
  }
  printJson({
    ...report,
    runs: RUNS,
    note: "2-core machine shared with other engineers' work; figures are noisy",
  });
} finally {
  rmSync(root, { recursive: true, force: true });
}
