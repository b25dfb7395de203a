#!/usr/bin/env node
// scv: one entrypoint for the agent protocol server, the code-mode host and the terminal chat.
// Each subcommand's module is imported only when that subcommand runs, so `--version` stays light.
import "./lib/version_fast_path.ts";
import { basename } from "node:path";
import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import { VERSION } from "./lib/version.ts";
import { exitWithUsageError } from "./lib/cli/exit.ts";
// The one list of approval modes (a small file with no imports of its own).
import { APPROVAL_MODE_IDS } from "./lib/policy/modes.ts";
import { SANDBOX_MODE_IDS } from "./lib/policy/sandbox_modes.ts";

const program = new Command("scv")
  .description("A coding agent: agent protocol server, code-mode host and terminal chat")
  .version(VERSION, "-V, --version", "print the scv version (also -v)")
  .helpOption("-h, --help", "show help")
  .showSuggestionAfterError(true)
  .exitOverride();

/** The session flags `scv server` and `scv acp` share (lib/cli/session_flags.ts maps them). */
function withSessionFlags(command: Command): Command {
  return command
    .option("--model <model>", "model override")
    .option("--base-url <url>", "provider base URL override")
    .option("--provider <name>", "select a [providers.NAME] profile (env SCV_PROVIDER)")
    .addOption(
      new Option("--approval-policy <policy>", "override tools.approval_policy").choices(APPROVAL_MODE_IDS),
    )
    .addOption(
      new Option("--sandbox <mode>", "override sandbox_mode (what commands may write)").choices(SANDBOX_MODE_IDS),
    )
    .option("--scv-home <path>", "instance home (env SCV_HOME, default ~/.scv)")
    .option("--config-path <path>", "explicit configuration file (env SCV_CONFIG)")
    .addOption(maxCostOption());
}

/** `--max-cost USD`: the session budget (`session.max_cost_usd`); a turn stops once the session has spent it. */
function maxCostOption(): Option {
  return new Option("--max-cost <usd>", "stop a turn once the session has cost this many US dollars").argParser(
    (value: string) => {
      const usd = Number(value);
      if (value.trim() === "" || !Number.isFinite(usd) || usd < 0) {
        throw new InvalidArgumentError("expected a non-negative number of US dollars, such as 2.50.");
      }
      return usd;
    },
  );
}

withSessionFlags(program.command("server"))
  .description("run the agent protocol server (NDJSON over stdio, protocol v3)")
  .option("--stdio", "serve one connection over stdin/stdout (required)")
  .addHelpText(
    "after",
    `
Protocol: NDJSON, one client message per line on stdin, one event per line on stdout; logs on stderr
at SCV_LOG (error|warn|info|debug, default warn). Exit codes: 0 after stdin EOF, 1 after a version
mismatch or a broken stdout, 2 usage.

Example:
  echo '{"type":"initialize","request_id":"1","protocol_version":3,"client":{"name":"me","version":"0"}}' | scv server --stdio`,
  )
  .action(async (options) => {
    const { runServer } = await import("./lib/cli/server.ts");
    process.exitCode = await runServer(options);
  });

withSessionFlags(program.command("acp"))
  .description("run an Agent Client Protocol (ACP v1) agent over stdio, for editors such as Zed")
  .addHelpText(
    "after",
    `
Protocol: newline-delimited JSON-RPC 2.0 on stdin/stdout (ACP v1); logs on stderr at SCV_LOG
(error|warn|info|debug, default warn). Approvals are asked through session/request_permission.

Zed (settings.json):
  "agent_servers": { "scv": { "type": "custom", "command": "scv", "args": ["acp"] } }`,
  )
  .action(async (options) => {
    const { runAcp } = await import("./lib/cli/acp.ts");
    process.exitCode = await runAcp(options);
  });

program
  .command("host")
  .description("run the code-mode host (length-prefixed JSON frames over stdio or WebSocket)")
  .option("--listen <url>", "stdio, stdio:// or ws://IP:PORT", "stdio")
  .option("--token-file <path>", "require the bearer token in this file on WebSocket upgrades")
  .addHelpText(
    "after",
    `
Frames are a 4-byte little-endian length and compact JSON. With ws://IP:PORT (port 0 picks one) the
bound URL is the only line on stdout; GET /readyz answers 200. A listener on a non-loopback address
requires "Authorization: Bearer <token>" on the upgrade request: the token in --token-file, or one
generated and printed to stderr; on loopback, --token-file turns the check on. Limits can be lowered
for testing with SCV_HOST_MAX_IN_FLIGHT_REQUESTS, SCV_HOST_MAX_ACTIVE_CELLS, SCV_HOST_MAX_PENDING_DELEGATES.

Examples:
  scv host                               # one connection on stdin/stdout (what Codex spawns)
  scv host --listen ws://127.0.0.1:0     # a WebSocket listener
  scv host --listen ws://0.0.0.0:9000 --token-file ~/.scv/host-token`,
  )
  .action(async (options) => {
    const { runHost } = await import("./lib/cli/host.ts");
    process.exitCode = await runHost(options);
  });

