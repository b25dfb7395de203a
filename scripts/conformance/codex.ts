// Host spec §12.38: the real Codex CLI 0.171.0 (framed code mode) spawning `scv host` and,
// in a second run, the reference codex-code-mode-host, against the same scripted model on a
// fake Responses provider. The model-visible tool outputs of both runs must match.
//
//   CODEX_BIN=/path/to/bin/codex node scripts/conformance/codex.ts
//
// CODEX_BIN is the `codex` executable of @openai/codex-linux-x64 (the reference host binary is
// taken from beside it). Not part of CI.
import { spawn } from "node:child_process";
import { chmodSync, existsSync, linkSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { type FakeResponse, startFakeProvider } from "../../tests/support/fake_provider.ts";
import { MAIN } from "../../tests/support/frame_client.ts";

let responseCount = 0;

function response(items: unknown[]): FakeResponse {
  const id = `resp_${++responseCount}`;
  return {
    events: [
      { type: "response.created", response: { id } },
      ...items.map((item) => ({ type: "response.output_item.done", item })),
      {
        type: "response.completed",
        response: {
          id,
          usage: {
            input_tokens: 1,
            input_tokens_details: null,
            output_tokens: 1,
            output_tokens_details: null,
            total_tokens: 2,
          },
        },
      },
    ],
  };
}

const exec = (callId: string, source: string) =>
  response([{ type: "custom_tool_call", call_id: callId, name: "exec", input: source }]);
const waitCall = (callId: string, args: Record<string, unknown>) =>
  response([{ type: "function_call", call_id: callId, name: "wait", arguments: JSON.stringify(args) }]);
const message = (text: string) =>
  response([{ type: "message", role: "assistant", id: "m", content: [{ type: "output_text", text }] }]);

/** The scripted model: one exec (or wait) per turn, then a final message. */
function script(): FakeResponse[] {
  responseCount = 0;
  return [
    exec(
      "call_goal",
      "text('hi'); try { text(JSON.stringify(await tools.get_goal({}))) } catch (e) { text('goal error: ' + e) }",
    ),
    exec("call_throw", "text('before'); throw new Error('boom')"),
    exec(
      "call_yield",
      '// @exec: {"yield_time_ms": 400}\ntext("y1"); notify("ping-notify"); await new Promise((r) => setTimeout(r, 1000)); text("y2=" + (2 * 3));',
    ),
    waitCall("call_wait1", { cell_id: "3", yield_time_ms: 5000 }),
    exec("call_hang", '// @exec: {"yield_time_ms": 300}\ntext("hanging"); await new Promise(() => {});'),
    waitCall("call_wait2", { cell_id: "4", terminate: true }),
    exec(
      "call_budget",
      '// @exec: {"max_output_tokens": 30}\ntext("A".repeat(400)); text("B".repeat(400) + " tail-marker");',
    ),
    exec("call_store", "store('k', {n: 1}); text(JSON.stringify(load('k'))); image('data:image/png;base64,AAAA')"),
    message("done"),
  ];
}

/** Tool outputs the model saw, in order, with timing text normalized. */
function modelVisible(requests: { body: { input?: Array<Record<string, unknown>> } }[]): unknown[] {
  const last = requests.at(-1)?.body?.input ?? [];
  return last
    .filter((item: Record<string, unknown>) =>
      item.type === "custom_tool_call_output" || item.type === "function_call_output"
    )
    .map((item: Record<string, unknown>) =>
      normalizeTimings({ type: item.type, call_id: item.call_id, output: item.output })
    );
}

function normalizeTimings(value: unknown): unknown {
  if (typeof value === "string") return value.replace(/\d+(\.\d+)?\s?(ms|s|seconds?)\b/g, "<t>");
  if (Array.isArray(value)) return value.map(normalizeTimings);
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalizeTimings(v)]));
  return value;
}

