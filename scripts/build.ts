// Bundles main.ts and everything it imports into one CommonJS file, dist/scv.cjs, the input of
// the standalone binary. CommonJS because a Node single executable application starts a script.
import { build } from "esbuild";
import { mkdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("..", import.meta.url));
export const BUNDLE = `${ROOT}dist/scv.cjs`;

export async function buildBundle(): Promise<string> {
  await mkdir(`${ROOT}dist`, { recursive: true });
  const result = await build({
    entryPoints: [`${ROOT}main.ts`],
    outfile: BUNDLE,
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node24",
    legalComments: "none",
    logLevel: "warning",
    metafile: true,
  });
  const bytes = Object.values(result.metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
  process.stderr.write(`built ${BUNDLE} (${(bytes / 1024).toFixed(0)} KiB)\n`);
  return BUNDLE;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildBundle();
