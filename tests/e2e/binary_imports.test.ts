// The standalone binary runs its bundles as `vm.Script`s with no dynamic-import callback: an `import()` left in
// a bundle fails there ("A dynamic import callback was not specified") while the source runs fine. Issue 27: the
// `agent` tool with a `cwd` failed in every shipped binary that way. These tests drive that path through
// `dist/scv exec` and check that no part of the binary holds an `import()` at all (scripts/build.ts has esbuild
// turn them into `require` calls or bundle them).
// deno-lint-ignore-file no-explicit-any -- reads untyped wire JSON (request bodies)
import { spawn } from "node:child_process";
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import ts from "typescript";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { APP_PARTS, BUNDLE, distPath } from "../../scripts/build.ts";
import { freshBinary } from "../support/binary.ts";
import { UNDER_DENO } from "../support/cli_command.ts";
import { type ConfigSandbox, createConfigSandbox } from "../support/config_files.ts";
import { type FakeProvider, startFakeProvider, textResponse, toolCallResponse } from "../support/fake_provider.ts";

let dir = "";
let binary = "";
const bundles = new Map<string, string>();

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "scv-binary-imports-"));
  // A private copy of a fresh dist/scv and of the bundles it embeds, taken together, so that a later recompile
  // of dist/ by another test cannot change them under this one.
  const fresh = await freshBinary();
  for (const file of [BUNDLE, ...APP_PARTS.map((part) => distPath(part.asset))]) {
    bundles.set(file.slice(file.lastIndexOf("/") + 1), await readFile(file, "utf8"));
  }
  binary = join(dir, "scv");
  await copyFile(fresh, binary);
}, 400_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Every `import(…)` expression in a script, as `line: text`. */
function dynamicImports(name: string, source: string): string[] {
  const file = ts.createSourceFile(name, source, ts.ScriptTarget.Latest, false, ts.ScriptKind.JS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const { line } = file.getLineAndCharacterOfPosition(node.getStart(file));
      found.push(`${name}:${line + 1}: ${node.getText(file).slice(0, 120)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

describe.skipIf(UNDER_DENO)("compiled binary: no dynamic import", () => {
  it("holds no import() expression in the launcher or any application part", () => {
    expect([...bundles.keys()].sort()).toEqual(["scv-app.cjs", "scv-host.cjs", "scv-mcp.cjs", "scv.cjs"]);
    const found = [...bundles].flatMap(([name, source]) => dynamicImports(name, source));
    expect(found).toEqual([]);
    // Parsing 3 MB of JavaScript takes seconds on a loaded machine: the deadline only catches a hang.
  });

  it("the scan finds what it looks for", () => {
    expect(dynamicImports("probe.cjs", 'async function f(x) { await import("node:fs/promises"); return import(x); }'))
      .toHaveLength(2);
    expect(dynamicImports("probe.cjs", "const text = \"import('x')\"; // import(y)")).toEqual([]);
  });
});

describe.skipIf(UNDER_DENO)("compiled binary: the agent tool", () => {
  let sandbox: ConfigSandbox;
  let provider: FakeProvider;

  beforeEach(async () => {
    sandbox = await createConfigSandbox();
    provider = await startFakeProvider();
  });

  afterEach(async () => {
    await provider.close();
    await sandbox.cleanup();
  });

  function exec(prompt: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const child = spawn(binary, ["exec", "--yes", prompt], {
      cwd: sandbox.workspace,
      env: sandbox.env({ OPENAI_API_KEY: "test-key", SCV_BASE_URL: provider.url, SCV_MODEL: "fake-model" }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    return new Promise((resolve) => child.once("close", (code) => resolve({ code, stdout, stderr })));
  }

  it("runs a sub-agent in a cwd inside the workspace through `scv exec`", async () => {
    const sub = join(sandbox.workspace, "sub");
    await mkdir(sub);
    await writeFile(join(sub, "a.txt"), "alpha\n");
    provider.push(
      toolCallResponse([{
        call_id: "call_a",
        name: "agent",
        arguments: { prompt: "What does a.txt say?", cwd: "sub" },
      }]),
      toolCallResponse([{ call_id: "call_r", name: "read", arguments: { path: "a.txt" } }]),
      textResponse(["It says alpha."]),
      textResponse(["The sub-agent read alpha."]),
    );
    const result = await exec("delegate the reading");
    expect(result.stderr).not.toContain("dynamic import");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("The sub-agent read alpha.");

    const [, child1, child2, parent2] = provider.requests;
    expect(child1!.body.instructions).toContain(`Current working directory: ${sub}\n`);
    const read = child2!.body.input.find((item: any) => item.type === "function_call_output");
    expect(read.output).toContain("alpha");
    const delegated = parent2!.body.input.find((item: any) =>
      item.type === "function_call_output" && item.call_id === "call_a"
    );
    expect(JSON.parse(delegated.output)).toMatchObject({ agent: "scv", status: "completed", reply: "It says alpha." });
  });
});
