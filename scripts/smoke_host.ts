// Smoke test of a code-mode host command: handshake, one cell with nested tool calls, EOF → exit 0.
// Usage: node scripts/smoke_host.ts <command> [args…]   (e.g. `deno run -A main.ts host`)
import { spawn } from "node:child_process";
import { encodeFrame, readFrames } from "../lib/codec/index.ts";

const [command, ...args] = process.argv.slice(2);
if (command === undefined) {
  process.stderr.write("Usage: node scripts/smoke_host.ts <command> [args…]\n");
  process.exit(2);
}

const child = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"] });
const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
const timer = setTimeout(() => {
  process.stderr.write("smoke: the host did not finish within 30 s\n");
  child.kill("SIGKILL");
}, 30_000);

child.stdin.write(
  encodeFrame({ type: "connection/hello", supportedVersions: [1], requiredCapabilities: [], optionalCapabilities: [] }),
);
child.stdin.write(
  encodeFrame({ type: "operation/request", id: 1, request: { method: "session/open", sessionId: "s1" } }),
);
// Ten sequential tool calls, each answered with its input plus one: the delegate round trip.
const inc = {
  name: "inc",
  tool_name: { name: "inc", namespace: null },
  description: "adds one",
  kind: "function",
  input_schema: null,
  output_schema: null,
};
const source =
  "let n = 0; for (let i = 0; i < 10; i++) n = await tools.inc(n); text(String(n * 4 + 2)); text(typeof process)";
const execute = { tool_call_id: "call_1", enabled_tools: [inc], source, yield_time_ms: 10_000 };
child.stdin.write(
  encodeFrame({
    type: "operation/request",
    id: 2,
    request: { method: "session/execute", sessionId: "s1", request: execute },
  }),
);

let texts = "";
for await (const frame of readFrames(child.stdout)) {
  const message = frame as {
    type: string;
    id?: number;
    request?: { invocation?: { input: number } };
    result?: { value?: { Result?: { content_items: { text: string }[] } } };
  };
  if (message.type === "delegate/request" && message.request?.invocation) {
    const value = { type: "tool/result", result: message.request.invocation.input + 1 };
    child.stdin.write(encodeFrame({ type: "delegate/response", id: message.id, result: { status: "ok", value } }));
  }
  const result = message.result?.value?.Result;
  if (message.type === "execute/initialResponse" && result)
    texts = result.content_items.map((item) => item.text).join(",");
  if (message.type === "cell/closed") child.stdin.end();
}
const code = await exited;
clearTimeout(timer);
if (texts !== "42,undefined" || code !== 0) {
  process.stderr.write(`smoke: expected cell output "42,undefined" and exit 0, got "${texts}" and exit ${code}\n`);
  process.exit(1);
}
process.stdout.write(`smoke: ${[command, ...args].join(" ")} ran a sandboxed cell\n`);