program
  .command("chat")
  .description("interactive terminal chat in the current directory")
  .option("--model <model>", "model override")
  .option("--provider <name>", "select a [providers.NAME] profile")
  .option("--base-url <url>", "provider base URL override")
  .option("--scv-home <path>", "instance home (env SCV_HOME, default ~/.scv)")
  .option("--config-path <path>", "explicit configuration file (env SCV_CONFIG)")
  .option("-C, --cd <dir>", "run in this directory instead of the current one")
  .addOption(
    new Option("--approval-policy <policy>", "override tools.approval_policy").choices(APPROVAL_MODE_IDS),
  )
  .addOption(maxCostOption())
  .addOption(
    new Option("--sandbox <mode>", "override sandbox_mode (what commands may write)").choices(SANDBOX_MODE_IDS),
  )
  .option("--demo", "play the offline demo (no API key, no network)")
  .option("--fake-responses <file>", "replay a recorded script of Responses SSE events (offline, no API key)")
  .option("--continue", "continue this workspace's most recent session")
  .option("--resume [id]", "continue a stored session (without an id: pick one from a list)")
  .addHelpText(
    "after",
    `
Keys: Enter sends, Ctrl-J inserts a newline, Up/Down browse history, Ctrl-R searches it, Tab completes a
/command, Ctrl-C or Esc cancels a running turn, Ctrl-C twice at an empty prompt exits. An approval takes
y, yes, n, no, a or always (for this session), k or keep (for good) and Enter. Slash commands: /help /model /clear /resume /fork /approvals /image
/mcp /usage /undo /rewind /compact /status /init /trust /exit, and your own: Markdown files in $SCV_HOME/commands/ and .scv/commands/.
In a subfolder of a repository the workspace is the repository root; AGENTS.md files are read from the root down.
A project's hooks (.scv/config.toml) run only once you trust the folder (/trust, scv trust). See docs/customizing.md.
Set NO_COLOR=1 for plain output; when stdout is not a terminal, each stdin line is one prompt.

Examples:
  scv chat
  scv chat --demo                        # offline demo, no API key`,
  )
  .action(async (options) => {
    if (!enterDirectory(options.cd, "chat")) return;
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
    new Option("--approval-policy <policy>", "the approval mode (with --yes, what still asks is approved)").choices(
      APPROVAL_MODE_IDS,
    ),
  )
  .addOption(
    new Option("--sandbox <mode>", "override sandbox_mode (what commands may write)").choices(SANDBOX_MODE_IDS),
  )
  .option("--image <path>", "attach a PNG, JPEG, GIF or WebP image (repeatable)", collect, [])
  .addOption(maxCostOption())
  .option("--model <model>", "model override")
  .option("--provider <name>", "select a [providers.NAME] profile")
  .option("--base-url <url>", "provider base URL override")
  .option("--scv-home <path>", "instance home (env SCV_HOME, default ~/.scv)")
  .option("--config-path <path>", "explicit configuration file (env SCV_CONFIG)")
  .option("-C, --cd <dir>", "run in this directory instead of the current one")
  .option("--fake-responses <file>", "replay a recorded script of Responses SSE events (offline, no API key)")
  .option("--continue", "continue this workspace's most recent session")
  .option("--resume <id>", "continue the stored session with this id (see scv sessions)")
  .addHelpText(
    "after",
    `
Exit codes: 0 the turn completed, 1 it failed (also past --max-cost), 2 usage (also an unknown session id), 3 the turn completed but
every change it tried was denied (no --yes, or --approval-policy never), 130 interrupted.

Examples:
  scv exec "Summarise README.md"
  scv exec --image shot.png "What is wrong in this screenshot?"
  git diff | scv exec --json -           # the prompt from stdin, every event as NDJSON
  scv exec --continue "Now add a test"   # a follow-up in this workspace's latest session
  scv exec "/review src/app.ts"          # a custom command (.scv/commands/review.md, $SCV_HOME/commands/)

Started in a subfolder of a repository, the workspace is the repository root; AGENTS.md files are read from the
root down to the folder you are in. Hooks ([[hooks.<Event>]]) run; a project's only once trusted (scv trust).
See docs/customizing.md.`,
  )
  .action(async (prompt: string, options) => {
    if (options.yes === true && options.approvalPolicy === "never") {
      process.stderr.write(
        "scv exec: warning: --yes has no effect with --approval-policy never (risky calls are denied)\n",
      );
    }
    if (!enterDirectory(options.cd, "exec")) return;
    const { runExec } = await import("./lib/cli/exec.ts");
    process.exitCode = await runExec(prompt, options);
  });

program
  .command("sessions")
  .description("list this workspace's stored sessions, newest first (delete ID: remove one)")
  .argument("[action]", "delete: remove the session ID")
  .argument("[id]", "the session to delete")
  .option("--all", "list the sessions of every workspace")
  .option("--json", "print the sessions as JSON")
  .option("--limit <n>", "show the newest N (default 50 in the table, all in JSON; 0: all)")
  .option("--scv-home <path>", "instance home (env SCV_HOME, default ~/.scv)")
  .addHelpText(
    "after",
    `
Columns: id, last update, turns, cost (USD; ? for an unknown price, - when nothing was counted), title (the first prompt, cut).
Sessions live in <home>/sessions/;
resume one with scv exec --resume ID or scv chat --resume ID. Exit 2 for an unknown id.

Examples:
  scv sessions
  scv sessions --all --json
  scv sessions delete 6f1c…`,
  )
  .action(async (action: string | undefined, id: string | undefined, options) => {
    const { runSessions } = await import("./lib/cli/sessions.ts");
    process.exitCode = await runSessions(action, id, options);
  });

program
  .command("config")
  .description("print the effective configuration and where each value came from (config path: the files read)")
  .argument("[action]", "path: print the configuration files scv reads, one per line")
  .option("--scv-home <path>", "instance home (env SCV_HOME, default ~/.scv)")
  .option("--config-path <path>", "explicit configuration file (env SCV_CONFIG)")
  .option("--provider <name>", "select a [providers.NAME] profile (env SCV_PROVIDER)")
  .option("-C, --cd <dir>", "the workspace to describe (default: the current directory)")
  .option("--json", "print the rows as JSON")
  .addHelpText(
    "after",
    `
Each line is key = value  # origin, where the origin is default, user file, project file, explicit file,
env VARIABLE or flag. API keys and provider headers are shown as [set].

Examples:
  scv config
  scv config path                        # e.g. $EDITOR "$(scv config path | head -1)"`,
  )
  .action(async (action: string | undefined, options) => {
    if (action !== undefined && action !== "path") {
      process.stderr.write(`error: unknown config action '${action}' (expected: path)\n`);
      process.exitCode = 2;
      return;
    }
    const { runConfig } = await import("./lib/cli/config.ts");
    process.exitCode = await runConfig(action, options);
  });

program
  .command("trust")
  .description("trust a folder (its repository root) so the hooks of its .scv/config.toml run")
  .argument("[path]", "the folder (default: the current one)")
  .option("--revoke", "no longer trust it: its project hooks are skipped again")
  .option("--scv-home <path>", "instance home (env SCV_HOME, default ~/.scv)")
  .addHelpText(
    "after",
    `
Writes [projects."<path>"] trust_level = "trusted" (or "untrusted" with --revoke) into <home>/config.toml,
keeping its comments; creates the file (0600) when missing. Project commands and AGENTS.md files are prompts
and load without trust; project hooks are commands and run only in a trusted folder (docs/customizing.md).

Examples:
  scv trust                              # the repository you are in
  scv trust ~/src/app --revoke`,
  )
  .action(async (path: string | undefined, options) => {
    const { runTrust } = await import("./lib/cli/trust.ts");
    process.exitCode = await runTrust(path, options);
  });

program
  .command("sandbox")
  .description("run a command inside the command sandbox scv would use here (--check: test each layer)")
  .argument("[command...]", "the command and its arguments, after --")
  .addOption(
    new Option("--mode <mode>", "override sandbox_mode for this command").choices(SANDBOX_MODE_IDS),
  )
  .option("--check", "run the self-test of each back end and print every layer, the mode and the layout")
  .option("--json", "with --check: print the report as JSON")
  .option("--scv-home <path>", "instance home (env SCV_HOME, default ~/.scv)")
  .option("--config-path <path>", "explicit configuration file (env SCV_CONFIG)")
  .option("-C, --cd <dir>", "run in this directory instead of the current one")
  .addHelpText(
    "after",
    `
The command runs under the policy a session would give a command of the model's here: sandbox_mode and
[sandbox_workspace_write] from the configuration (the project file may only tighten them), the same hidden
paths and the same back end (bubblewrap, else unshare; SCV_SANDBOX_BACKEND picks one). stdin and stdout pass
through; stderr too, and afterwards scv adds the mode, the back end, the exit code and what the sandbox
probably denied. scv exits with the command's exit code (128+N after signal N), 125 when no sandbox holds here
(the command is not run; --check: the mode asked for does not hold), 127 when the command cannot be started,
2 for usage errors and 1 when the configuration cannot be read.

Examples:
  scv sandbox -- npm test
  scv sandbox --mode read-only -- sh -c 'touch x'
  scv sandbox --check`,
  )
  .action(async (command: string[], options) => {
    if (!enterDirectory(options.cd, "sandbox")) return;
    const { runSandbox } = await import("./lib/cli/sandbox.ts");
    process.exitCode = await runSandbox(command, options);
  });

program
  .command("version")
  .description("print the version, commit, build date, target and runtime (for bug reports)")
  .option("--json", "print them as JSON")
  .action(async (options: { json?: boolean }) => {
    const { buildInfo, formatBuildInfo } = await import("./lib/build_info.ts");
    const info = buildInfo();
    process.stdout.write(options.json ? `${JSON.stringify(info)}\n` : `${formatBuildInfo(info)}\n`);
  });

/** `-C DIR`: work in DIR, as `git -C` does; a missing folder is a usage error. */
/** Commander's accumulator for a repeatable option. */
function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function enterDirectory(directory: string | undefined, command: string): boolean {
  if (directory === undefined) return true;
  try {
    process.chdir(directory);
    return true;
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === "ENOENT" ? "no such directory" : (error as Error).message;
    process.stderr.write(`scv ${command}: cannot work in ${directory}: ${reason}\n`);
    process.exitCode = 2;
    return false;
  }
}

// `scv … --help | head` closes the pipe before everything is written: end quietly, as a program
// killed by SIGPIPE would (exit 141), not with a stack trace. Subcommands that own stdout (server,
// host) listen for its errors themselves and decide.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (process.stdout.listenerCount("error") > 1) return;
  if (error.code === "EPIPE") process.exit(141);
  throw error;
});

