// MCP benchmark (issue 18): drives `node main.ts server --stdio` with MCP servers from
// @modelcontextprotocol/server-everything over stdio, against the scripted fake provider. Prints one JSON object.
//
//   node scripts/bench/mcp.ts [--runs 5] [--calls 200] [--steps 60]
//
// Figures:
// - session_start_ms: session.start sent → session.started, with 0 and 3 servers (p50 over --runs). Goal: equal,
//   servers never delay session.started.
//   `servers_3_idle`: 3 `sleep` servers that never answer (a spawn each, no Node start-up competing for the CPU).
// - first_turn_tools_ms: with 3 servers, turn.start sent right after session.started → the provider receives the
//   first request, which must list every server's tools (the turn waits for servers still starting).
// - echo_calls_per_second: `mcp__everything__echo` from one exec cell looping --calls times, vs from the model loop
//   (one call per provider step, --steps steps: a provider round trip per call, even with a local instant provider).
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  type FakeProvider,
  startFakeProvider,
  textResponse,
  toolCallResponse,
} from "../../tests/support/fake_provider.ts";
import { killAllServers, type ServerClient, spawnServer } from "../../tests/support/server_client.ts";
import { percentile, printJson, round } from "./stats.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const EVERYTHING = path.join(ROOT, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const WAIT_MS = 120_000;

function argument(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? Number(process.argv[index + 1]) : fallback;
}
const RUNS = argument("runs", 5);
const CALLS = argument("calls", 200);
const STEPS = argument("steps", 60);

type Sandbox = { home: string; workspace: string; root: string };

/** `idle` servers are `sleep` processes that never answer (they cost a spawn, not a Node start-up). */
function sandbox(servers: number, idle = false): Sandbox {
  const root = mkdtempSync(path.join(tmpdir(), "scv-bench-mcp-"));
  const home = path.join(root, "home");
  const workspace = path.join(root, "ws");
  mkdirSync(home, { mode: 0o700 });
  mkdirSync(workspace);
  let toml = "[agent]\nmax_steps = 1000\n";
  for (let i = 0; i < servers; i++) {
    const name = i === 0 ? "everything" : `everything${i}`;
    toml += idle
      ? `[mcp_servers.${name}]\ncommand = "sleep"\nargs = ["30"]\nstartup_timeout_sec = 1\n`
      : `[mcp_servers.${name}]\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${
        JSON.stringify(EVERYTHING)
      }]\n`;
  }
  writeFileSync(path.join(home, "config.toml"), toml);
  chmodSync(path.join(home, "config.toml"), 0o600);
  return { home, workspace, root };
}

function server(box: Sandbox, provider: FakeProvider): ServerClient {
  return spawnServer({
    args: ["--stdio", "--model", "fake-model", "--base-url", provider.url],
    env: { PATH: process.env.PATH, HOME: box.root, SCV_HOME: box.home, OPENAI_API_KEY: "bench-only" },
  });
}

async function sessionStart(servers: number, idle = false): Promise<{ started: number; firstRequest?: number }> {
  const box = sandbox(servers, idle);
  const provider = await startFakeProvider([textResponse(["ok"])]);
  const client = server(box, provider);
  try {
    await client.initialize();
    const sent = performance.now();
    client.send({ type: "session.start", request_id: "s", cwd: box.workspace });
    const started = await client.next("session.started", WAIT_MS);
    const startedAt = performance.now();
    client.sessionId = started.session_id;
    client.turn("go");
    let firstRequest: number | undefined;
    if (servers > 0 && !idle) {
      await provider.waitForRequests(1, WAIT_MS);
      firstRequest = performance.now() - sent;
      const names: string[] = provider.requests[0]!.body.tools.map((tool: { name: string }) => tool.name);
      const listed = new Set(names.filter((name) => name.startsWith("mcp__")).map((name) => name.split("__")[1]));
      if (listed.size !== servers) throw new Error(`first turn listed tools of ${listed.size} of ${servers} servers`);
    }
    await client.next("turn.completed", WAIT_MS);
    const ready = client.events.filter((event) => event.type === "mcp.server_status" && event.state === "ready");
    if (ready.length !== (idle ? 0 : servers)) throw new Error(`${ready.length} of ${servers} servers became ready`);
    await client.finish(10_000);
    return { started: startedAt - sent, ...(firstRequest === undefined ? {} : { firstRequest }) };
  } finally {
    client.kill();
    await provider.close();
    rmSync(box.root, { recursive: true, force: true });
  }
}

