// THE decision: whether a tool call runs, is asked about or is denied, and what decided it. A pure function of
// the call's declared access, the mode, the rules (with their origins), the session's grants and any further
// opinions (a hook's, later). Precedence, in one place: deny rules and deny opinions, then plan mode's refusal,
// then ask rules and opinions, then allow rules, grants and opinions, then the mode's default; under `never` a
// call that would ask is denied instead. The command sandbox enters as what a `bash` call declares (inside it, asking
// to leave it, or wanted and not holding) and as the session's sandbox mode: inputs of the mode's default, except
// that no allow rule covers leaving the sandbox (rules describe commands, not where they run).
import type { Access, CommandPart } from "./access.ts";
import type { SessionGrants } from "./grants.ts";
import type { ApprovalMode } from "./modes.ts";
import type { SandboxMode } from "./sandbox_modes.ts";
import { isSecretLikePath } from "./secret_paths.ts";
import type { RuleList } from "./rule.ts";
import type { PlacedRule, RuleSet } from "./rule_set.ts";

export type Verdict = "allow" | "ask" | "deny";

export type DecisionSource =
  | { kind: "rule"; list: RuleList; rule: string; origin: string }
  | { kind: "grant"; rule?: string }
  | { kind: "plan" }
  | { kind: "mode"; mode: ApprovalMode }
  | { kind: "opinion"; source: string };

export type Decision = {
  verdict: Verdict;
  source: DecisionSource;
  /** One sentence saying what decided, for the denial's tool output, the log and the approval question. */
  reason: string;
};

/** Another voice in the decision (a PreToolUse hook): it takes its place in the same precedence as a rule. */
export type Opinion = { verdict: Verdict; source: string; reason: string };

export type PolicyState = {
  mode: ApprovalMode;
  rules: RuleSet;
  grants?: SessionGrants;
  /** The command sandbox's mode in force (`auto` runs file changes only where commands may write too). */
  sandbox?: SandboxMode;
};

export const PLAN_MODE_REFUSAL = "plan mode is on: tools that write files, run commands or fetch are refused until " +
  "the user switches the mode; read what you need and present your plan instead";

/** The effects plan mode refuses. */
const PLAN_REFUSES = new Set(["edit", "run", "fetch"]);

export function decide(access: Access, state: PolicyState, opinions: readonly Opinion[] = []): Decision {
  const decision = decideUnbounded(access, state, opinions);
  if (decision.verdict === "ask" && state.mode === "never") {
    return {
      verdict: "deny",
      source: decision.source.kind === "rule" ? decision.source : { kind: "mode", mode: "never" },
      reason: `${decision.reason}, and the approval policy never denies what would ask`,
    };
  }
  return decision;
}

function decideUnbounded(access: Access, state: PolicyState, opinions: readonly Opinion[]): Decision {
  const { rules, mode } = state;
  const denied = rules.deny.find((rule) => touches(rule, access));
  if (denied !== undefined) return byRule("deny", denied);
  const deniedBy = opinions.find((opinion) => opinion.verdict === "deny");
  if (deniedBy !== undefined) return byOpinion(deniedBy);
  if (mode === "plan" && PLAN_REFUSES.has(access.effect)) {
    return { verdict: "deny", source: { kind: "plan" }, reason: PLAN_MODE_REFUSAL };
  }
  const asked = rules.ask.find((rule) => touches(rule, access));
  if (asked !== undefined) return byRule("ask", asked);
  const askedBy = opinions.find((opinion) => opinion.verdict === "ask");
  if (askedBy !== undefined) return byOpinion(askedBy);

  const grants = state.grants;
  if (grants?.hasCall(access.key)) {
    return { verdict: "allow", source: { kind: "grant" }, reason: "this exact call was allowed for the session" };
  }
  const readOnlyRuns = mode !== "always";
  const granted = grants?.rules.allow ?? [];
  const allowed = allowingRule(granted.length === 0 ? rules.allow : [...rules.allow, ...granted], access, readOnlyRuns);
  if (allowed !== undefined && granted.includes(allowed)) {
    return {
      verdict: "allow",
      source: { kind: "grant", rule: allowed.text },
      reason: `the rule ${allowed.text} was allowed for the session`,
    };
  }
  if (allowed !== undefined) return byRule("allow", allowed);
  const allowedBy = opinions.find((opinion) => opinion.verdict === "allow");
  if (allowedBy !== undefined) return byOpinion(allowedBy);
  return modeDefault(access, mode, state.sandbox);
}

