// Permission rules as users write them (`[permissions]` allow / ask / deny): a tool name, optionally with a
// specifier in parentheses. `bash(git diff:*)` (the command's words; `:*` = any further words),
// `edit(secrets/**)` (a gitignore-style glob relative to the workspace), `web_fetch(domain:*.python.org)`,
// `mcp__fs` (every tool of an MCP server) or `mcp__fs__read_text_file` (one), `bash` (every call of the tool).
import { nearestName } from "../util/nearest.ts";
import { splitCommandLine } from "./command_parts.ts";
import { compilePathGlob, type PathGlob, pathGlobProblem } from "./path_glob.ts";

export type RuleList = "allow" | "ask" | "deny";
export const RULE_LISTS: readonly RuleList[] = ["deny", "ask", "allow"];

export type RuleMatcher =
  | { kind: "any" }
  | { kind: "command"; words: string[]; prefix: boolean }
  | { kind: "path"; glob: PathGlob }
  | { kind: "domain"; host: string; subdomains: boolean }
  | { kind: "mcp_server"; server: string }
  | { kind: "mcp_tool"; name: string };

export type Rule = {
  /** The rule as written (the text messages quote). */
  text: string;
  /** The tools the rule applies to. */
  tools: readonly string[];
  matcher: RuleMatcher;
};

export const MCP_PREFIX = "mcp__";

/** Rule names that cover a family of tools: `read` every tool that reads files, `edit` every tool that changes them. */
const FAMILIES: Record<string, readonly string[]> = {
  read: ["read", "grep", "glob", "list"],
  edit: ["edit", "write", "apply_patch"],
};
const PATH_TOOLS = new Set(["read", "write", "edit", "apply_patch", "grep", "glob", "list"]);
const PLAIN_TOOLS = new Set(["exec", "web_search", "read_skill", "agent"]);
/** Every built-in tool name a rule may use. */
export const RULE_TOOL_NAMES: readonly string[] = ["bash", "web_fetch", ...PATH_TOOLS, ...PLAIN_TOOLS].sort();

const SHAPE = /^([A-Za-z][A-Za-z0-9_-]*)(?:\((.*)\))?$/s;
const SERVER = /^[A-Za-z0-9_-]{1,64}$/;
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export type RuleResult = { ok: true; rule: Rule } | { ok: false; problem: string };

/** Parses one rule; a problem is one sentence saying what is wrong and how to write it. */
export function parseRule(text: string): RuleResult {
  const fail = (problem: string): RuleResult => ({ ok: false, problem });
  const shape = SHAPE.exec(text.trim());
  if (shape === null) {
    return fail("a rule is a tool name, optionally followed by a specifier in parentheses, e.g. bash(npm test)");
  }
  const written = shape[1]!;
  const specifier = shape[2];
  if (written.startsWith(MCP_PREFIX)) return mcpRule(text, written, specifier);
  const name = written.toLowerCase();
  if (!RULE_TOOL_NAMES.includes(name)) {
    const near = nearestName(name, RULE_TOOL_NAMES);
    return fail(
      `unknown tool ${written}${near === undefined ? "" : `; did you mean ${near}?`} (MCP tools: mcp__<server>)`,
    );
  }
  const tools = FAMILIES[name] ?? [name];
  if (specifier === undefined) return { ok: true, rule: { text, tools, matcher: { kind: "any" } } };
  if (specifier.trim() === "") return fail(`the parentheses are empty; write ${name} alone to cover every call`);
  if (PLAIN_TOOLS.has(name)) return fail(`${name} takes no specifier; write ${name} alone`);
  if (name === "bash") {
    const command = commandMatcher(specifier);
    return "problem" in command ? fail(command.problem) : { ok: true, rule: { text, tools, matcher: command } };
  }
  if (name === "web_fetch") {
    const domain = domainMatcher(specifier);
    return "problem" in domain ? fail(domain.problem) : { ok: true, rule: { text, tools, matcher: domain } };
  }
  const problem = pathGlobProblem(specifier);
  if (problem !== undefined) return fail(problem);
  return { ok: true, rule: { text, tools, matcher: { kind: "path", glob: compilePathGlob(specifier) } } };
}

function mcpRule(text: string, name: string, specifier: string | undefined): RuleResult {
  if (specifier !== undefined) {
    return { ok: false, problem: "an MCP rule takes no specifier: write mcp__<server> or mcp__<server>__<tool>" };
  }
  const rest = name.slice(MCP_PREFIX.length);
  const separator = rest.indexOf("__");
  const server = separator < 0 ? rest : rest.slice(0, separator);
  if (!SERVER.test(server)) return { ok: false, problem: "an MCP rule names a server: mcp__<server>" };
  if (separator < 0 || rest.slice(separator) === "__*") {
    return { ok: true, rule: { text, tools: [], matcher: { kind: "mcp_server", server } } };
  }
  return { ok: true, rule: { text, tools: [], matcher: { kind: "mcp_tool", name } } };
}

function commandMatcher(specifier: string): RuleMatcher | { problem: string } {
  const prefix = specifier.endsWith(":*");
  const body = prefix ? specifier.slice(0, -2) : specifier;
  if (body.trim() === "") return { problem: "a command rule needs at least one word before :*; write bash alone" };
  const parts = splitCommandLine(body);
  const part = parts[0];
  if (parts.length !== 1 || part === undefined || !part.plain || part.words.length === 0) {
    return {
      problem: "a command rule is one simple command's words: no operators, substitutions, redirections or " +
        "variables (compound commands are checked part by part)",
    };
  }
  if (part.expanding.length > 0) {
    return { problem: "a command rule cannot use globs or ~; end it with :* to allow any further words" };
  }
  return { kind: "command", words: part.words, prefix };
}

function domainMatcher(specifier: string): RuleMatcher | { problem: string } {
  const problem = { problem: "a web_fetch rule is domain:<host> (or domain:*.<host> for its subdomains)" };
  if (!specifier.startsWith("domain:")) return problem;
  let host = specifier.slice("domain:".length).toLowerCase();
  const subdomains = host.startsWith("*.");
  if (subdomains) host = host.slice(2);
  if (host.length === 0 || host.length > 253 || !host.split(".").every((label) => LABEL.test(label))) return problem;
  return { kind: "domain", host, subdomains };
}

/** `words` as a command rule's text would write them, quoting what needs it (the inverse of parsing). */
export function quoteWords(words: readonly string[]): string {
  return words.map(quoteWord).join(" ");
}

function quoteWord(word: string): string {
  if (word !== "" && /^[A-Za-z0-9_@%+=,./:-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}
