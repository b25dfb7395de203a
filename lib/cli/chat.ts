// `scv chat [--model M] [--provider NAME] [--demo]`: the interactive terminal chat in the current directory.
// `--demo` (npm run demo) plays examples/demo through the real chat with the replay provider, offline.
import { join } from "node:path";
import { resolveHome } from "../config/index.ts";
import { ChatApp, prepareDemo } from "../chat/index.ts";
import { type ClientFlags, prepareOptions } from "../embed/index.ts";
import { colorEnabled } from "../render/index.ts";
import { startFolders } from "../util/repository_root.ts";
import { EXIT_FAILURE, EXIT_SIGNALS, EXIT_USAGE } from "./exit.ts";
import { forceExitAfter, handleSignals } from "./process.ts";
import { refusesLogLevel } from "./log_level.ts";

/** How long the terminal size must stay the same before the chat redraws for it. */
const RESIZE_SETTLE_MS = 60;

export type ChatCliOptions = ClientFlags & {
  demo?: boolean;
  continue?: boolean;
  /** `--resume ID`, or `--resume` alone (true): pick from a list. */
  resume?: string | boolean;
};

export async function runChat(options: ChatCliOptions): Promise<number> {
  const env = process.env;
  const stdout = process.stdout;
  const stdin = process.stdin;
  stdout.on("error", () => {});
  if (refusesLogLevel("chat", env.SCV_LOG)) return EXIT_USAGE;
  const { demo: _demo, ...flags }: ChatCliOptions = options;
  // Started in a subfolder of a repository, the workspace is the repository root (the folder stays the working one).
  const folders = await startFolders(process.cwd(), env);
  let cwd = folders.workspace;
  let workingFolder = folders.workingFolder;
  let historyPath: string | undefined = join(resolveHome(options.scvHome, env).home, "chat_history");
  let demoPrompts: string[] | undefined;
  let prepare = (current: ClientFlags) => prepareOptions(current, env, process.cwd());
  let cleanup = async () => {};
  // In a terminal the demo streams and types at a readable pace (SCV_DEMO_PACING=off plays it at full speed).
  const paced = stdout.isTTY === true && env.SCV_DEMO_PACING !== "off";
  if (options.demo) {
    try {
      const demo = await prepareDemo(env, { delayMs: paced ? 20 : 0 });
      cwd = demo.workspace;
      workingFolder = demo.workspace;
      historyPath = undefined;
      demoPrompts = demo.prompts;
      prepare = demo.prepare;
      cleanup = demo.cleanup;
    } catch (error) {
      process.stderr.write(`scv chat: could not set up the demo: ${(error as Error).message}\n`);
      return EXIT_FAILURE;
    }
  }
  if (options.continue === true && options.resume !== undefined) {
    process.stderr.write("scv chat: --continue and --resume cannot be combined\n");
    return EXIT_USAGE;
  }
  const resume = typeof options.resume === "string"
    ? { id: options.resume }
    : options.resume === true
    ? { pick: true as const }
    : options.continue === true
    ? { latest: true as const }
    : undefined;
  const interactive = options.demo ? stdout.isTTY === true : stdout.isTTY === true && stdin.isTTY === true;
  const app = new ChatApp({
    terminal: {
      input: stdin,
      output: stdout,
      interactive,
      color: colorEnabled(env, stdout.isTTY === true),
      columns: () => stdout.columns || 80,
      rows: () => stdout.rows || 24,
    },
    flags,
    cwd,
    workingFolder,
    prepare,
    historyPath,
    demoPrompts,
    demoPacing: paced ? { pauseMs: 600, typeMs: 25 } : undefined,
    ...(resume === undefined || options.demo ? {} : { resume }),
  });
  const removeSignals = handleSignals({
    SIGINT: () => app.interrupt(),
    // Leave cleanly (terminal mode restored, session shut down) when the terminal closes or we are asked to stop.
    // SIGTERM cancels a running turn first: what it printed stays, followed by `turn cancelled`.
    SIGTERM: () => app.terminate(EXIT_SIGNALS.SIGTERM),
    SIGHUP: () => app.stop(EXIT_SIGNALS.SIGHUP),
  });
  // A window dragged wider sends a resize every few milliseconds, and the terminal re-wraps what is on screen at
  // each one: a redraw computed for one width and drawn after the next resize leaves stray rows. Redrawing once the
  // size has stopped changing keeps the terminal and the drawing at the same width.
  let resizeTimer: ReturnType<typeof setTimeout> | undefined;
  const onResize = () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => app.redraw(), RESIZE_SETTLE_MS);
  };
  stdout.on("resize", onResize);
  try {
    return await app.run();
  } finally {
    removeSignals();
    clearTimeout(resizeTimer);
    stdout.off("resize", onResize);
    await cleanup();
    forceExitAfter(() => Number(process.exitCode ?? 0));
  }
}