function byRule(list: RuleList, rule: PlacedRule): Decision {
  const verdict: Verdict = list;
  const verb = list === "deny" ? "denies" : list === "ask" ? "asks about" : "allows";
  return {
    verdict,
    source: { kind: "rule", list, rule: rule.text, origin: rule.origin },
    reason: `the rule ${rule.text} in permissions.${list} (${rule.origin}) ${verb} it`,
  };
}

function byOpinion(opinion: Opinion): Decision {
  return { verdict: opinion.verdict, source: { kind: "opinion", source: opinion.source }, reason: opinion.reason };
}

/** What the mode does when nothing else decided. */
export function modeDefault(access: Access, mode: ApprovalMode, sandbox?: SandboxMode): Decision {
  const source = { kind: "mode" as const, mode };
  const readOnly = access.risk === "read_only";
  const use = access.sandbox;
  if (use?.state === "escalate") {
    return { verdict: "ask", source, reason: `${use.why}; running it outside the sandbox asks first` };
  }
  if (use?.state === "unavailable" && mode !== "always") {
    return { verdict: "ask", source, reason: `${use.why}, so every command asks` };
  }
  switch (mode) {
    case "auto":
      if (readOnly) return { verdict: "allow", source, reason: "the call only reads" };
      if (use?.state === "inside") {
        return { verdict: "allow", source, reason: `the command runs inside the sandbox (${use.mode})` };
      }
      if (access.effect === "edit" && access.risk === "filesystem" && !touchesSecret(access)) {
        return sandbox === "read-only"
          ? { verdict: "ask", source, reason: "the sandbox is read-only, so auto asks about file changes" }
          : { verdict: "allow", source, reason: "the approval policy auto runs file changes inside the workspace" };
      }
      return access.effect === "run" && access.command !== undefined
        ? { verdict: "ask", source, reason: "no sandbox contains this command, so auto asks about it" }
        : { verdict: "ask", source, reason: `the approval policy auto asks about ${access.risk} calls` };
    case "always":
      return { verdict: "ask", source, reason: "the approval policy always asks" };
    case "accept-edits":
      if (readOnly) return { verdict: "allow", source, reason: "the call only reads" };
      if (access.effect === "edit" && access.risk === "filesystem" && !touchesSecret(access)) {
        return { verdict: "allow", source, reason: "the approval policy accept-edits runs file changes" };
      }
      return { verdict: "ask", source, reason: "the approval policy accept-edits asks about anything but edits" };
    case "never":
      return readOnly ? { verdict: "allow", source, reason: "the call only reads" } : {
        verdict: "deny",
        source,
        reason: `the approval policy never denies every call that is not read-only${whyNotReadOnly(access)}`,
      };
    case "on-risk":
    case "plan":
      return readOnly ? { verdict: "allow", source, reason: "the call only reads" } : {
        verdict: "ask",
        source,
        reason: `the approval policy ${mode} asks about ${access.risk} calls${whyNotReadOnly(access)}`,
      };
  }
}

/** `: this command runs touch, which is not on the read-only list`, or nothing for calls other than commands. */
function whyNotReadOnly(access: Access): string {
  const why = access.command?.notReadOnly;
  return why === undefined ? "" : `: this command ${why}`;
}

function touchesSecret(access: Access): boolean {
  return [...(access.reads ?? []), ...(access.writes ?? [])].some(isSecretLikePath);
}

/** Whether a deny rule forbids `tool` to read the workspace-relative `path` (search tools leave such paths out). */
export function readDenied(rules: RuleSet, tool: string, path: string): boolean {
  const access: Access = { tool, risk: "read_only", effect: "read", reads: [path] };
  return rules.deny.some((rule) => rule.matcher.kind === "path" && touches(rule, access));
}

