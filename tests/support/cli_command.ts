// The one place that decides how tests start the CLI from source. `SCV_TEST_RUNTIME=deno` runs every spawned
// CLI under Deno (`deno run -A main.ts …`, the deno of node_modules/.bin); unset or `node`, under this Node
// (`node main.ts …`). Every test that spawns main.ts goes through here.
import { homedir } from "node:os";
import { join, resolve } from "node:path";

export const ROOT = resolve(import.meta.dirname, "../..");
export const MAIN = join(ROOT, "main.ts");

export type TestRuntime = "node" | "deno";

function selectRuntime(value: string | undefined): TestRuntime {
  if (value === undefined || value === "" || value === "node") return "node";
  if (value === "deno") return "deno";
  throw new Error(`SCV_TEST_RUNTIME must be "node" or "deno", not ${JSON.stringify(value)}`);
}

export const TEST_RUNTIME: TestRuntime = selectRuntime(process.env.SCV_TEST_RUNTIME);
export const UNDER_DENO = TEST_RUNTIME === "deno";

/** The runtime executable: this Node, or the pinned deno. */
export const RUNTIME_BIN = UNDER_DENO ? join(ROOT, "node_modules", ".bin", "deno") : process.execPath;
/** What goes between the executable and main.ts. */
export const RUNTIME_ARGS: readonly string[] = UNDER_DENO ? ["run", "-A"] : [];

/**
 * Deno keeps its compile cache under $HOME; the tests give the CLI an empty temporary HOME, so point Deno at the
 * real cache instead (else every child recompiles and writes `.cache/` into a home the tests expect empty).
 */
export const RUNTIME_ENV: Readonly<Record<string, string>> = UNDER_DENO
  ? { DENO_DIR: process.env.DENO_DIR ?? join(homedir(), ".cache", "deno"), DENO_NO_UPDATE_CHECK: "1" }
  : {};

export type CliCommand = { command: string; args: string[] };

/** `node main.ts …args` or `deno run -A main.ts …args`; `main` may be a path relative to the child's cwd. */
export function cliCommand(args: readonly string[], main: string = MAIN): CliCommand {
  return { command: RUNTIME_BIN, args: [...RUNTIME_ARGS, main, ...args] };
}

/** `env` plus what the runtime needs (nothing under Node). */
export function cliEnv<T extends Record<string, string | undefined>>(env: T): T & Record<string, string> {
  return { ...env, ...RUNTIME_ENV };
}

/** The command line as a shell would run it, for launcher scripts (each word single-quoted). */
export function cliShellCommand(args: readonly string[]): string {
  const { command, args: words } = cliCommand(args);
  return [command, ...words].map((word) => `'${word.replace(/'/g, "'\\''")}'`).join(" ");
}
