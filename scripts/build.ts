// Bundles scv for the standalone binary, in two CommonJS parts (a Node single executable starts a
// CommonJS script):
// - dist/scv.cjs, the launcher: main.ts, commander and the version, nothing else, so that
//   `scv --version` and `--help` parse and compile almost nothing;
// - dist/scv-app.cjs, the application: every subcommand. main.ts imports `./lib/cli/<name>.ts` lazily;
//   in the launcher those imports load the application once, from the executable's embedded asset
//   (or from beside the launcher when run as `node dist/scv.cjs`).
import { build, type BuildResult, type Plugin } from "esbuild";
import { mkdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("..", import.meta.url));
export const BUNDLE = `${ROOT}dist/scv.cjs`;
export const APP_BUNDLE = `${ROOT}dist/scv-app.cjs`;
/** The name of the application inside the executable (sea-config `assets`). */
export const APP_ASSET = "scv-app.cjs";
/** V8's code cache for the application, made by scripts/compile.ts with the binary's own Node and flags. */
export const APP_CACHE = `${ROOT}dist/scv-app.cache`;
export const APP_CACHE_ASSET = "scv-app.cache";
/** The application's source is compiled as this function expression, here and where its cache is made. */
const APP_PREFIX = "(function (module, exports, require) {";
const APP_SUFFIX = "\n})";
export const wrapApp = (source: string): string => APP_PREFIX + source + APP_SUFFIX;

const SUBCOMMAND_MODULE = /^\.\/lib\/cli\/(server|host|chat|exec)\.ts$/;

const APP_ENTRY = `
export * as server from "./lib/cli/server.ts";
export * as host from "./lib/cli/host.ts";
export * as chat from "./lib/cli/chat.ts";
export * as exec from "./lib/cli/exec.ts";
`;

// Loads the application bundle once (with its code cache inside the executable) and returns one
// subcommand's module from it.
const LOADER = `
const { readFileSync } = require("node:fs");
const { join } = require("node:path");
const { Script } = require("node:vm");
let app;
module.exports = function loadSubcommand(name) {
  if (app === undefined) {
    let sea;
    try { sea = require("node:sea"); } catch {}
    const embedded = sea !== undefined && sea.isSea();
    const source = embedded ? sea.getAsset(${JSON.stringify(APP_ASSET)}, "utf8") : readFileSync(join(__dirname, ${JSON.stringify(APP_ASSET)}), "utf8");
    let cachedData;
    if (embedded) {
      try { cachedData = Buffer.from(sea.getAsset(${JSON.stringify(APP_CACHE_ASSET)})); } catch {}
    }
    const script = new Script(${JSON.stringify(APP_PREFIX)} + source + ${JSON.stringify(APP_SUFFIX)}, { filename: ${JSON.stringify(APP_ASSET)}, cachedData });
    const module = { exports: {} };
    script.runInThisContext()(module, module.exports, require);
    app = module.exports;
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
  const app = await build({
    ...common,
    stdin: { contents: APP_ENTRY, resolveDir: ROOT, sourcefile: "scv-app.ts", loader: "ts" },
    outfile: APP_BUNDLE,
  });
  const size = (result: BuildResult) =>
    `${(Object.values(result.metafile!.outputs).reduce((sum, output) => sum + output.bytes, 0) / 1024).toFixed(0)} KiB`;
  process.stderr.write(`built ${BUNDLE} (${size(launcher)}) and ${APP_BUNDLE} (${size(app)})\n`);
  return BUNDLE;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildBundle();