async function run(
  codex: string,
  host: "scv" | "scv-without-capabilities" | "reference",
): Promise<{ outputs: unknown[]; exitCode: number | null; log: string }> {
  const dir = mkdtempSync(join(tmpdir(), `codex-${host}-`));
  try {
    const bin = join(dir, "bin");
    mkdirSync(bin);
    // Codex execs codex-code-mode-host beside its own resolved executable: give it a private copy.
    linkSync(codex, join(bin, "codex"));
    const hostPath = join(bin, "codex-code-mode-host");
    if (host === "reference") {
      linkSync(join(dirname(codex), "codex-code-mode-host"), hostPath);
    } else {
      // Without capabilities Codex truncates and adds `Script error:` itself: the model must see the same.
      const env = host === "scv-without-capabilities" ? "SCV_HOST_CAPABILITIES= " : "";
      writeFileSync(hostPath, `#!/bin/sh\n${env}exec "${process.execPath}" "${MAIN}" host "$@"\n`);
      chmodSync(hostPath, 0o755);
    }
    const provider = await startFakeProvider(script());
    const home = join(dir, "home");
    mkdirSync(home);
    writeFileSync(
      join(home, "config.toml"),
      [
        'model = "gpt-5"',
        'model_provider = "fake"',
        "suppress_unstable_features_warning = true",
        "[model_providers.fake]",
        'name = "fake"',
        `base_url = "${provider.url}"`,
        'wire_api = "responses"',
        'env_key = "FAKE_KEY"',
        "[features]",
        "code_mode = true",
        "code_mode_host_grpc = false",
        "",
      ].join("\n"),
    );
    const child = spawn(join(bin, "codex"), ["exec", "--skip-git-repo-check", "-s", "read-only", "run the script"], {
      cwd: dir,
      env: { ...process.env, CODEX_HOME: home, FAKE_KEY: "k" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let log = "";
    child.stdout.on("data", (chunk) => (log += chunk));
    child.stderr.on("data", (chunk) => (log += chunk));
    const exitCode = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
      child.on("exit", (code) => {
        clearTimeout(timer);
        resolve(code);
      });
    });
    return { outputs: modelVisible(provider.requests), exitCode, log };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<number> {
  const codex = process.env.CODEX_BIN;
  if (!codex || !existsSync(codex) || !existsSync(join(dirname(codex), "codex-code-mode-host"))) {
    process.stdout.write("skipped: set CODEX_BIN to the codex executable of @openai/codex-linux-x64 0.171.0\n");
    return 0;
  }
  const theirs = await run(codex, "reference");
  let differences = 0;
  let count = 0;
  let ours = theirs;
  for (const variant of ["scv", "scv-without-capabilities"] as const) {
    ours = await run(codex, variant);
    process.stdout.write(`--- ${variant} vs reference ---\n`);
    count = Math.max(ours.outputs.length, theirs.outputs.length);
    for (let i = 0; i < count; i++) {
      const same = isDeepStrictEqual(ours.outputs[i], theirs.outputs[i]);
      if (!same) differences++;
      process.stdout.write(
        `${same ? "ok  " : "DIFF"}  output ${i + 1}: ${JSON.stringify(ours.outputs[i]).slice(0, 200)}\n`,
      );
      if (!same) process.stdout.write(`      reference: ${JSON.stringify(theirs.outputs[i]).slice(0, 200)}\n`);
    }
    if (ours.exitCode !== theirs.exitCode) {
      differences++;
      process.stdout.write(`DIFF  codex exit: ${variant} ${ours.exitCode}, reference ${theirs.exitCode}\n`);
    }
  }
  if (count === 0 || differences > 0) process.stdout.write(`--- codex log (scv run) ---\n${ours.log.slice(-3000)}\n`);
  process.stdout.write(
    differences === 0 && count > 0 ? `all ${count} model-visible outputs match\n` : `${differences} difference(s)\n`,
  );
  return differences === 0 && count > 0 ? 0 : 1;
}

process.exitCode = await main();
process.exit();
