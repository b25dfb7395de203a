import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cleanErrorText } from "../../lib/sandbox/error_text.ts";
import { moduleSource } from "../../lib/sandbox/module_source.ts";

describe("moduleSource", () => {
  it("finds the first static import in every form and blanks it", () => {
    expect(moduleSource("import fs from 'fs'; text(1)")).toEqual({
      code: " ".repeat(20) + " text(1)",
      firstImport: "fs",
    });
    expect(moduleSource("import 'side-effect'\nimport {a as b} from \"y\"").firstImport).toBe("side-effect");
    expect(moduleSource("import * as ns from 'ns'").firstImport).toBe("ns");
    expect(moduleSource("import data from './d.json' with { type: 'json' };\ntext(1)")).toEqual({
      code: " ".repeat(50) + "\ntext(1)",
      firstImport: "./d.json",
    });
    expect(moduleSource("export * from 'm'").firstImport).toBe("m");
    expect(moduleSource("export { a as b } from 'n';").firstImport).toBe("n");
  });

  it("strips export syntax and keeps positions", () => {
    const source =
      "export const a = 1;\nexport default a + 1;\nexport { a };\nexport function f() {}\nexport default class K {}";
    const { code, firstImport } = moduleSource(source);
    expect(firstImport).toBeNull();
    expect(code.split("\n").map((line) => line.length)).toEqual(source.split("\n").map((line) => line.length));
    expect(code).toBe(
      "       const a = 1;\nvoid           a + 1;\n             \n       function f() {}\n               class K {}",
    );
  });

  it("reads a regex after the head of if, while, for and with: a backtick in it cannot hide an import", () => {
    for (const head of ["if (x)", "while (x)", "for (;;)", "with (x)"]) {
      const source = `${head} /\`/.test(s);\nimport fs from 'fs';`;
      expect(moduleSource(source).firstImport, source).toBe("fs");
    }
  });

  it("ignores import and export inside strings, templates, comments, regexes, members and blocks", () => {
    const sources = [
      "const s = \"import x from 'q'\"; const t = `import ${'a' + `import 'q'`} b`;",
      "// import 'z'\n/* export default 1 */ const re = /import 'x'/g; const d = 4 / 2 / 1;",
      "x.import('a'); await import('fs'); obj?.export;",
      "if (a) { import x from 'q' }",
      // A division after a parenthesized expression, not a regex: the backtick after it is a template.
      "const q = (a + b) / 2; const t = `import 'q'`;",
      "const o = { import: 1, export: 2 }",
    ];
    for (const source of sources) expect(moduleSource(source), source).toEqual({ code: source, firstImport: null });
  });
});

describe("moduleSource on arbitrary input", () => {
  it("never throws and keeps every line and column in place", () => {
    const pieces = fc.constantFrom(
      "import",
      "export",
      "default",
      " ",
      "\n",
      "'",
      '"',
      "`",
      "${",
      "}",
      "{",
      "(",
      ")",
      "/",
      "*",
      "//",
      "x",
      "from",
      "'m'",
      ";",
      ".",
      "\\",
    );
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.array(pieces, { maxLength: 40 }).map((parts) => parts.join(""))),
        (source) => {
          const { code } = moduleSource(source);
          expect(code.length).toBe(source.length);
          for (let i = 0; i < source.length; i++) if (source[i] === "\n") expect(code[i]).toBe("\n");
        },
      ),
      { numRuns: 2_000 },
    );
  });

  // How fast, and that it scales linearly: scripts/bench/latency.ts (scanners.module_source).
  it("scans a large source", () => {
    const source = "const s = `a ${'b'} c`; /* c */ const r = /x[/]y/g; // line\n".repeat(20_000);
    expect(moduleSource(source).code).toBe(source);
  });
});

describe("cleanErrorText", () => {
  it("keeps the message and cell frames only", () => {
    expect(
      cleanErrorText(
        "Error: boom\n    at exec_main.mjs:1:23\n    at scv-runtime.js:300:9\n    at process.processTicksAndRejections (node:internal/x:1:1)",
      ),
    ).toBe("Error: boom\n    at exec_main.mjs:1:23");
    expect(cleanErrorText("multi\nline message\n    at f (exec_main.mjs:2:3)")).toBe(
      "multi\nline message\n    at f (exec_main.mjs:2:3)",
    );
    expect(
      cleanErrorText(
        "TypeError: x\n    at exec_main.mjs:2:23\n    at Array.map (<anonymous>)\n    at toText (scv-runtime.js:120:9)\n    at exec_main.mjs:2:5\n    at scv-runtime.js:300:1",
      ),
    ).toBe("TypeError: x\n    at exec_main.mjs:2:23\n    at Array.map (<anonymous>)\n    at exec_main.mjs:2:5");
    expect(cleanErrorText("bare")).toBe("bare");
  });

  it("drops frames the runtime called before the error reached the cell", () => {
    expect(
      cleanErrorText(
        "TypeError: Converting circular structure to JSON\n    --> starting at object with constructor 'Object'\n    --- property 'o' closes the circle\n    at stringify (<anonymous>)\n    at text (scv-runtime.js:140:9)\n    at exec_main.mjs:1:24\n    at scv-runtime.js:300:1",
      ),
    ).toBe(
      "TypeError: Converting circular structure to JSON\n    --> starting at object with constructor 'Object'\n    --- property 'o' closes the circle\n    at exec_main.mjs:1:24",
    );
    // Cell code the runtime called back into (a throwing toJSON) keeps its frames and those between.
    expect(
      cleanErrorText(
        "Error: no\n    at Object.toJSON (exec_main.mjs:1:30)\n    at stringify (<anonymous>)\n    at text (scv-runtime.js:140:9)\n    at exec_main.mjs:1:50",
      ),
    ).toBe(
      "Error: no\n    at Object.toJSON (exec_main.mjs:1:30)\n    at stringify (<anonymous>)\n    at exec_main.mjs:1:50",
    );
  });
});
