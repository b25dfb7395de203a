// Dynamic imports in the code the binary ships (main.ts, lib/): each names one of our own modules literally, so
// that esbuild bundles it and the source runtimes load it on first use. Anything else (a built-in, a package, a
// computed name) has no place there: the binary has no dynamic-import callback and loads no module from disk
// (issue 27: `import("node:fs/promises")` in lib/server/agent_tool.ts broke the `agent` tool in every binary).
// Built-ins and packages are imported statically; tests/e2e/binary_imports.test.ts checks the built binary.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const OWN_MODULE = /^\.\.?\/[\w./-]+\.ts$/;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** Each `import(…)` call whose argument is not the literal path of a `.ts` module of ours, as `file:line: text`. */
function foreignDynamicImports(name: string, source: string): string[] {
  const file = ts.createSourceFile(name, source, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [specifier] = node.arguments;
      const own = node.arguments.length === 1 && specifier !== undefined &&
        ts.isStringLiteralLike(specifier) && OWN_MODULE.test(specifier.text);
      if (!own) {
        const { line } = file.getLineAndCharacterOfPosition(node.getStart(file));
        found.push(`${name}:${line + 1}: ${node.getText(file)}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

describe("dynamic imports", () => {
  it("main.ts and lib/ import() only their own modules, by literal path", () => {
    const files = [join(ROOT, "main.ts"), ...sources(join(ROOT, "lib"))];
    const found = files.flatMap((path) => {
      const source = readFileSync(path, "utf8");
      return source.includes("import(") ? foreignDynamicImports(relative(ROOT, path), source) : [];
    });
    expect(found).toEqual([]);
  });

  it("tells a built-in, a package or a computed name from a module of ours, and ignores types and strings", () => {
    const probe = [
      'await import("node:fs/promises");',
      'await import("smol-toml");',
      "await import(name);",
      "await import(`./${name}.ts`);",
      'await import("./session.ts");',
      'await import("../tools/mcp/sdk.ts");',
      'let socket: import("node:net").Socket;',
      "const cell = \"import('x')\";",
    ].join("\n");
    expect(foreignDynamicImports("probe.ts", probe)).toEqual([
      'probe.ts:1: import("node:fs/promises")',
      'probe.ts:2: import("smol-toml")',
      "probe.ts:3: import(name)",
      "probe.ts:4: import(`./${name}.ts`)",
    ]);
  });
});
