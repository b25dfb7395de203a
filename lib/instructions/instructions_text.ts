// How instruction files read in the model's context: each under a header naming its file, and a note for what
// `project_doc_max_bytes` cut or left out.
import type { InstructionFile } from "./instruction_files.ts";

/** The system prompt's section for the start's files, or "" when there are none. */
export function instructionsSection(files: readonly InstructionFile[], maxBytes: number): string {
  if (files.length === 0) return "";
  let text = "\n# Project instructions\n" +
    "These come from AGENTS.md files, the most general first; where two disagree, the later (more specific) one wins.\n";
  for (const file of files) text += fileBlock(file, maxBytes);
  return text;
}

/** What a tool's output gains when files join on first touch. */
export function joinedInstructionsText(files: readonly InstructionFile[], maxBytes: number): string {
  return files.map((file) =>
    `\n\n# Instructions joined: ${file.path}\n` +
    "They apply to the files under its folder; where they disagree with earlier instructions, they win there." +
    fileBlock(file, maxBytes)
  ).join("");
}

function fileBlock(file: InstructionFile, maxBytes: number): string {
  const label = file.scope === "global" ? `${file.path} (global)` : file.path;
  if (file.bytes === 0) return `\n[${label} left out: project_doc_max_bytes = ${maxBytes} was reached]\n`;
  let block = `\n## ${label}\n${file.text}`;
  if (!block.endsWith("\n")) block += "\n";
  if (file.truncated) {
    block += `[${label} cut by project_doc_max_bytes = ${maxBytes}: ${file.bytes} of ${file.size} bytes kept]\n`;
  }
  return block;
}
