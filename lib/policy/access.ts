// What a tool call touches, as its tool declares it before the call runs: the only thing policy looks at.
import type { SandboxUse } from "./sandbox_modes.ts";

/** How dangerous a call is by itself; the modes decide from it when no rule does (spec §6.5). */
export type Risk = "read_only" | "filesystem" | "process" | "network";

/**
 * What kind of thing the call does: `read` (looks at the workspace), `edit` (changes files), `run` (runs a
 * command or code), `fetch` (reaches the network), `delegate` (hands a task to a sub-agent whose own calls are
 * decided one by one).
 */
export type Effect = "read" | "edit" | "run" | "fetch" | "delegate";

/** One simple command of a command line, as the shell would run it. */
export type CommandPart = {
  /** The words after quote removal; a word that globs, expands `~` or braces keeps its text as written. */
  words: string[];
  /** The words with assignments, wrappers (`sudo`, `env`, `timeout 5`…) and a program's directory taken away. */
  core: string[];
  /**
   * True when nothing in the part can do more than its words say: no substitution, expansion, assignment,
   * redirection to a file, subshell or control keyword. Only plain parts can match an allow rule.
   */
  plain: boolean;
  /** Which words (by index) glob, expand `~` or braces: they may only stand where a rule's `:*` allows any words. */
  expanding: number[];
  /** True when the part is on the read-only command list (lib/policy/safe_command.ts). */
  readOnly: boolean;
};

export type CommandAccess = {
  /** The command line exactly as it will run. */
  text: string;
  /** Every simple command it runs, those inside substitutions and `bash -c '…'` included. */
  parts: CommandPart[];
  /** Why the line is not on the read-only list (`uses grep -r, …`), shown with the question or denial. */
  notReadOnly?: string;
};

/** The declaration a tool's `prepare` returns beside its risk. */
export type DeclaredAccess = {
  effect: Effect;
  /** Workspace-relative paths the call reads (a search's folder counts as read). */
  reads?: readonly string[];
  /** Workspace-relative paths the call creates, changes or deletes. */
  writes?: readonly string[];
  command?: CommandAccess;
  /** The host a fetch goes to, lowercased. */
  domain?: string;
  /** The MCP server of an MCP tool. */
  server?: string;
  /** Whether a command runs inside the OS sandbox, asks to leave it, or wanted one that does not hold. */
  sandbox?: SandboxUse;
};

/** What policy decides on: the tool, its risk and its declaration, and the exact call for session grants. */
export type Access = DeclaredAccess & {
  tool: string;
  risk: Risk;
  /** The call's tool and arguments in a canonical form; a session grant for one exact call matches it. */
  key?: string;
};

function normalize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalize);
  if (value !== null && typeof value === "object") {
    const record = value as Record<string, unknown>;
    return Object.fromEntries(Object.keys(record).sort().map((key) => [key, normalize(record[key])]));
  }
  return value;
}

/**
 * The key of one exact call: object keys sorted, values compared exactly. Strings are never normalized:
 * whitespace inside a quoted shell argument or a file's content changes what the call does.
 */
export function callKey(tool: string, args: unknown): string {
  return `${tool}\u0000${JSON.stringify(normalize(args ?? {}))}`;
}
