// The system prompt of a session (spec §8.1): the configured prompt, the workspace, and AGENTS.md when it
// exists inside the workspace (bounded by tools.max_read_bytes), then the skills listing of tool sessions.
import { open, realpath } from "node:fs/promises";
import path from "node:path";
import { completeUtf8Length } from "../util/text_bounds.ts";
import { isInside } from "../util/path.ts";

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

export async function buildSystemPrompt(options: {
  systemPrompt: string;
  workspace: string;
  maxReadBytes: number;
  /** `\n# Available skills\n…` for tool sessions with skills, else empty. */
  skillsSection?: string;
}): Promise<string> {
  let prompt = `${options.systemPrompt}\nCurrent working directory: ${options.workspace}\n`;
  const instructions = await readProjectInstructions(options.workspace, options.maxReadBytes);
  if (instructions !== undefined) {
    prompt += `\n# Project instructions\n${instructions.text}`;
    if (instructions.truncated) prompt += "\n[AGENTS.md truncated by configured read limit]\n";
  }
  return prompt + (options.skillsSection ?? "");
}

async function readProjectInstructions(
  workspace: string,
  maxBytes: number,
): Promise<{ text: string; truncated: boolean } | undefined> {
  let resolved: string;
  try {
    resolved = await realpath(path.join(workspace, "AGENTS.md"));
  } catch {
    return undefined;
  }
  if (resolved === workspace || !isInside(workspace, resolved)) return undefined;
  let handle;
  try {
    handle = await open(resolved, "r");
    const stat = await handle.stat();
    if (!stat.isFile()) return undefined;
    const length = Math.min(stat.size, maxBytes);
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, 0);
    const truncated = stat.size > maxBytes;
    const bytes = buffer.subarray(0, bytesRead);
    // A character cut by the limit is dropped rather than decoded as U+FFFD.
    return { text: (truncated ? bytes.subarray(0, completeUtf8Length(bytes)) : bytes).toString("utf8"), truncated };
  } catch {
    return undefined;
  } finally {
    await handle?.close();
  }
}
