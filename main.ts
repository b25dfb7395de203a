#!/usr/bin/env node
// scv: one entrypoint for the agent protocol server, the code-mode host and the terminal chat.
// Each subcommand's module is imported only when that subcommand runs, so `--version` stays light.
import { Command, CommanderError, Option } from "commander";
import { VERSION } from "./lib/version.ts";
import { exitWithUsageError } from "./lib/cli/exit.ts";

const program = new Command("scv")
  .description("A coding agent: agent protocol server, code-mode host and terminal chat")
  .version(VERSION, "-V, --version", "print the scv version")
  .helpOption("-h, --help", "show help")
  .showSuggestionAfterError(true)
  .exitOverride();

program
  .command("server")
  .description("run the agent protocol server (NDJSON over stdio, protocol v3)")
  .option("--stdio", "serve one connection over stdin/stdout (required)")
  .option("--model <model>", "model override")
  .option("--base-url <url>", "provider base URL override")
  .option("--provider <name>", "select a [providers.NAME] profile (env SCV_PROVIDER)")
  .addOption(
    new Option("--approval-policy <policy>", "override tools.approval_policy").choices(["on-risk", "always", "never"]),
  )
  .option("--scv-home <path>", "instance home (env SCV_HOME, default ~/.scv)")
  .option("--config-path <path>", "explicit configuration file (env SCV_CONFIG)")
  .action(async (options) => {
    const { runServer } = await import("./lib/cli/server.ts");
    process.exitCode = await runServer(options);
  });

program
  .command("host")
  .description("run the code-mode host (length-prefixed JSON frames over stdio or WebSocket)")
  .option("--listen <url>", "stdio, stdio:// or ws://IP:PORT", "stdio")
  .action(async (options) => {
    const { runHost } = await import("./lib/cli/host.ts");
    process.exitCode = await runHost(options);
  });

program
  .command("chat")
  .description("interactive terminal chat in the current directory")
  .option("--model <model>", "model override")
  .option("--provider <name>", "select a [providers.NAME] profile")
  .option("--demo", "play the offline demo (no API key, no network)")
  .option("--fake-responses <file>", "replay a recorded script of Responses SSE events (offline, no API key)")
  .action(async (options) => {
    const { runChat } = await import("./lib/cli/chat.ts");
    process.exitCode = await runChat(options);
  });

program
  .command("exec")
  .description("run one turn non-interactively and print the answer (PROMPT - reads stdin)")
  .argument("<prompt>", "the prompt, or - to read it from stdin")
  .option("--json", "print every protocol event as NDJSON instead of the assistant text")
  .option("--yes", "approve every tool call")
  .addOption(
    new Option("--approval-policy <policy>", "answer approvals by this policy").choices(["on-risk", "always", "never"]),
  )
  .option("--model <model>", "model override")
  .option("--provider <name>", "select a [providers.NAME] profile")
  .option("--fake-responses <file>", "replay a recorded script of Responses SSE events (offline, no API key)")
  .action(async (prompt: string, options) => {
    const { runExec } = await import("./lib/cli/exec.ts");
    process.exitCode = await runExec(prompt, options);
  });

// No top-level await: the compiled binary runs this file as a CommonJS bundle.
program.parseAsync(process.argv).catch((error: unknown) => {
  if (error instanceof CommanderError) {
    // Help and version are successful exits; everything else commander reports is a usage error.
    if (error.code === "commander.helpDisplayed" || error.code === "commander.version" || error.code === "commander.help") {
      process.exitCode = 0;
    } else {
      exitWithUsageError();
    }
  } else {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`Error: ${message}\n`);
    process.exitCode = 1;
  }
});
