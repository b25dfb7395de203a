// The worker code is embedded as a string: the sandbox must work from an esbuild bundle
// (the shape of the shipped single-executable binary), where no worker file exists on disk.
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { build } from "esbuild";
import { afterAll, expect, it } from "vitest";
import { HANG_MS } from "../support/wait.ts";

const run = promisify(execFile);
let dir = "";

afterAll(async () => {
  if (dir !== "") await rm(dir, { recursive: true, force: true });
});

it("runs cells, tools, errors and imports from an esbuild bundle", async () => {
  dir = await mkdtemp(join(tmpdir(), "scv-sandbox-bundle-"));
  const entry = join(dir, "entry.ts");
  const sandboxIndex = resolve(import.meta.dirname, "../../lib/sandbox/index.ts");
  await writeFile(
    entry,
    `import { createSandbox } from ${JSON.stringify(sandboxIndex)};
const sandbox = createSandbox();
const session = sandbox.openSession();
const tools = [{ name: "echo", tool_name: { name: "echo", namespace: null }, description: "echo", kind: "function" as const }];
const callbacks = { callTool: async (call: { input: unknown }) => call.input, notify: async () => {} };
const out = [];
for (const source of ["text(String(1+1))", "text((await tools.echo({ v: 'pong' })).v)", "text('before'); throw new Error('boom')", "import fs from 'fs'", "text(typeof process)"]) {
  out.push(await session.startCell({ source, tools, yieldTimeMs: ${HANG_MS}, callbacks }).initial);
}
await sandbox.shutdown();
console.log(JSON.stringify(out));
`,
  );
  const outfile = join(dir, "bundle.mjs");
  await build({ entryPoints: [entry], bundle: true, platform: "node", format: "esm", outfile, logLevel: "silent" });
  const { stdout } = await run(process.execPath, [outfile], { cwd: dir, timeout: HANG_MS });
  const results = JSON.parse(stdout) as { items: { text: string }[]; errorText: string | null }[];
  expect(results.map((r) => [r.items.map((i) => i.text), r.errorText])).toEqual([
    [["2"], null],
    [["pong"], null],
    [["before"], "Error: boom\n    at exec_main.mjs:1:23"],
    [[], "Unsupported import in exec: fs"],
    [["undefined"], null],
  ]);
});
