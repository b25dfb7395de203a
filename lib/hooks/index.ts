// Public entry of lib/hooks: hooks with Claude Code's semantics (issue 30): running a hook command with its JSON
// input under the tool environment's rules, what its exit code and output mean, and a session's runner.
export {
  hookBlock,
  hookContext,
  type HookResult,
  type HookRun,
  HookRunner,
  type HookRunnerOptions,
  type ListedHook,
} from "./hook_runner.ts";
export { type HookDecision, type HookVerdict, hookVerdict, MAX_HOOK_TEXT_CHARS } from "./hook_output.ts";
export { type HookProcess, type HookProcessResult, MAX_HOOK_OUTPUT_BYTES, runHookProcess } from "./run_hook.ts";
