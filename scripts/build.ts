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
import { mkdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("..", import.meta.url));
export const BUNDLE = `${ROOT}dist/scv.cjs`;

export interface AppPart {
  /** The bundle's file name in dist/ and its asset name inside the executable (sea-config `assets`). */
  asset: string;
  /** V8's code cache for the part, made by scripts/compile.ts with the binary's own Node and flags. */
  cacheAsset: string;
  subcommands: string[];
}

export const APP_PARTS: AppPart[] = [
  { asset: "scv-host.cjs", cacheAsset: "scv-host.cache", subcommands: ["host"] },
  { asset: "scv-app.cjs", cacheAsset: "scv-app.cache", subcommands: ["server", "acp", "chat", "exec"] },
];

export const distPath = (asset: string): string => `${ROOT}dist/${asset}`;

/** An application part's source is compiled as this function expression, here and where its cache is made. */
const APP_PREFIX = "(function (module, exports, require) {";
const APP_SUFFIX = "\n})";
export const wrapApp = (source: string): string => APP_PREFIX + source + APP_SUFFIX;

const SUBCOMMAND_MODULE = /^\.\/lib\/cli\/(server|acp|host|chat|exec)\.ts$/;

const partEntry = (part: AppPart): string =>
  part.subcommands.map((name) => `export * as ${name} from "./lib/cli/${name}.ts";`).join("\n");

// Loads an application part once (with its code cache inside the executable) and returns one
// subcommand's module from it.
const LOADER = `
const { readFileSync } = require("node:fs");
const { join } = require("node:path");
const { Script } = require("node:vm");
const PARTS = ${JSON.stringify(Object.fromEntries(APP_PARTS.flatMap((part) => part.subcommands.map((name) => [name, part]))))};
const loaded = new Map();
module.exports = function loadSubcommand(name) {
  const part = PARTS[name];
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
    const script = new Script(${JSON.stringify(APP_PREFIX)} + source + ${JSON.stringify(APP_SUFFIX)}, { filename: part.asset, cachedData });
    const module = { exports: {} };
    script.runInThisContext()(module, module.exports, require);
    app = module.exports;
    loaded.set(part.asset, app);
  }
  return app[name];
};
`;

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
} as const;

export async function buildBundle(): Promise<string> {
  await mkdir(`${ROOT}dist`, { recursive: true });
  const launcher = await build({ ...common, entryPoints: [`${ROOT}main.ts`], outfile: BUNDLE, plugins: [launcherPlugin] });
  const size = (result: BuildResult) =>
    `${(Object.values(result.metafile!.outputs).reduce((sum, output) => sum + output.bytes, 0) / 1024).toFixed(0)} KiB`;
  const built = [`${BUNDLE} (${size(launcher)})`];
  for (const part of APP_PARTS) {
    const result = await build({
      ...common,
      stdin: { contents: partEntry(part), resolveDir: ROOT, sourcefile: part.asset.replace(/\.cjs$/, ".ts"), loader: "ts" },
      outfile: distPath(part.asset),
    });
    built.push(`${part.asset} (${size(result)})`);
  }
  process.stderr.write(`built ${built.join(", ")}\n`);
  return BUNDLE;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildBundle();
