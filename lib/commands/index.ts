// Public entry of lib/commands: custom slash commands from Markdown files (the user's and the project's), and the
// prompt one becomes with its arguments.
export {
  type CommandFolders,
  type CommandOrigin,
  type CustomCommand,
  discoverCommands,
  MAX_COMMAND_BYTES,
  MAX_COMMANDS,
} from "./discover.ts";
export { argumentWords, expandCommand } from "./expand.ts";
export { splitFrontMatter } from "./front_matter.ts";
