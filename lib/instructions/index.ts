// Public entry of lib/instructions: the project instructions a session reads (AGENTS.md files from the instance
// home and from the repository root down to the working folder), those that join when a tool first touches a
// folder below, and how they read in the model's context.
export {
  chain,
  type InstructionFile,
  INSTRUCTIONS_NAME,
  type InstructionScope,
  type InstructionSources,
  loadInstructions,
  OVERRIDE_NAME,
} from "./instruction_files.ts";
export { NestedInstructions } from "./nested_instructions.ts";
export { instructionsSection, joinedInstructionsText } from "./instructions_text.ts";