async function echoRate(): Promise<{ cell: number; modelLoop: number }> {
  const box = sandbox(1);
  const code =
    `for (let i = 0; i < ${CALLS}; i++) await tools.mcp__everything__echo({ message: "m" + i });\ntext("done");`;
  const steps = Array.from(
    { length: STEPS },
    (_, i) => toolCallResponse([{ call_id: `c${i}`, name: "mcp__everything__echo", arguments: { message: `m${i}` } }]),
  );
  const provider = await startFakeProvider([
    // A warm-up cell starts the sandbox and the MCP server, then the measured cell, then the model loop.
    toolCallResponse([{
      call_id: "warm",
      name: "exec",
      arguments: { code: 'await tools.mcp__everything__echo({ message: "w" }); text("w");' },
    }]),
    textResponse(["warm"]),
    toolCallResponse([{ call_id: "cell", name: "exec", arguments: { code, timeout_seconds: 600 } }]),
    textResponse(["cell"]),
    ...steps,
    textResponse(["loop"]),
  ]);
  const client = server(box, provider);
  try {
    await client.start({ cwd: box.workspace });
    client.turn("warm", "t0");
    await client.next("turn.completed", WAIT_MS);
    let begin = performance.now();
    client.turn("cell", "t1");
    const cellDone = await client.next("turn.completed", WAIT_MS);
    const cellMs = performance.now() - begin;
    const cell = client.events.find((event) => event.type === "tool.completed" && event.call_id === "cell");
    if (!cell?.success || cellDone.turn_id === undefined) throw new Error(`cell failed: ${cell?.output}`);
    begin = performance.now();
    client.turn("loop", "t2");
    await client.next("turn.completed", WAIT_MS);
    const loopMs = performance.now() - begin;
    const failedCalls = client.events.filter((event) =>
      event.type === "tool.completed" && /^c\d+$/.test(event.call_id) && !event.success
    );
    if (failedCalls.length > 0) throw new Error(`model-loop calls failed: ${failedCalls[0]!.output}`);
    await client.finish(10_000);
    return { cell: (CALLS * 1000) / cellMs, modelLoop: (STEPS * 1000) / loopMs };
  } finally {
    client.kill();
    await provider.close();
    rmSync(box.root, { recursive: true, force: true });
  }
}

const p50 = (values: number[]) => round(percentile([...values].sort((a, b) => a - b), 50), 1);

try {
  const zero: number[] = [];
  const three: number[] = [];
  const threeIdle: number[] = [];
  const firstTurn: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    zero.push((await sessionStart(0)).started);
    const with3 = await sessionStart(3);
    three.push(with3.started);
    threeIdle.push((await sessionStart(3, true)).started);
    firstTurn.push(with3.firstRequest!);
  }
  const rate = await echoRate();
  printJson({
    runs: RUNS,
    session_start_ms: { servers_0: p50(zero), servers_3: p50(three), servers_3_idle: p50(threeIdle) },
    first_turn_tools_ms: { servers_3: p50(firstTurn) },
    echo_calls_per_second: {
      cell: round(rate.cell, 1),
      model_loop: round(rate.modelLoop, 1),
      cell_calls: CALLS,
      loop_steps: STEPS,
    },
  });
} finally {
  killAllServers();
}