// Codex runs `codex-code-mode-host` beside its own executable with no arguments: the binary
// installed under that name acts as `scv host`.
const HOST_ALIAS = "codex-code-mode-host";
const argv = [process.execPath, process.argv[1] ?? ""].some((path) => basename(path) === HOST_ALIAS)
  ? [process.argv[0]!, process.argv[1]!, "host", ...process.argv.slice(2)]
  : withDefaultCommand(process.argv);

/**
 * `scv` alone on an interactive terminal starts the chat, as `codex` and `claude` do; piped, it prints
 * the help. `-v` is an alias of `-V` (commander takes one short flag for the version).
 */
function withDefaultCommand(args: string[]): string[] {
  const [runtime, script, ...rest] = args;
  if (rest.length === 0) return [runtime!, script!, process.stdin.isTTY && process.stdout.isTTY ? "chat" : "--help"];
  if (rest[0] === "-v") rest[0] = "-V";
  // `scv --version --verbose` is `scv version`.
  if (rest.length === 2 && rest.includes("--verbose") && rest.some((arg) => arg === "-V" || arg === "--version")) {
    return [runtime!, script!, "version"];
  }
  return [runtime!, script!, ...rest];
}

// The single-executable binary re-runs itself as a sandbox process (lib/sandbox/launch.ts); its
// Node options (the permission model, no code from strings) come in NODE_OPTIONS. The module
// loader is taken before the process deletes `process.getBuiltinModule`; it stays in the sandbox
// start code's closure (the cell host gets one that knows only node:vm), never in a global.
const SANDBOX_PROCESS_ARG = "--scv-sandbox-process";
const getBuiltin = process.getBuiltinModule.bind(process) as (id: string) => unknown;

// No top-level await: the compiled binary runs this file as a CommonJS bundle.
if (process.argv[2] === SANDBOX_PROCESS_ARG) {
  void import("./lib/sandbox/launch.ts").then(({ runSandboxProcess }) =>
    runSandboxProcess(process.argv[3] ?? "{}", getBuiltin)
  );
} else {
  program.parseAsync(argv).catch(reportError);
}

function reportError(error: unknown): void {
  if (error instanceof CommanderError) {
    // Help and version are successful exits; everything else commander reports is a usage error.
    if (
      error.code === "commander.helpDisplayed" || error.code === "commander.version" || error.code === "commander.help"
    ) {
      process.exitCode = 0;
    } else {
      exitWithUsageError();
    }
  } else {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`Error: ${message}\n`);
    process.exitCode = 1;
  }
}
