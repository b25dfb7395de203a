// Public entry of lib/policy: whether a tool call runs, and the pure helpers the decision needs.
export { isSecretLikePath, SECRET_PATH_RULES, type SecretPathRule } from "./secret_paths.ts";
export { leadingWords, readOnlyVerdict, type SafetyVerdict, startsWithWords } from "./safe_command.ts";
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
  verifyDescriptor,
  WorkspacePathError,
} from "./workspace_path.ts";
