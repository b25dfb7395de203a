// Public entry of lib/policy: whether a tool call runs (allow / ask / deny, and what decided), the approval modes,
// permission rules and session grants, and the pure helpers the decision needs. The ground floor: it imports only
// lib/util, and every room above asks it instead of deciding for itself.
export {
  type Access,
  callKey,
  type CommandAccess,
  type CommandPart,
  type DeclaredAccess,
  type Effect,
  type Risk,
} from "./access.ts";
export { commandAccess } from "./command_access.ts";
export { splitCommandLine } from "./command_parts.ts";
export {
  decide,
  type Decision,
  type DecisionSource,
  modeDefault,
  type Opinion,
  PLAN_MODE_REFUSAL,
  type PolicyState,
  readDenied,
  type Verdict,
} from "./decide.ts";
export { SESSION_ORIGIN, SessionGrants } from "./grants.ts";
export {
  APPROVAL_MODE_IDS,
  APPROVAL_MODES,
  type ApprovalMode,
  DEFAULT_APPROVAL_MODE,
  isApprovalMode,
  type ModeInfo,
  modeInfo,
  modeList,
  unknownModeMessage,
} from "./modes.ts";
export {
  DEFAULT_SANDBOX_MODE,
  isSandboxMode,
  SANDBOX_MODE_IDS,
  type SandboxMode,
  sandboxStrictness,
  type SandboxUse,
} from "./sandbox_modes.ts";
export { compilePathGlob, normalizePath, type PathGlob } from "./path_glob.ts";
export { parseRule, quoteWords, type Rule, RULE_LISTS, RULE_TOOL_NAMES, type RuleList } from "./rule.ts";
export { type PlacedRule, type RuleEntry, RuleError, RuleSet } from "./rule_set.ts";
export { suggestRule } from "./suggest.ts";
export { isSecretLikePath, SECRET_PATH_RULES, type SecretPathRule } from "./secret_paths.ts";
export { readOnlyVerdict, type SafetyVerdict } from "./safe_command.ts";
export { parseCommandLine, type ParsedCommandLine, type ShellWord, type SimpleCommand } from "./shell_words.ts";
export {
  canonicalWorkspace,
  checkRelativePath,
  confinementError,
  describeFsError,
  errorCode,
  isInside,
  openConfinedForRead,
  pathComponents,
  probePath,
  resolveExisting,
  resolveParent,
  toolPath,
  verifyDescriptor,
  WorkspacePathError,
} from "./workspace_path.ts";
