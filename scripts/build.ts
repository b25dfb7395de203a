// Bundles scv for the standalone binary, in CommonJS parts (a Node single executable starts a
// CommonJS script):
// - dist/scv.cjs, the launcher: main.ts, commander and the version, nothing else, so that
//   `scv --version` and `--help` parse and compile almost nothing;
// - the application parts, loaded on first use of a subcommand: dist/scv-host.cjs (the code-mode
//   host: codec, sandbox, ws; Codex starts one host process per session, so its start-up and memory
//   count) and dist/scv-app.cjs (server, acp, chat, exec: the agent with its provider, tools and config).
//   main.ts imports `./lib/cli/<name>.ts` lazily; in the launcher those imports load the part from
//   the executable's embedded asset (or from beside the launcher when run as `node dist/scv.cjs`).
import { build, type BuildResult, type Plugin } from "esbuild";
import { mkdir, writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { NOTICES_FILE, thirdPartyNotices } from "./release/notices.ts";

export const ROOT = fileURLToPath(new URL("..", import.meta.url));
export const BUNDLE = `${ROOT}dist/scv.cjs`;

export interface AppPart {
  /** The bundle's file name in dist/ and its asset name inside the executable (sea-config `assets`). */
  asset: string;
  /** V8's code cache for the part, made by scripts/compile.ts with the binary's own Node and flags. */
  cacheAsset: string;
  subcommands: string[];
  /** A library part instead: this module (from the root), which the other parts load through `scv.loadPart`. */
  module?: string;
}

export const APP_PARTS: AppPart[] = [
  { asset: "scv-host.cjs", cacheAsset: "scv-host.cache", subcommands: ["host"] },
  {
    asset: "scv-app.cjs",
    cacheAsset: "scv-app.cache",
    subcommands: ["server", "acp", "chat", "exec", "sessions", "config", "trust", "sandbox"],
  },
  // The MCP SDK (with zod and ajv, ~60% of scv-app's size): parsed only when a session starts an MCP server.
  { asset: "scv-mcp.cjs", cacheAsset: "scv-mcp.cache", subcommands: [], module: "lib/tools/mcp/sdk.ts" },
];

/** Modules of the app parts that are library parts of their own, loaded at run time. */
const LIBRARY_PARTS = APP_PARTS.filter((part) => part.module !== undefined);

export const distPath = (asset: string): string => `${ROOT}dist/${asset}`;

/** An application part's source is compiled as this function expression, here and where its cache is made. */
const APP_PREFIX = "(function (module, exports, require) {";
const APP_SUFFIX = "\n})";
export const wrapApp = (source: string): string => APP_PREFIX + source + APP_SUFFIX;

const SUBCOMMAND_MODULE = /^\.\/lib\/cli\/(server|acp|host|chat|exec|sessions|config|trust|sandbox)\.ts$/;

const partEntry = (part: AppPart): string =>
  part.module !== undefined
    ? `export * from "./${part.module}";`
    : part.subcommands.map((name) => `export * as ${name} from "./lib/cli/${name}.ts";`).join("\n");

// Loads an application part once (with its code cache inside the executable) and returns one
// subcommand's module from it.
const LOADER = `
const { readFileSync } = require("node:fs");
const { join } = require("node:path");
const { Script } = require("node:vm");
const PARTS = ${
  JSON.stringify(Object.fromEntries(APP_PARTS.flatMap((part) => part.subcommands.map((name) => [name, part]))))
};
const LIBRARIES = ${
  JSON.stringify(Object.fromEntries(
    APP_PARTS.filter((part) => part.module !== undefined).map((part) => [part.asset, part]),
  ))
};
const loaded = new Map();
globalThis[Symbol.for("scv.loadPart")] = (asset) => loadPart(LIBRARIES[asset]);
module.exports = function loadSubcommand(name) {
  return loadPart(PARTS[name])[name];
};
function loadPart(part) {
  let app = loaded.get(part.asset);
  if (app === undefined) {
    let sea;
    try { sea = require("node:sea"); } catch {}
    const embedded = sea !== undefined && sea.isSea();
    const source = embedded ? sea.getAsset(part.asset, "utf8") : readFileSync(join(__dirname, part.asset), "utf8");
    let cachedData;
    if (embedded) {
      try { cachedData = Buffer.from(sea.getAsset(part.cacheAsset)); } catch {}
    }
    const script = new Script(${JSON.stringify(APP_PREFIX)} + source + ${
  JSON.stringify(APP_SUFFIX)
}, { filename: part.asset, cachedData });
    const module = { exports: {} };
    script.runInThisContext()(module, module.exports, require);
    app = module.exports;
    loaded.set(part.asset, app);
  }
  return app;
}
`;

/** In an application part, a library part's module becomes a run-time load of that part (through the launcher). */
const libraryPlugin = (self: AppPart): Plugin => ({
  name: "scv-library-parts",
  setup(builder) {
    const libraries = LIBRARY_PARTS.filter((library) => library !== self);
    builder.onResolve({ filter: /\.ts$/ }, (args) => {
      if (args.kind === "entry-point" || !args.path.startsWith(".")) return undefined;
      const file = resolve(args.resolveDir, args.path);
      const library = libraries.find((part) => resolve(ROOT, part.module!) === file);
      return library === undefined ? undefined : { path: library.asset, namespace: "scv-library" };
    });
    builder.onLoad({ filter: /.*/, namespace: "scv-library" }, (args) => ({
      contents: [
        'const load = globalThis[Symbol.for("scv.loadPart")];',
        `if (typeof load !== "function") throw new Error("only the scv launcher can load ${args.path}");`,
        `module.exports = load(${JSON.stringify(args.path)});`,
      ].join("\n"),
      loader: "js",
    }));
  },
});

/** In the launcher, `import("./lib/cli/<name>.ts")` becomes a call into the application bundle. */
const launcherPlugin: Plugin = {
  name: "scv-launcher",
  setup(builder) {
    builder.onResolve({ filter: SUBCOMMAND_MODULE }, (args) => ({
      path: args.path.match(SUBCOMMAND_MODULE)![1]!,
      namespace: "scv-subcommand",
    }));
    builder.onLoad({ filter: /.*/, namespace: "scv-subcommand" }, (args) => ({
      contents: `module.exports = require("scv-app-loader")(${JSON.stringify(args.path)});`,
      loader: "js",
    }));
    builder.onResolve({ filter: /^scv-app-loader$/ }, () => ({ path: "loader", namespace: "scv-app-loader" }));
    builder.onLoad({ filter: /.*/, namespace: "scv-app-loader" }, () => ({ contents: LOADER, loader: "js" }));
  },
};

const common = {
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node24",
  legalComments: "none",
  logLevel: "warning",
  metafile: true,
  // The binary runs the application parts as `vm.Script`s with no dynamic-import callback, where `import()`
  // throws "A dynamic import callback was not specified". Told so, esbuild bundles an `import()` of our own
  // modules and turns one of a built-in into a `require` (tests/e2e/binary_imports.test.ts checks that no
  // `import()` is left in any part; tests/structure/dynamic_imports.test.ts keeps lib/'s few to our modules).
  supported: { "dynamic-import": false },
} as const;

export async function buildBundle(): Promise<string> {
  await mkdir(`${ROOT}dist`, { recursive: true });
  const launcher = await build({
    ...common,
    entryPoints: [`${ROOT}main.ts`],
    outfile: BUNDLE,
    plugins: [launcherPlugin],
  });
  const size = (result: BuildResult) =>
    `${(Object.values(result.metafile!.outputs).reduce((sum, output) => sum + output.bytes, 0) / 1024).toFixed(0)} KiB`;
  const built = [`${BUNDLE} (${size(launcher)})`];
  const inputs = new Set(Object.keys(launcher.metafile!.inputs));
  for (const part of APP_PARTS) {
    const result = await build({
      ...common,
      stdin: {
        contents: partEntry(part),
        resolveDir: ROOT,
        sourcefile: part.asset.replace(/\.cjs$/, ".ts"),
        loader: "ts",
      },
      outfile: distPath(part.asset),
      plugins: [libraryPlugin(part)],
    });
    built.push(`${part.asset} (${size(result)})`);
    for (const input of Object.keys(result.metafile!.inputs)) inputs.add(input);
  }
  // The bundles keep no legal comments: the packages' notices travel beside the binary instead.
  await writeFile(distPath(NOTICES_FILE), thirdPartyNotices(inputs, ROOT));
  process.stderr.write(`built ${built.join(", ")}\n`);
  return BUNDLE;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildBundle();
