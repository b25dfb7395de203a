// The allow rule that answering "always" adds for a call that asked: as narrow as still useful. A command's
// program and subcommand with `:*` for tools whose subcommand says what they do (`bash(git diff:*)`), else the
// exact words (`bash(rm -rf build)`); the path for file tools; the host for web_fetch; the MCP tool's full name.
import type { Access, CommandPart } from "./access.ts";
import { allowsPart, type PolicyState } from "./decide.ts";
import { MCP_PREFIX, quoteWords } from "./rule.ts";

/** Programs whose first word after the name is a subcommand that says what they do. */
const SUBCOMMAND_PROGRAMS = new Set([
  "git",
  "npm",
  "npx",
  "pnpm",
  "yarn",
  "bun",
  "deno",
  "cargo",
  "go",
  "make",
  "docker",
  "podman",
  "kubectl",
  "pip",
  "pip3",
  "uv",
  "poetry",
  "gradle",
  "mvn",
  "dotnet",
  "terraform",
  "helm",
  "gh",
  "swift",
  "mix",
  "bundle",
  "rake",
]);
const PLAIN_WORD = /^[A-Za-z0-9][A-Za-z0-9_.:-]*$/;

/** The rule "always" would add, or undefined when no rule can describe the call (then only the exact call). */
export function suggestRule(access: Access, state: PolicyState): string | undefined {
  // No rule covers leaving the sandbox (decide.ts): only this exact call can be remembered, for the session.
  if (access.sandbox?.state === "escalate") return undefined;
  if (access.command !== undefined) return commandRule(access.command.parts, state);
  if (access.server !== undefined) return access.tool.startsWith(MCP_PREFIX) ? access.tool : undefined;
  if (access.domain !== undefined) return `${access.tool}(domain:${access.domain})`;
  const touched = [...new Set([...(access.reads ?? []), ...(access.writes ?? [])])];
  if (touched.length === 1) {
    const family = access.effect === "edit" ? "edit" : access.tool;
    return `${family}(${escapeGlob(touched[0]!)})`;
  }
  if (touched.length === 0 && access.effect !== "edit") return access.tool;
  return undefined;
}

/** The one part of a command no rule or read-only verdict covers yet, as a rule; undefined for none or several. */
function commandRule(parts: readonly CommandPart[], state: PolicyState): string | undefined {
  const allow = [...state.rules.allow, ...(state.grants?.rules.allow ?? [])];
  const open = parts.filter((part) => !(part.plain && allow.some((rule) => allowsPart(rule, part))) && !part.readOnly);
  if (open.length !== 1) return undefined;
  const part = open[0]!;
  if (!part.plain || part.words.length === 0) return undefined;
  const [program, subcommand] = part.words;
  if (
    SUBCOMMAND_PROGRAMS.has(program!) && subcommand !== undefined && PLAIN_WORD.test(subcommand) &&
    !part.expanding.includes(0) && !part.expanding.includes(1)
  ) {
    return `bash(${quoteWords([program!, subcommand])}:*)`;
  }
  if (part.expanding.length > 0) return undefined;
  return `bash(${quoteWords(part.words)})`;
}

/** A path as a glob that matches only itself. */
function escapeGlob(path: string): string {
  return path.replace(/[*?[\]\\]/g, "\\$&");
}
