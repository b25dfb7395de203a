// The system prompt of a session (spec §8.1): the configured prompt, the workspace, and AGENTS.md when it
// exists inside the workspace (bounded by tools.max_read_bytes), then the skills listing of tool sessions.
import { open, realpath } from "node:fs/promises";
import path from "node:path";
import { completeUtf8Length } from "../util/text_bounds.ts";
import { isInside } from "../util/path.ts";

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

async function readProjectInstructions(workspace: string, maxBytes: number): Promise<{ text: string; truncated: boolean } | undefined> {
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