/** Whether `rule` is about this tool at all. */
function concerns(rule: PlacedRule, access: Access): boolean {
  const matcher = rule.matcher;
  if (matcher.kind === "mcp_server") return access.server === matcher.server;
  if (matcher.kind === "mcp_tool") return access.tool === matcher.name;
  return rule.tools.includes(access.tool);
}

/** Deny and ask rules: the rule matches anything the call touches (any path, any part of a command). */
export function touches(rule: PlacedRule, access: Access): boolean {
  if (!concerns(rule, access)) return false;
  const matcher = rule.matcher;
  switch (matcher.kind) {
    case "any":
    case "mcp_server":
    case "mcp_tool":
      return true;
    case "path":
      return paths(access).some((path) => matcher.glob.test(path));
    case "domain":
      return access.domain !== undefined && domainMatches(matcher, access.domain);
    case "command":
      return (access.command?.parts ?? []).some((part) =>
        wordsMatch(matcher.words, matcher.prefix, part.core) || wordsMatch(matcher.words, matcher.prefix, part.words)
      );
  }
}

/**
 * The allow rule that covers the whole call, or undefined: every path it touches, every part of its command (a
 * part may instead be read-only when `readOnlyRuns`; at least one part must be a rule's), its domain.
 */
export function allowingRule(
  allow: readonly PlacedRule[],
  access: Access,
  readOnlyRuns: boolean,
): PlacedRule | undefined {
  // Leaving the sandbox is its own question: an allow rule says a command may run, not that it may run outside.
  if (access.sandbox?.state === "escalate") return undefined;
  const relevant = allow.filter((rule) => concerns(rule, access));
  if (relevant.length === 0) return undefined;
  const whole = relevant.find((rule) => rule.matcher.kind === "any" || rule.matcher.kind.startsWith("mcp_"));
  if (whole !== undefined) return whole;
  if (access.command !== undefined) return commandCover(relevant, access.command.parts, readOnlyRuns);
  if (access.domain !== undefined) {
    return relevant.find((rule) => rule.matcher.kind === "domain" && domainMatches(rule.matcher, access.domain!));
  }
  const touched = paths(access);
  if (touched.length === 0) return undefined;
  let first: PlacedRule | undefined;
  for (const path of touched) {
    const rule = relevant.find((candidate) => candidate.matcher.kind === "path" && candidate.matcher.glob.test(path));
    if (rule === undefined) return undefined;
    first ??= rule;
  }
  return first;
}

function commandCover(
  rules: readonly PlacedRule[],
  parts: readonly CommandPart[],
  readOnlyRuns: boolean,
): PlacedRule | undefined {
  if (parts.length === 0) return undefined;
  let first: PlacedRule | undefined;
  for (const part of parts) {
    const rule = part.plain ? rules.find((candidate) => allowsPart(candidate, part)) : undefined;
    if (rule !== undefined) first ??= rule;
    else if (!(readOnlyRuns && part.readOnly)) return undefined;
  }
  return first;
}

/** An allow rule matches a plain part's own words exactly; a word that globs may only stand where `:*` is. */
export function allowsPart(rule: PlacedRule, part: CommandPart): boolean {
  const matcher = rule.matcher;
  if (matcher.kind !== "command" || !part.plain) return false;
  if (!wordsMatch(matcher.words, matcher.prefix, part.words)) return false;
  return part.expanding.every((index) => index >= matcher.words.length);
}

function wordsMatch(rule: readonly string[], prefix: boolean, words: readonly string[]): boolean {
  if (prefix ? words.length < rule.length : words.length !== rule.length) return false;
  for (let index = 0; index < rule.length; index += 1) if (rule[index] !== words[index]) return false;
  return true;
}

function domainMatches(matcher: { host: string; subdomains: boolean }, domain: string): boolean {
  const host = domain.toLowerCase().replace(/\.$/, "");
  return matcher.subdomains ? host.endsWith(`.${matcher.host}`) : host === matcher.host;
}

function paths(access: Access): string[] {
  return [...(access.reads ?? []), ...(access.writes ?? [])];
}
