// The system prompt of a session (spec §8.1): the configured prompt, the workspace (and the folder the user works
// in), the project instructions (AGENTS.md files, lib/instructions), then the skills listing of tool sessions.

/** The longest system prompt a client may bring in `session.start` (upstream's limit), in UTF-8 bytes. */
export const MAX_CLIENT_SYSTEM_PROMPT_BYTES = 16_384;

export const CLIENT_PROMPT_MESSAGES = {
  needsNoTools: "system_prompt requires no_tools: true",
  invalid:
    `system_prompt must be at most ${MAX_CLIENT_SYSTEM_PROMPT_BYTES} bytes, with no control characters other than line breaks and tabs`,
} as const;

/**
 * Why a client's own `system_prompt` is refused, or undefined when there is none or it may replace the whole
 * prompt: only a tool-free session takes one (so tools never run under instructions the owner did not write),
 * bounded, and with no control characters but `\n` and `\t`.
 */
export function clientSystemPromptError(request: { system_prompt?: string; no_tools?: boolean }): string | undefined {
  const prompt = request.system_prompt;
  if (prompt === undefined) return undefined;
  if (request.no_tools !== true) return CLIENT_PROMPT_MESSAGES.needsNoTools;
  // deno-lint-ignore no-control-regex
  if (
    Buffer.byteLength(prompt) > MAX_CLIENT_SYSTEM_PROMPT_BYTES ||
    /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.test(prompt)
  ) {
    return CLIENT_PROMPT_MESSAGES.invalid;
  }
  return undefined;
}

/** Added to the system prompt while the approval mode is `plan`. */
export const PLAN_MODE_INSTRUCTIONS = "\n# Plan mode\n" +
  "Plan mode is on: you are planning, not changing anything. Read and search the workspace as much as you need, " +
  "but do not write or edit files, run commands or fetch from the network: such tool calls are refused until the " +
  "user switches the mode. Finish with a concrete, step-by-step plan for the user to approve.\n";

/**
 * The configured prompt, where the session works, the project instructions' section (lib/instructions) and the
 * skills listing of tool sessions.
 */
export function buildSystemPrompt(options: {
  systemPrompt: string;
  workspace: string;
  /** The folder the user works in, when it is below the workspace. */
  workingFolder?: string;
  /** `\n# Project instructions\n…`, or empty. */
  instructionsSection?: string;
  /** `\n# Available skills\n…` for tool sessions with skills, else empty. */
  skillsSection?: string;
}): string {
  let prompt = `${options.systemPrompt}\nCurrent working directory: ${options.workspace}\n`;
  const folder = options.workingFolder;
  if (folder !== undefined && folder !== options.workspace) {
    prompt += `The user works in ${folder}: their requests are most likely about it. Tool paths and commands ` +
      "still start from the working directory above.\n";
  }
  return prompt + (options.instructionsSection ?? "") + (options.skillsSection ?? "");
}
